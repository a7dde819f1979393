/** Tests of the report arithmetic, the writers and the ONNX model generator. They never assert on time. */
package org.attn4j.bench;
