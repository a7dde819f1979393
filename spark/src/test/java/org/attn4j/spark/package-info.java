/** Tests of the Spark transformer against a real local SparkSession and the single-JVM embedder. */
package org.attn4j.spark;
