package org.attn4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {
    private static final AttentionWorkload L2048 = AttentionWorkload.selfAttention(12, 2048, 64, false);
    private static final AttentionWorkload L2048_CAUSAL = AttentionWorkload.selfAttention(12, 2048, 64, true);
    private static final AttentionWorkload TOY = AttentionWorkload.selfAttention(1, 6, 16, false);

    private static Timing median(double seconds) {
        return new Timing(5, seconds, seconds * 0.8, seconds * 1.5, seconds * 0.9, seconds * 1.2);
    }

    private static BenchReport report() {
        Environment env = new Environment("2026-11-22T05:00:00Z", "2026-11-22T05:20:00Z", "mvn -Pbench", 2, false,
                "17.0.15 (OpenJDK 64-Bit Server VM)", "Linux amd64", "AMD EPYC", 2, "0.10 0.20 0.30",
                "1.00 1.10 1.20", "1 fork", List.of("a note"), 100.0);
        List<Measurement> ms = List.of(
                Measurement.of(Suite.ATTENTION, Measurement.ONNX_RUNTIME, L2048, median(0.100)),
                Measurement.of(Suite.ATTENTION, "ejml", L2048, median(0.200)),
                Measurement.of(Suite.ATTENTION, "nd4j", L2048, median(0.080)),
                Measurement.of(Suite.ATTENTION, Measurement.ONNX_RUNTIME, L2048_CAUSAL, median(0.150)),
                Measurement.of(Suite.ATTENTION, "nd4j", L2048_CAUSAL, median(0.100)),
                Measurement.of(Suite.TOY, Measurement.ONNX_RUNTIME, TOY, median(16e-6)),
                Measurement.of(Suite.TOY, "ejml", TOY, median(4e-6)),
                Measurement.of(Suite.SQUARE_GEMM, "ejml-mt", GemmWorkload.square(1024), median(0.5)),
                Measurement.of(Suite.SQUARE_GEMM, "nd4j", GemmWorkload.square(2048), median(0.128)),
                Measurement.of(Suite.ATTENTION_GEMM, "ejml-mt", GemmWorkload.attentionShaped(12, 2048, 64),
                        median(0.25)),
                Measurement.of(Suite.LONG_SEQUENCE, "ejml", AttentionWorkload.selfAttention(12, 16384, 64, false),
                        Timing.single(30)),
                Measurement.failed(Suite.LONG_SEQUENCE, "nd4j", AttentionWorkload.selfAttention(12, 16384, 64, false),
                        "java.lang.OutOfMemoryError: Java heap space"));
        return new BenchReport(env, ms, Map.of("ejml", "ejml-mt", "nd4j", "nd4j"));
    }

    private static Measurement find(BenchReport r, Suite suite, String impl, Workload w) {
        return r.measurements().stream().filter(m -> m.suite() == suite && m.implementation().equals(impl)
                && m.workload().equals(w)).findFirst().orElseThrow();
    }

    @Test
    void ratioToOnnxRuntimeIsOnnxRuntimesTimeOverTheBackends() {
        BenchReport r = report();
        assertEquals(0.5, r.ratioToOnnxRuntime(find(r, Suite.ATTENTION, "ejml", L2048)), 1e-12);
        assertEquals(1.25, r.ratioToOnnxRuntime(find(r, Suite.ATTENTION, "nd4j", L2048)), 1e-12);
        assertEquals(1.5, r.ratioToOnnxRuntime(find(r, Suite.ATTENTION, "nd4j", L2048_CAUSAL)), 1e-12);
        assertEquals(4.0, r.ratioToOnnxRuntime(find(r, Suite.TOY, "ejml", TOY)), 1e-12);
    }

    @Test
    void sgemmPeakIsTheFastestSquareProductOfTheRun() {
        BenchReport r = report();
        Measurement peak = r.sgemmPeak().orElseThrow();
        assertEquals("nd4j", peak.implementation());
        assertEquals(2.0 * 2048 * 2048 * 2048 / 0.128 / 1e9, peak.gflops(), 1e-9);
        Measurement ort = find(r, Suite.ATTENTION, Measurement.ONNX_RUNTIME, L2048);
        assertEquals(L2048.flops() / 0.100 / peak.gflops() / 1e9, r.ratioToSgemmPeak(ort), 1e-12);
    }

    @Test
    void ownGemmRatioComparesWithTheSameLibrarysAttentionShapedProducts() {
        BenchReport r = report();
        assertEquals(1.25, r.ratioToOwnGemm(find(r, Suite.ATTENTION, "ejml", L2048)), 1e-12);
        assertTrue(Double.isNaN(r.ratioToOwnGemm(find(r, Suite.ATTENTION, "nd4j", L2048))),
                "nd4j has no attention-shaped GEMM in this report");
    }

    @Test
    void targetsAreEvaluatedOnTheRunAndUnmeasuredOnesSaySo() {
        List<Target> targets = report().targets();
        Map<String, Target> byGoal = new LinkedHashMap<>();
        targets.forEach(t -> byGoal.put(t.goal(), t));
        List<String> goals = new ArrayList<>(byGoal.keySet());
        assertEquals(List.of(
                "best CPU backend ≥ 1.0× ONNX Runtime throughput, B=1 H=12 L=512 d=64",
                "best CPU backend ≥ 1.0× ONNX Runtime throughput, B=1 H=12 L=2048 d=64",
                "best CPU backend ≥ 1.0× ONNX Runtime throughput, B=1 H=12 L=4096 d=64",
                "best CPU backend ≥ 1.4× ONNX Runtime throughput, B=1 H=12 L=2048 d=64 causal",
                "ejml attention ≥ 0.8× ejml-mt GEMM on matching sizes, B=1 H=12 L=2048 d=64",
                "best CPU backend ≥ 1.0× ONNX Runtime throughput, B=1 H=1 L=6 d=16",
                "ejml runs B=1 H=12 L=16384 d=64 in -Xmx2g",
                "nd4j runs B=1 H=12 L=16384 d=64 in -Xmx2g"), goals);
        Target l512 = targets.get(0);
        assertFalse(l512.measured());
        assertEquals("not measured: no backend finished it", l512.detail());
        Target l2048 = targets.get(1);
        assertEquals(1.25, l2048.reached(), 1e-12);
        assertTrue(l2048.met());
        assertEquals("nd4j 161 GFLOP/s vs ONNX Runtime 129 GFLOP/s (median 80.0 ms vs 100 ms)", l2048.detail());
        assertEquals(1.5, targets.get(3).reached(), 1e-12);
        assertTrue(targets.get(3).met());
        assertEquals(1.25, targets.get(4).reached(), 1e-12);
        assertEquals(4.0, targets.get(5).reached(), 1e-12);
        assertTrue(targets.get(6).met());
        assertFalse(targets.get(7).met());
        assertEquals("failed: java.lang.OutOfMemoryError: Java heap space", targets.get(7).detail());
    }

    @Test
    void markdownHasOneRowPerMeasurementWithMedianSpreadRateAndRatios() {
        String md = ReportWriter.markdown(report());
        assertTrue(md.contains("| B=1 H=12 L=2048 d=64 | ejml | 200 ms | 30.0 % | 64.4 | 0.50× | 0.48× | 1.25× |\n"),
                md);
        assertTrue(md.contains("| B=1 H=12 L=2048 d=64 | onnxruntime | 100 ms | 30.0 % | 129 | – | 0.96× | – |\n"),
                md);
        assertTrue(md.contains("| B=1 H=1 L=6 d=16 | ejml | 4.00 µs | 30.0 % | 0.576 | 4.00× |\n"), md);
        assertTrue(md.contains("| B=1 H=12 L=16384 d=64 | nd4j | failed: java.lang.OutOfMemoryError: Java heap space"
                + " | | | | |\n"), md);
        assertTrue(md.contains("| 2048×2048·2048×2048 | nd4j | 128 ms | 30.0 % | 134 | 1.00× | 1.34× |\n"), md);
        assertTrue(md.contains("- 256-bit FMA peak of the 2 threads: 100 GFLOP/s"), md);
        assertTrue(md.contains("| nd4j runs B=1 H=12 L=16384 d=64 in -Xmx2g | not done | done | **no** |"), md);
        assertTrue(md.contains("- SGEMM peak of this run: nd4j 2048×2048·2048×2048, 134 GFLOP/s\n"), md);
        assertTrue(md.contains("4·B·H·Lq·Lk·d"), md);
    }

    @Test
    void jsonCarriesTimingsRatesRatiosAndFailures() {
        String json = ReportWriter.json(report());
        assertTrue(json.startsWith("{\n  \"schema\": \"attn4j-bench/1\",\n"), json);
        assertTrue(json.contains("\"implementation\": \"ejml\",\n      \"workload\": {\n        \"type\": \"attention\","
                + "\n        \"batch\": 1,\n        \"heads\": 12,\n        \"queryLength\": 2048,"), json);
        assertTrue(json.contains("\"medianSeconds\": 0.2,"), json);
        assertTrue(json.contains("\"ratioToOnnxRuntime\": 0.5,"), json);
        assertTrue(json.contains("\"failure\": \"java.lang.OutOfMemoryError: Java heap space\""), json);
        assertTrue(json.contains("\"ownGemm\": {\n    \"ejml\": \"ejml-mt\",\n    \"nd4j\": \"nd4j\"\n  },"), json);
        assertTrue(json.contains("\"met\": null,"), "an unmeasured target has met = null: " + json);
    }

    @Test
    void writeCreatesBothFiles(@TempDir Path dir) throws Exception {
        ReportWriter.write(report(), dir.resolve("results"));
        assertEquals(ReportWriter.json(report()).lines().count(),
                Files.readString(dir.resolve("results/bench.json")).lines().count());
        assertTrue(Files.readString(dir.resolve("results/bench.md")).startsWith("# attn4j benchmark results\n"));
    }

    @Test
    void jsonEscapesStringsAndWritesNonFiniteNumbersAsStrings() {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("s", "a\"b\\c\nd\u0001");
        o.put("n", Double.NaN);
        o.put("i", 3.0);
        o.put("x", 0.125);
        o.put("l", List.of(1, true));
        o.put("e", List.of());
        assertEquals("{\n  \"s\": \"a\\\"b\\\\c\\nd\\u0001\",\n  \"n\": \"NaN\",\n  \"i\": 3,\n  \"x\": 0.125,\n"
                + "  \"l\": [\n    1,\n    true\n  ],\n  \"e\": []\n}\n", Json.write(o));
    }
}
