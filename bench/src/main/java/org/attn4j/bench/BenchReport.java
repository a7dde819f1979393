package org.attn4j.bench;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one run measured, and the ratios the report prints: to ONNX Runtime on the same shape, to the
 * fastest square SGEMM of the run, and to the backend's own library's GEMM on the shapes attention is made of.
 *
 * @param environment where and how it ran
 * @param measurements every benchmark's outcome, in run order
 * @param ownGemm for each backend name, the implementation label of its library's GEMM in
 *     {@link Suite#ATTENTION_GEMM} (for example {@code "ejml" -> "ejml-mt"})
 */
public record BenchReport(Environment environment, List<Measurement> measurements, Map<String, String> ownGemm) {

    /** Copies the lists. */
    public BenchReport {
        measurements = List.copyOf(measurements);
        ownGemm = Map.copyOf(ownGemm);
    }

    /**
     * @param suite a table
     * @return its measurements, in run order
     */
    public List<Measurement> in(Suite suite) {
        return measurements.stream().filter(m -> m.suite() == suite).toList();
    }

    /** @return the finished square SGEMM with the highest GFLOP/s, if any */
    public Optional<Measurement> sgemmPeak() {
        return in(Suite.SQUARE_GEMM).stream().filter(Measurement::ok)
                .max(Comparator.comparingDouble(Measurement::gflops));
    }

    /**
     * @param m an attention measurement
     * @return ONNX Runtime's finished measurement of the same suite and workload, if any
     */
    public Optional<Measurement> onnxRuntimeFor(Measurement m) {
        return measurements.stream().filter(o -> o.suite() == m.suite() && o.isOnnxRuntime() && o.ok()
                && o.workload().equals(m.workload())).findFirst();
    }

    /**
     * @param m an attention measurement of a backend
     * @return its library's finished attention-shaped GEMM on the same heads, length and head size, if any
     */
    public Optional<Measurement> ownGemmFor(Measurement m) {
        String gemm = ownGemm.get(m.implementation());
        if (gemm == null || !(m.workload() instanceof AttentionWorkload a) || a.batch() != 1
                || a.queryLength() != a.keyLength()) {
            return Optional.empty();
        }
        GemmWorkload shape = GemmWorkload.attentionShaped(a.heads(), a.queryLength(), a.headDim());
        return in(Suite.ATTENTION_GEMM).stream().filter(o -> o.ok() && o.implementation().equals(gemm)
                && o.workload().equals(shape)).findFirst();
    }

    /**
     * @param m a measurement
     * @return its GFLOP/s over ONNX Runtime's on the same shape (= ONNX Runtime's time over its time), or NaN
     */
    public double ratioToOnnxRuntime(Measurement m) {
        return onnxRuntimeFor(m).map(o -> m.gflops() / o.gflops()).orElse(Double.NaN);
    }

    /**
     * @param m a measurement
     * @return its GFLOP/s over the run's fastest square SGEMM's, or NaN
     */
    public double ratioToSgemmPeak(Measurement m) {
        return sgemmPeak().map(p -> m.gflops() / p.gflops()).orElse(Double.NaN);
    }

    /**
     * @param m a backend's attention measurement
     * @return its GFLOP/s over its own library's attention-shaped GEMM's, or NaN
     */
    public double ratioToOwnGemm(Measurement m) {
        return ownGemmFor(m).map(g -> m.gflops() / g.gflops()).orElse(Double.NaN);
    }

    /** @return the targets of the performance issue, evaluated on this run */
    public List<Target> targets() {
        return Targets.evaluate(this);
    }
}
