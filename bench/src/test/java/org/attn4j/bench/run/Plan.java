package org.attn4j.bench.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.attn4j.bench.AttentionWorkload;
import org.attn4j.bench.GemmWorkload;
import org.attn4j.bench.Measurement;
import org.attn4j.bench.Suite;

/**
 * What one run measures, in run order: attention per length (ONNX Runtime next to each backend, so that the
 * ratios compare calls made minutes apart at most), the toy shape, the GEMM peers, then the long sequence.
 *
 * @param lengths the attention lengths {@code L} (heads 12, head size 64, batch 1)
 * @param squareSizes the square SGEMM sizes for the multi-threaded peers
 * @param singleThreadSize the square SGEMM size for single-threaded EJML
 * @param longLength the length of the {@code -Xmx2g} check
 */
record Plan(List<Integer> lengths, List<Integer> squareSizes, int singleThreadSize, int longLength) {
    static final int HEADS = 12;
    static final int HEAD_DIM = 64;
    static final AttentionWorkload TOY = AttentionWorkload.selfAttention(1, 6, 16, false);
    /** The forked JVMs' heap; ND4J's off-heap limit follows it (JavaCPP's default maxBytes). */
    static final List<String> JVM = List.of("-Xms512m", "-Xmx4g");
    static final List<String> JVM_LONG = List.of("-Xmx2g");
    /** The GEMM of each backend's own library, by backend name. */
    static final Map<String, String> OWN_GEMM = Map.of("ejml", "ejml-mt", "nd4j", "nd4j");

    static Plan full() {
        return new Plan(List.of(128, 512, 2048, 4096), List.of(512, 1024, 2048), 1024, 16384);
    }

    static Plan quick() {
        return new Plan(List.of(128), List.of(128), 128, 1024);
    }

    /**
     * @param backends the available CPU backends' names
     * @param suites the suites to run
     * @param systemBlas the JVM option that makes ND4J load the system's OpenBLAS, or null if there is none
     * @return the jobs, in run order
     */
    List<Job> jobs(List<String> backends, Set<Suite> suites, String systemBlas) {
        List<Job> jobs = new ArrayList<>();
        if (suites.contains(Suite.ATTENTION)) {
            for (int length : lengths) {
                for (boolean causal : new boolean[] {false, true}) {
                    AttentionWorkload w = AttentionWorkload.selfAttention(HEADS, length, HEAD_DIM, causal);
                    jobs.add(onnx(Suite.ATTENTION, w));
                    backends.forEach(b -> jobs.add(attention(Suite.ATTENTION, b, w, false, JVM)));
                }
            }
        }
        if (suites.contains(Suite.TOY)) {
            jobs.add(onnx(Suite.TOY, TOY));
            backends.forEach(b -> jobs.add(attention(Suite.TOY, b, TOY, false, JVM)));
        }
        if (suites.contains(Suite.SQUARE_GEMM)) {
            jobs.add(gemm(Suite.SQUARE_GEMM, "ejml", "ejml", GemmWorkload.square(singleThreadSize), JVM));
            for (int n : squareSizes) {
                jobs.add(gemm(Suite.SQUARE_GEMM, "ejml-mt", "ejml-mt", GemmWorkload.square(n), JVM));
                jobs.add(gemm(Suite.SQUARE_GEMM, "nd4j", "nd4j", GemmWorkload.square(n), JVM));
                if (systemBlas != null) {
                    List<String> jvm = new ArrayList<>(JVM);
                    jvm.add(systemBlas);
                    jobs.add(gemm(Suite.SQUARE_GEMM, "nd4j + system OpenBLAS", "nd4j", GemmWorkload.square(n), jvm));
                }
            }
        }
        if (suites.contains(Suite.ATTENTION_GEMM)) {
            for (int length : lengths) {
                GemmWorkload w = GemmWorkload.attentionShaped(HEADS, length, HEAD_DIM);
                for (String impl : List.of("ejml-mt", "nd4j")) {
                    jobs.add(gemm(Suite.ATTENTION_GEMM, impl, impl, w, JVM));
                }
            }
        }
        if (suites.contains(Suite.LONG_SEQUENCE)) {
            AttentionWorkload w = AttentionWorkload.selfAttention(HEADS, longLength, HEAD_DIM, false);
            backends.forEach(b -> jobs.add(attention(Suite.LONG_SEQUENCE, b, w, true, JVM_LONG)));
        }
        return jobs;
    }

    private static Job onnx(Suite suite, AttentionWorkload w) {
        return new Job(suite, Measurement.ONNX_RUNTIME, OnnxAttentionBench.class, shape(w), w, false, JVM);
    }

    private static Job attention(Suite suite, String backend, AttentionWorkload w, boolean singleShot,
                                 List<String> jvm) {
        Map<String, String> params = new LinkedHashMap<>(shape(w));
        params.put("backend", backend);
        return new Job(suite, backend, AttentionBench.class, params, w, singleShot, jvm);
    }

    private static Map<String, String> shape(AttentionWorkload w) {
        return Map.of("heads", Integer.toString(w.heads()), "length", Integer.toString(w.queryLength()),
                "headDim", Integer.toString(w.headDim()), "causal", Boolean.toString(w.causal()));
    }

    private static Job gemm(Suite suite, String label, String impl, GemmWorkload w, List<String> jvm) {
        Map<String, String> params = Map.of("impl", impl,
                "heads", Integer.toString(w.attentionShaped() ? w.count() : 0),
                "length", Integer.toString(w.m()), "headDim", Integer.toString(w.k()));
        return new Job(suite, label, GemmBench.class, params, w, false, jvm);
    }
}
