/**
 * Sentence embeddings over Apache Spark: {@link org.attn4j.spark.SentenceEmbeddings}, a Spark ML transformer that
 * appends each row's embedding and loads its model once per executor JVM, and
 * {@link org.attn4j.spark.DatasetEmbeddings}, the same as one call for users of plain Datasets. Spark is a
 * {@code provided} dependency: the cluster brings it.
 */
package org.attn4j.spark;
