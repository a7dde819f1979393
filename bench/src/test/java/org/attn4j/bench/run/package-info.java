/**
 * The JMH benchmarks ({@link org.attn4j.bench.run.AttentionBench}, {@link org.attn4j.bench.run.OnnxAttentionBench},
 * {@link org.attn4j.bench.run.GemmBench}), the GEMM peers and the driver {@link org.attn4j.bench.run.BenchMain}
 * that runs a {@link org.attn4j.bench.run.Plan} and writes the report. Test sources, so that ONNX Runtime, JMH and
 * the backends stay test-scoped.
 */
package org.attn4j.bench.run;
