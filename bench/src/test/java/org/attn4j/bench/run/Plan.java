package org.attn4j.bench.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
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
    /** Where Debian's {@code libopenblas0-pthread} puts {@code libopenblas.so.0}. */
    static final String SYSTEM_OPENBLAS_DIR = "/usr/lib/x86_64-linux-gnu/openblas-pthread";
    /**
     * Makes JavaCPP look in {@code java.library.path} before its bundled copies, so ND4J's {@code openblas} and
     * {@code openblas_nolapack} both resolve to the system's OpenBLAS instead of the bundled 0.3.19.
     */
    static final List<String> SYSTEM_OPENBLAS = List.of("-Dorg.bytedeco.javacpp.pathsFirst=true",
            "-Djava.library.path=" + SYSTEM_OPENBLAS_DIR);
    static final String WITH_SYSTEM_OPENBLAS = " + system OpenBLAS";

    static Plan full() {
        return new Plan(List.of(128, 512, 2048, 4096), List.of(512, 1024, 2048), 1024, 16384);
    }

    static Plan quick() {
        return new Plan(List.of(128), List.of(128), 128, 1024);
    }

    /**
     * A way to run an implementation: its report name, what the benchmark is given, extra JVM options.
     *
     * @param label the report's name
     * @param name the backend's provider name or the GEMM peer's name
     * @param jvmArgs options added to the fork's
     */
    record Variant(String label, String name, List<String> jvmArgs) {
    }

    /**
     * @param names backend or GEMM peer names
     * @param systemBlas whether ND4J can also run on the system's OpenBLAS
     * @return each name as is, plus, for {@code nd4j} when {@code systemBlas}, ND4J on the system's OpenBLAS
     */
    static List<Variant> variants(List<String> names, boolean systemBlas) {
        return names.stream().flatMap(n -> n.equals("nd4j") && systemBlas
                ? Stream.of(new Variant(n, n, JVM), new Variant(n + WITH_SYSTEM_OPENBLAS, n,
                        Stream.concat(JVM.stream(), SYSTEM_OPENBLAS.stream()).toList()))
                : Stream.of(new Variant(n, n, JVM))).toList();
    }

    /**
     * @param systemBlas whether ND4J on the system's OpenBLAS is measured
     * @return for each backend variant's label, the label of its own library's GEMM
     */
    static Map<String, String> ownGemm(boolean systemBlas) {
        Map<String, String> own = new LinkedHashMap<>(Map.of("ejml", "ejml-mt", "nd4j", "nd4j"));
        if (systemBlas) {
            own.put("nd4j" + WITH_SYSTEM_OPENBLAS, "nd4j" + WITH_SYSTEM_OPENBLAS);
        }
        return own;
    }

    /**
     * @param backends the available CPU backends' names
     * @param suites the suites to run
     * @param systemBlas whether ND4J also runs on the system's OpenBLAS
     * @return the jobs, in run order
     */
    List<Job> jobs(List<String> backends, Set<Suite> suites, boolean systemBlas) {
        List<Variant> attention = variants(backends, systemBlas);
        List<Variant> gemm = variants(List.of("ejml-mt", "nd4j"), systemBlas);
        List<Job> jobs = new ArrayList<>();
        if (suites.contains(Suite.ATTENTION)) {
            for (int length : lengths) {
                for (boolean causal : new boolean[] {false, true}) {
                    AttentionWorkload w = AttentionWorkload.selfAttention(HEADS, length, HEAD_DIM, causal);
                    jobs.add(onnx(Suite.ATTENTION, w));
                    attention.forEach(b -> jobs.add(attention(Suite.ATTENTION, b, w, false)));
                }
            }
        }
        if (suites.contains(Suite.TOY)) {
            jobs.add(onnx(Suite.TOY, TOY));
            attention.forEach(b -> jobs.add(attention(Suite.TOY, b, TOY, false)));
        }
        if (suites.contains(Suite.SQUARE_GEMM)) {
            jobs.add(gemm(Suite.SQUARE_GEMM, new Variant("ejml", "ejml", JVM), GemmWorkload.square(singleThreadSize)));
            for (int n : squareSizes) {
                gemm.forEach(g -> jobs.add(gemm(Suite.SQUARE_GEMM, g, GemmWorkload.square(n))));
            }
        }
        if (suites.contains(Suite.ATTENTION_GEMM)) {
            for (int length : lengths) {
                GemmWorkload w = GemmWorkload.attentionShaped(HEADS, length, HEAD_DIM);
                gemm.forEach(g -> jobs.add(gemm(Suite.ATTENTION_GEMM, g, w)));
            }
        }
        if (suites.contains(Suite.LONG_SEQUENCE)) {
            AttentionWorkload w = AttentionWorkload.selfAttention(HEADS, longLength, HEAD_DIM, false);
            for (Variant b : attention) {
                List<String> jvm = new ArrayList<>(b.jvmArgs());
                jvm.removeAll(JVM);
                jvm.addAll(0, JVM_LONG);
                jobs.add(attention(Suite.LONG_SEQUENCE, new Variant(b.label(), b.name(), jvm), w, true));
            }
        }
        return jobs;
    }

    private static Job onnx(Suite suite, AttentionWorkload w) {
        return new Job(suite, Measurement.ONNX_RUNTIME, OnnxAttentionBench.class, shape(w), w, false, JVM);
    }

    private static Job attention(Suite suite, Variant backend, AttentionWorkload w, boolean singleShot) {
        Map<String, String> params = new LinkedHashMap<>(shape(w));
        params.put("backend", backend.name());
        return new Job(suite, backend.label(), AttentionBench.class, params, w, singleShot, backend.jvmArgs());
    }

    private static Map<String, String> shape(AttentionWorkload w) {
        return Map.of("heads", Integer.toString(w.heads()), "length", Integer.toString(w.queryLength()),
                "headDim", Integer.toString(w.headDim()), "causal", Boolean.toString(w.causal()));
    }

    private static Job gemm(Suite suite, Variant peer, GemmWorkload w) {
        Map<String, String> params = Map.of("impl", peer.name(),
                "heads", Integer.toString(w.attentionShaped() ? w.count() : 0),
                "length", Integer.toString(w.m()), "headDim", Integer.toString(w.k()));
        return new Job(suite, peer.label(), GemmBench.class, params, w, false, peer.jvmArgs());
    }
}
