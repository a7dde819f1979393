/**
 * The benchmark harness's dependency-free part: workloads and their operation counts ({@link
 * org.attn4j.bench.AttentionWorkload}: {@code 4·B·H·Lq·Lk·d}, half when causal), measurements, the ratios and
 * targets of a run ({@link org.attn4j.bench.BenchReport}), the JSON and Markdown writers ({@link
 * org.attn4j.bench.ReportWriter}) and the generator of ONNX Runtime's one-node attention model ({@link
 * org.attn4j.bench.OnnxModels}).
 *
 * <p>The JMH benchmarks, the peers (ONNX Runtime, EJML and ND4J GEMM) and the driver that runs them all live in
 * this module's test sources, so that ONNX Runtime, JMH and the backends stay test-scoped: the module's own jar
 * depends on nothing.
 */
package org.attn4j.bench;
