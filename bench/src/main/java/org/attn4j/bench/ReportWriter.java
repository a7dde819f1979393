package org.attn4j.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a {@link BenchReport} as {@code bench.json} (every measurement with its derived rates and ratios) and
 * {@code bench.md} (one table per {@link Suite}, medians with GFLOP/s and ratios, then the targets).
 */
public final class ReportWriter {
    /** The operation count the report states. */
    static final String FLOP_FORMULA = "attention: 4·B·H·Lq·Lk·d per call (q·kᵀ and weights·v, 2·Lq·Lk·d each;"
            + " softmax, scale and mask not counted); causal attention counts half of it, 2·B·H·Lq·Lk·d."
            + " GEMM: 2·m·n·k per product.";

    private ReportWriter() {
    }

    /**
     * Writes {@code bench.json} and {@code bench.md} into a directory, creating it if needed.
     *
     * @param report the run
     * @param directory where the two files go
     */
    public static void write(BenchReport report, Path directory) {
        try {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve("bench.json"), json(report), StandardCharsets.UTF_8);
            Files.writeString(directory.resolve("bench.md"), markdown(report), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the benchmark report into " + directory
                    + "; check that the directory is writable", e);
        }
    }

    /**
     * @param report the run
     * @return the JSON document
     */
    public static String json(BenchReport report) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("schema", "attn4j-bench/1");
        root.put("flopFormula", FLOP_FORMULA);
        root.put("environment", environment(report.environment()));
        root.put("ownGemm", new TreeMap<>(report.ownGemm()));
        root.put("sgemmPeak", report.sgemmPeak().map(p -> (Object) Map.of("implementation", p.implementation(),
                "workload", p.workload().label(), "gflops", p.gflops())).orElse(null));
        List<Object> measurements = new ArrayList<>();
        for (Measurement m : report.measurements()) {
            measurements.add(measurement(report, m));
        }
        root.put("measurements", measurements);
        List<Object> targets = new ArrayList<>();
        for (Target t : report.targets()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("goal", t.goal());
            o.put("kind", t.ratio() ? "ratio" : "done");
            o.put("threshold", t.threshold());
            o.put("reached", t.reached());
            o.put("met", t.measured() ? t.met() : null);
            o.put("detail", t.detail());
            targets.add(o);
        }
        root.put("targets", targets);
        return Json.write(root);
    }

    private static Map<String, Object> environment(Environment e) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("started", e.started());
        o.put("finished", e.finished());
        o.put("command", e.command());
        o.put("threads", e.threads());
        o.put("quick", e.quick());
        o.put("java", e.java());
        o.put("os", e.os());
        o.put("cpu", e.cpu());
        o.put("cores", e.cores());
        o.put("loadBefore", e.loadBefore());
        o.put("loadAfter", e.loadAfter());
        o.put("jmh", e.jmh());
        o.put("notes", e.notes());
        o.put("vectorPeakGflops", e.vectorPeakGflops());
        return o;
    }

    private static Map<String, Object> measurement(BenchReport report, Measurement m) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("suite", m.suite().name());
        o.put("implementation", m.implementation());
        o.put("workload", workload(m.workload()));
        if (m.ok()) {
            Timing t = m.timing();
            Map<String, Object> timing = new LinkedHashMap<>();
            timing.put("samples", t.samples());
            timing.put("medianSeconds", t.medianSeconds());
            timing.put("minSeconds", t.minSeconds());
            timing.put("maxSeconds", t.maxSeconds());
            timing.put("p10Seconds", t.p10Seconds());
            timing.put("p90Seconds", t.p90Seconds());
            timing.put("spread", t.spread());
            timing.put("forks", t.forks());
            timing.put("slowestForkMedianSeconds", t.slowestForkMedianSeconds());
            o.put("timing", timing);
            o.put("gflops", m.gflops());
            o.put("ratioToOnnxRuntime", m.isOnnxRuntime() ? null : report.ratioToOnnxRuntime(m));
            o.put("ratioToSgemmPeak", report.ratioToSgemmPeak(m));
            o.put("ratioToOwnGemm", report.ratioToOwnGemm(m));
            o.put("ratioToVectorPeak", m.gflops() / report.environment().vectorPeakGflops());
        } else {
            o.put("failure", m.failure());
        }
        return o;
    }

    private static Map<String, Object> workload(Workload w) {
        Map<String, Object> o = new LinkedHashMap<>();
        if (w instanceof AttentionWorkload a) {
            o.put("type", "attention");
            o.put("batch", a.batch());
            o.put("heads", a.heads());
            o.put("queryLength", a.queryLength());
            o.put("keyLength", a.keyLength());
            o.put("headDim", a.headDim());
            o.put("causal", a.causal());
        } else if (w instanceof GemmWorkload g) {
            o.put("type", g.attentionShaped() ? "gemm-attention-shaped" : "gemm");
            o.put("count", g.count());
            o.put("m", g.m());
            o.put("n", g.n());
            o.put("k", g.k());
        }
        o.put("label", w.label());
        o.put("flops", w.flops());
        return o;
    }

    /**
     * @param report the run
     * @return the Markdown document
     */
    public static String markdown(BenchReport report) {
        Environment e = report.environment();
        StringBuilder md = new StringBuilder();
        md.append("# attn4j benchmark results").append(e.quick() ? " (quick mode: smoke test, not a measurement)" : "")
                .append("\n\n");
        md.append("- Command: `").append(e.command()).append("`\n");
        md.append("- Run: ").append(e.started()).append(" to ").append(e.finished()).append(" UTC\n");
        md.append("- Machine: ").append(e.cpu()).append(", ").append(e.cores()).append(" cores; every implementation ")
                .append("on ").append(e.threads()).append(" threads; ").append(e.os()).append("; ").append(e.java())
                .append('\n');
        md.append("- Load average (1, 5, 15 min) before: ").append(e.loadBefore()).append("; after: ")
                .append(e.loadAfter()).append('\n');
        md.append("- JMH: ").append(e.jmh()).append('\n');
        md.append("- Operations counted: ").append(FLOP_FORMULA).append('\n');
        md.append("- 256-bit FMA peak of the ").append(e.threads()).append(" threads: ")
                .append(Format.significant(e.vectorPeakGflops())).append(" GFLOP/s (threads × 2 FMA units × 8 lanes ×")
                .append(" 2 × GHz, at the clock above); × 256-bit peak is GFLOP/s over it\n");
        report.sgemmPeak().ifPresent(p -> md.append("- SGEMM peak of this run: ").append(p.implementation())
                .append(' ').append(p.workload().label()).append(", ").append(Format.gflops(p)).append('\n'));
        md.append("- Spread = (90th − 10th percentile of the call times) / median; × ONNX Runtime = its GFLOP/s over")
                .append(" ONNX Runtime's on the same shape (= ONNX Runtime's time over its time).\n");
        for (String note : e.notes()) {
            md.append("- ").append(note).append('\n');
        }

        md.append("\n## Targets\n\n| goal | reached | needed | met | from |\n|---|---|---|---|---|\n");
        for (Target t : report.targets()) {
            md.append("| ").append(t.goal()).append(" | ").append(!t.measured() ? "–" : !t.ratio()
                    ? (t.met() ? "done" : "not done") : Format.ratio(t.reached())).append(" | ")
                    .append(t.ratio() ? Format.ratio(t.threshold()) : "done").append(" | ")
                    .append(!t.measured() ? "not measured" : t.met() ? "yes" : "**no**").append(" | ")
                    .append(t.detail()).append(" |\n");
        }

        List<Measurement> attention = report.in(Suite.ATTENTION);
        if (!attention.isEmpty()) {
            md.append("\n## ").append(Suite.ATTENTION.title()).append("\n\n");
            md.append("| shape | implementation | median | spread | GFLOP/s | × ONNX Runtime | × SGEMM peak | ")
                    .append("× own GEMM, same shapes |\n|---|---|---|---|---|---|---|---|\n");
            for (Measurement m : attention) {
                row(md, m, Format.ratio(m.isOnnxRuntime() ? Double.NaN : report.ratioToOnnxRuntime(m)),
                        Format.ratio(report.ratioToSgemmPeak(m)), Format.ratio(report.ratioToOwnGemm(m)));
            }
        }
        List<Measurement> toy = report.in(Suite.TOY);
        if (!toy.isEmpty()) {
            md.append("\n## ").append(Suite.TOY.title()).append("\n\n");
            md.append("| shape | implementation | median | spread | GFLOP/s | × ONNX Runtime |\n")
                    .append("|---|---|---|---|---|---|\n");
            for (Measurement m : toy) {
                row(md, m, Format.ratio(m.isOnnxRuntime() ? Double.NaN : report.ratioToOnnxRuntime(m)));
            }
        }
        for (Suite suite : List.of(Suite.LONG_SEQUENCE, Suite.SQUARE_GEMM, Suite.BERT_GEMM, Suite.ATTENTION_GEMM)) {
            List<Measurement> ms = report.in(suite);
            if (ms.isEmpty()) {
                continue;
            }
            md.append("\n## ").append(suite.title()).append("\n\n");
            md.append("| shape | implementation | median | spread | GFLOP/s | × SGEMM peak | × 256-bit peak |\n")
                    .append("|---|---|---|---|---|---|---|\n");
            for (Measurement m : ms) {
                row(md, m, Format.ratio(report.ratioToSgemmPeak(m)),
                        Format.ratio(m.gflops() / e.vectorPeakGflops()));
            }
        }
        return md.toString();
    }

    private static void row(StringBuilder md, Measurement m, String... ratios) {
        md.append("| ").append(m.workload().label()).append(" | ").append(m.implementation()).append(" | ");
        if (!m.ok()) {
            md.append("failed: ").append(m.failure().replace('|', '/').replace('\n', ' '))
                    .append(" |".repeat(3 + ratios.length)).append('\n');
            return;
        }
        md.append(Format.duration(m.timing().medianSeconds()));
        if (m.timing().forks() > 1) {
            md.append(" (slowest of ").append(m.timing().forks()).append(" forks: ")
                    .append(Format.duration(m.timing().slowestForkMedianSeconds())).append(")");
        }
        md.append(" | ")
                .append(Format.significant(100 * m.timing().spread())).append(" % | ")
                .append(Format.significant(m.gflops()));
        for (String r : ratios) {
            md.append(" | ").append(r);
        }
        md.append(" |\n");
    }
}
