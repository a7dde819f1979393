package org.attn4j.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The goals of the performance issue, evaluated on one run's measurements. */
final class Targets {
    /** Heads and head size of the attention shapes the goals name. */
    static final int HEADS = 12;
    static final int HEAD_DIM = 64;
    /** The backend whose attention, in each of its variants, is held against its own library's GEMM. */
    static final String EJML = "ejml";
    /** The EJML backend's SGEMM, held against OpenBLAS (ND4J's) on the same product. */
    static final String SIMD_SGEMM = "ejml + SIMD SGEMM";

    private Targets() {
    }

    static List<Target> evaluate(BenchReport report) {
        List<Target> targets = new ArrayList<>();
        for (int length : new int[] {512, 2048, 4096}) {
            targets.add(versusOnnxRuntime(report, Suite.ATTENTION,
                    AttentionWorkload.selfAttention(HEADS, length, HEAD_DIM, false), 1.0));
        }
        targets.add(versusOnnxRuntime(report, Suite.ATTENTION,
                AttentionWorkload.selfAttention(HEADS, 2048, HEAD_DIM, true), 1.4));
        report.in(Suite.ATTENTION).stream()
                .filter(m -> m.implementation().startsWith(EJML) && !((AttentionWorkload) m.workload()).causal())
                .forEach(m -> targets.add(versusOwnGemm(report, m, 0.8)));
        report.in(Suite.TOY).stream().filter(m -> m.isOnnxRuntime()).findFirst()
                .ifPresent(o -> targets.add(versusOnnxRuntime(report, Suite.TOY, o.workload(), 1.0)));
        for (Suite suite : List.of(Suite.SQUARE_GEMM, Suite.BERT_GEMM)) {
            report.in(suite).stream().filter(m -> m.implementation().equals(SIMD_SGEMM))
                    .filter(m -> suite == Suite.BERT_GEMM || m.workload().flops() >= 2.0 * 1024 * 1024 * 1024)
                    .forEach(m -> targets.add(versusOpenBlas(report, m, 0.8)));
        }
        for (Measurement m : report.in(Suite.LONG_SEQUENCE)) {
            targets.add(new Target(m.implementation() + " runs " + m.workload().label() + " in -Xmx2g", false, 1,
                    m.ok() ? 1 : 0, m.ok() ? String.format(Locale.ROOT, "finished in %.1f s, %.1f GFLOP/s",
                    m.timing().medianSeconds(), m.gflops()) : "failed: " + m.failure()));
        }
        return List.copyOf(targets);
    }

    private static Target versusOnnxRuntime(BenchReport report, Suite suite, Workload workload, double threshold) {
        String goal = "best CPU backend ≥ " + threshold + "× ONNX Runtime throughput, " + workload.label();
        Optional<Measurement> best = report.in(suite).stream()
                .filter(m -> m.ok() && !m.isOnnxRuntime() && m.workload().equals(workload))
                .max(Comparator.comparingDouble(Measurement::gflops));
        Optional<Measurement> onnx = best.flatMap(report::onnxRuntimeFor);
        if (best.isEmpty() || onnx.isEmpty()) {
            return new Target(goal, true, threshold, Double.NaN, "not measured: "
                    + (best.isEmpty() ? "no backend finished it" : "ONNX Runtime did not finish it"));
        }
        Measurement b = best.get();
        Measurement o = onnx.get();
        return new Target(goal, true, threshold, b.gflops() / o.gflops(), String.format(Locale.ROOT,
                "%s %s vs ONNX Runtime %s (median %s vs %s)", b.implementation(), Format.gflops(b),
                Format.gflops(o), Format.duration(b.timing().medianSeconds()),
                Format.duration(o.timing().medianSeconds())));
    }

    private static Target versusOpenBlas(BenchReport report, Measurement m, double threshold) {
        String goal = m.implementation() + " ≥ " + threshold + "× OpenBLAS (fastest ND4J variant), "
                + m.workload().label();
        Optional<Measurement> blas = report.in(m.suite()).stream()
                .filter(o -> o.ok() && o.implementation().startsWith("nd4j") && o.workload().equals(m.workload()))
                .max(Comparator.comparingDouble(Measurement::gflops));
        if (!m.ok() || blas.isEmpty()) {
            return new Target(goal, true, threshold, Double.NaN, "not measured: "
                    + (!m.ok() ? "the product failed" : "no ND4J product finished"));
        }
        Measurement o = blas.get();
        return new Target(goal, true, threshold, m.gflops() / o.gflops(), String.format(Locale.ROOT,
                "%s vs %s %s", Format.gflops(m), o.implementation(), Format.gflops(o)));
    }

    private static Target versusOwnGemm(BenchReport report, Measurement m, double threshold) {
        String gemm = report.ownGemm().getOrDefault(m.implementation(), "its library's GEMM");
        String goal = m.implementation() + " attention ≥ " + threshold + "× " + gemm + " GEMM on matching sizes, "
                + m.workload().label();
        Optional<Measurement> own = report.ownGemmFor(m);
        if (!m.ok() || own.isEmpty()) {
            return new Target(goal, true, threshold, Double.NaN, "not measured: "
                    + (!m.ok() ? "the attention failed" : "no attention-shaped " + gemm + " GEMM finished"));
        }
        return new Target(goal, true, threshold, m.gflops() / own.get().gflops(), String.format(Locale.ROOT,
                "%s vs %s %s", Format.gflops(m), own.get().workload().label(), Format.gflops(own.get())));
    }
}
