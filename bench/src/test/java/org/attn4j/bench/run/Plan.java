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
 * @param bertProducts the BERT-shaped products
 */
record Plan(List<Integer> lengths, List<Integer> squareSizes, int singleThreadSize, int longLength,
            List<GemmWorkload> bertProducts) {
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
    /**
     * Makes OpenBLAS use its AVX-512 kernels whatever the environment says. On AMD Zen 5 the bundled 0.3.19
     * otherwise falls back to SSE ("Barcelona") and Debian's 0.3.21 picks AVX-512 ("Cooperlake"), unless the
     * environment forces a core type, as this machine's does ({@code Haswell}, AVX2). OpenBLAS reads it when it
     * loads.
     */
    static final Map<String, String> AVX512_KERNELS = Map.of("OPENBLAS_CORETYPE", "SkylakeX");
    /** Resolves the incubating Vector API, which the EJML backend's SIMD attention kernel needs. */
    static final List<String> VECTOR_MODULE = List.of("--add-modules", "jdk.incubator.vector");
    static final String EJML = "ejml";
    /** The EJML backend's own {@code Ops.matmul} as a GEMM peer. */
    static final String EJML_BACKEND = "ejml-backend";
    static final String ND4J = "nd4j";

    static Plan full() {
        return new Plan(List.of(128, 512, 2048, 4096), List.of(512, 1024, 2048), 1024, 16384,
                List.of(GemmWorkload.product(4096, 1536, 384), GemmWorkload.product(4096, 384, 1536),
                        GemmWorkload.product(4096, 384, 384)));
    }

    static Plan quick() {
        return new Plan(List.of(128), List.of(128), 128, 1024, List.of(GemmWorkload.product(128, 96, 32)));
    }

    /**
     * @param chosen the attention lengths to run instead
     * @return this plan with other lengths
     */
    Plan withLengths(List<Integer> chosen) {
        return new Plan(List.copyOf(chosen), squareSizes, singleThreadSize, longLength, bertProducts);
    }

    /**
     * A way to run an implementation: its report name, what the benchmark is given, the fork's options.
     *
     * @param label the report's name
     * @param name the backend's provider name or the GEMM peer's name
     * @param jvmArgs the fork's JVM options
     * @param env environment variables set for the fork
     */
    record Variant(String label, String name, List<String> jvmArgs, Map<String, String> env) {
        Variant {
            jvmArgs = List.copyOf(jvmArgs);
            env = Map.copyOf(env);
        }

        static Variant plain(String name) {
            return new Variant(name, name, JVM, Map.of());
        }

        /** @return the EJML backend in a JVM with the Vector API, so that F32 attention runs its SIMD kernel */
        static Variant ejmlSimd() {
            List<String> jvm = new ArrayList<>(JVM);
            jvm.addAll(VECTOR_MODULE);
            return new Variant(EJML + " + SIMD kernel", EJML, jvm, Map.of());
        }

        /**
         * @param label the width's name in the report
         * @param option the JVM option that narrows the vectors: {@code -Dattn4j.ejml.vectorBits=256} (256-bit species
         *     on an AVX-512 CPU) or {@code -XX:UseAVX=2} (the JVM uses no AVX-512 at all)
         * @return the EJML backend's SIMD kernels on narrower vectors
         */
        static Variant ejmlSimdNarrow(String label, String option) {
            List<String> jvm = new ArrayList<>(JVM);
            jvm.addAll(VECTOR_MODULE);
            jvm.add(option);
            return new Variant(EJML + " + SIMD kernel, " + label, EJML, jvm, Map.of());
        }

        /** @return the EJML backend's {@code Ops.matmul} in a JVM with the Vector API: its SIMD SGEMM */
        static Variant ejmlSgemm() {
            List<String> jvm = new ArrayList<>(JVM);
            jvm.addAll(VECTOR_MODULE);
            return new Variant(EJML + " + SIMD SGEMM", EJML_BACKEND, jvm, Map.of());
        }
    }

    /**
     * What this machine offers ND4J besides its bundled OpenBLAS with CPU auto-detection.
     *
     * @param systemOpenBlas Debian's {@code libopenblas0-pthread} is installed
     * @param avx512 the CPU has AVX-512F, so OpenBLAS's AVX-512 kernels can run
     */
    record NativeOptions(boolean systemOpenBlas, boolean avx512) {

        /** @return ND4J as it comes, then each available combination of the system OpenBLAS and AVX-512 kernels */
        List<Variant> nd4jVariants() {
            List<Variant> variants = new ArrayList<>();
            for (boolean system : new boolean[] {false, true}) {
                for (boolean kernels : new boolean[] {false, true}) {
                    if ((!system || systemOpenBlas) && (!kernels || avx512)) {
                        variants.add(nd4j(system, kernels));
                    }
                }
            }
            return variants;
        }

        /** @return ND4J as it comes and, if any option is available, ND4J with every available option */
        List<Variant> nd4jDefaultAndTuned() {
            List<Variant> all = nd4jVariants();
            return all.size() == 1 ? all : List.of(all.get(0), all.get(all.size() - 1));
        }

        private static Variant nd4j(boolean system, boolean kernels) {
            List<String> jvm = new ArrayList<>(JVM);
            if (system) {
                jvm.addAll(SYSTEM_OPENBLAS);
            }
            return new Variant(ND4J + (system ? " + system OpenBLAS" : "") + (kernels ? " + AVX-512 kernels" : ""),
                    ND4J, jvm, kernels ? AVX512_KERNELS : Map.of());
        }

        /**
         * @param names backend or GEMM peer names
         * @return each name as it comes, with {@code nd4j} replaced by {@link #nd4jDefaultAndTuned()} and the
         *     backend {@code ejml} by itself without and with {@link Variant#ejmlSimd()}
         */
        List<Variant> expand(List<String> names) {
            return names.stream().flatMap(n -> n.equals(ND4J) ? nd4jDefaultAndTuned().stream()
                    : n.equals(EJML) ? ejml().stream()
                    : Stream.of(Variant.plain(n))).toList();
        }

        /**
         * @return the EJML backend without and with its SIMD kernels, and, on an AVX-512 CPU when
         *     {@code -Dbench.widths=true}, the SIMD kernels on 256-bit species and with {@code -XX:UseAVX=2}
         */
        private List<Variant> ejml() {
            List<Variant> v = new ArrayList<>(List.of(Variant.plain(EJML), Variant.ejmlSimd()));
            if (avx512 && Boolean.getBoolean("bench.widths")) {
                v.add(Variant.ejmlSimdNarrow("256-bit species", "-Dattn4j.ejml.vectorBits=256"));
                v.add(Variant.ejmlSimdNarrow("AVX2", "-XX:UseAVX=2"));
            }
            return v;
        }

        /** @return for each backend variant's label, the label of its own library's attention-shaped GEMM */
        Map<String, String> ownGemm() {
            Map<String, String> own = new LinkedHashMap<>(Map.of(EJML, "ejml-mt",
                    Variant.ejmlSimd().label(), Variant.ejmlSgemm().label()));
            nd4jDefaultAndTuned().forEach(v -> own.put(v.label(), v.label()));
            return own;
        }
    }

    /**
     * @param backends the available CPU backends' names
     * @param suites the suites to run
     * @param natives the ND4J variants this machine allows
     * @return the jobs, in run order
     */
    List<Job> jobs(List<String> backends, Set<Suite> suites, NativeOptions natives) {
        List<Variant> attention = natives.expand(backends);
        List<Variant> gemm = new ArrayList<>(natives.expand(List.of("ejml-mt", ND4J)));
        gemm.add(1, Variant.ejmlSgemm());
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
            jobs.add(gemm(Suite.SQUARE_GEMM, Variant.plain("ejml"), GemmWorkload.square(singleThreadSize)));
            List<Variant> square = new ArrayList<>(List.of(Variant.plain("ejml-mt"), Variant.ejmlSgemm()));
            square.addAll(natives.nd4jVariants());
            for (int n : squareSizes) {
                square.forEach(g -> jobs.add(gemm(Suite.SQUARE_GEMM, g, GemmWorkload.square(n))));
            }
        }
        if (suites.contains(Suite.BERT_GEMM)) {
            List<Variant> peers = new ArrayList<>(List.of(Variant.plain("ejml-mt"), Variant.ejmlSgemm()));
            peers.addAll(natives.nd4jVariants());
            for (GemmWorkload w : bertProducts) {
                peers.forEach(g -> jobs.add(gemm(Suite.BERT_GEMM, g, w)));
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
                jobs.add(attention(Suite.LONG_SEQUENCE, new Variant(b.label(), b.name(), jvm, b.env()), w, true));
            }
        }
        return jobs;
    }

    private static Job onnx(Suite suite, AttentionWorkload w) {
        return new Job(suite, Measurement.ONNX_RUNTIME, OnnxAttentionBench.class, shape(w), w, false, JVM, Map.of());
    }

    private static Job attention(Suite suite, Variant backend, AttentionWorkload w, boolean singleShot) {
        Map<String, String> params = new LinkedHashMap<>(shape(w));
        params.put("backend", backend.name());
        return new Job(suite, backend.label(), AttentionBench.class, params, w, singleShot, backend.jvmArgs(),
                backend.env());
    }

    private static Map<String, String> shape(AttentionWorkload w) {
        return Map.of("heads", Integer.toString(w.heads()), "length", Integer.toString(w.queryLength()),
                "headDim", Integer.toString(w.headDim()), "causal", Boolean.toString(w.causal()));
    }

    private static Job gemm(Suite suite, Variant peer, GemmWorkload w) {
        Map<String, String> params = w.attentionShaped()
                ? Map.of("impl", peer.name(), "heads", Integer.toString(w.count()), "length", Integer.toString(w.m()),
                        "headDim", Integer.toString(w.k()))
                : Map.of("impl", peer.name(), "heads", "0", "length", Integer.toString(w.m()),
                        "columns", Integer.toString(w.n()), "inner", Integer.toString(w.k()));
        return new Job(suite, peer.label(), GemmBench.class, params, w, false, peer.jvmArgs(), peer.env());
    }
}
