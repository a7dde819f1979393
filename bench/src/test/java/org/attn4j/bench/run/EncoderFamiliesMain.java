package org.attn4j.bench.run;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.Backends;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.checkpoint.Pooling;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;

/**
 * Throughput of {@code embed} per encoder family, attn4j on the EJML backend against ONNX Runtime on the same graph,
 * over the folders and graphs {@code bench/src/test/python/export_encoder_families.py} writes (random weights at
 * each family's real size; {@code --small} there for a try in seconds):
 * <pre>
 *   EncoderFamiliesMain [DIR] [--batch 32] [--length 128] [--threads 2] [--rounds 10] [--warmup 3]
 *                       [--families bert,xlmr,…] [--tolerance 2e-3]
 * </pre>
 * For each family found in {@code DIR} (default {@code bench/target/families}): one batch of {@code B} texts of
 * {@code L − 2} words {@code tN} (seeded, {@code N} in [5, 1000), which every folder's WordPiece vocabulary maps to
 * the id {@code N}), so each text is exactly {@code L} tokens with {@code [CLS]} and {@code [SEP]}. attn4j runs
 * {@code SentenceEmbedder.embed} on the texts (tokenising, the encoder, the folder's pooling; normalisation off,
 * batches of {@code B}, {@code maxLength} {@code L}) on the EJML backend with {@code T} threads; ONNX Runtime runs
 * the family's graph ({@code DIR/onnx/FAMILY/model.onnx}) on the token ids attn4j read, with {@code T} intra-op
 * threads and its default optimizations ({@link OnnxSession}), and the same pooling is applied to its
 * {@code last_hidden_state} here.
 *
 * <p>The two must agree before anything is timed: the largest absolute difference between attn4j's pooled vectors
 * and ONNX Runtime's, {@code max_ij |a_ij − o_ij|}, must not exceed {@code tolerance · max(1, max_ij |o_ij|)}
 * (default {@code 2e-3}: two float32 implementations of up to 28 layers, each summing in its own order), else the
 * run stops with the family, the row, the feature and both values. Then {@code W} warm-up rounds and {@code R}
 * measured rounds, each running attn4j and then ONNX Runtime once on the whole batch, so both share the machine's
 * load. Each timed call starts after half a second of idling: ONNX Runtime's intra-op threads spin for a while after
 * a run, and a call started at once shares the cores with them (attn4j's calls timed that way ran up to 1.8× slower
 * on two cores, ONNX Runtime's did not change). It prints one markdown row per family: the medians in ms per batch
 * and ONNX Runtime's median ÷ attn4j's ({@code × ONNX Runtime}, above 1 when attn4j is faster). attn4j's time is the whole {@code embed} call
 * (tokenising and pooling included), ONNX Runtime's the graph alone. A measurement, never a test: run it on an otherwise idle
 * machine, with the class path built as for {@link MiniLmMain}.
 */
public final class EncoderFamiliesMain {

    /** The families in the order of the table, each with the real model whose shape its folder has. */
    static final Map<String, String> FAMILIES = families();

    private static final int FIRST_WORD = 5;
    private static final int WORDS = 1000;
    private static final long SEED = 2026_12_02;
    /** The idle time before each timed call, so that the other engine's threads have stopped spinning. */
    private static final long PAUSE_NANOS = 500_000_000L;

    private EncoderFamiliesMain() {
    }

    private static Map<String, String> families() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("bert", "BERT (bge-base-en-v1.5)");
        m.put("xlmr", "XLM-R (multilingual-e5-base)");
        m.put("mpnet", "MPNet (all-mpnet-base-v2)");
        m.put("nomic", "NomicBERT (nomic-embed-text-v1.5)");
        m.put("modernbert", "ModernBERT (gte-modernbert-base)");
        m.put("gte", "GTE (gte-base-en-v1.5)");
        m.put("qwen3", "Qwen3-Embedding-0.6B");
        return m;
    }

    /** What one run measures. */
    record Settings(Path dir, int batch, int length, int threads, int rounds, int warmup, List<String> families,
            double tolerance) {
    }

    /**
     * @param args as the class comment says
     * @throws IOException if a folder cannot be read
     * @throws OrtException if ONNX Runtime fails
     */
    public static void main(String[] args) throws IOException, OrtException {
        Settings s = parse(args);
        System.out.printf(Locale.ROOT, "batch %d × %d tokens, %d threads, median of %d rounds after %d warm-up, %s%n%n",
                s.batch(), s.length(), s.threads(), s.rounds(), s.warmup(), s.dir());
        System.out.println("| family (shape of) | ONNX Runtime ms | attn4j ejml ms | × ONNX Runtime | max abs error |");
        System.out.println("|---|---|---|---|---|");
        for (String family : s.families()) {
            System.out.println(row(s, family));
        }
    }

    static Settings parse(String[] args) {
        Map<String, String> options = new HashMap<>(Map.of("--batch", "32", "--length", "128", "--threads", "2",
                "--rounds", "10", "--warmup", "3", "--families", String.join(",", FAMILIES.keySet()),
                "--tolerance", "2e-3"));
        Path dir = Path.of("bench", "target", "families");
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                dir = Path.of(args[i]);
            } else if (options.containsKey(args[i]) && i + 1 < args.length) {
                options.put(args[i], args[++i]);
            } else {
                throw new IllegalArgumentException("EncoderFamiliesMain: unknown option or missing value '" + args[i]
                        + "'; the options are " + options.keySet());
            }
        }
        List<String> families = List.of(options.get("--families").split(","));
        for (String f : families) {
            if (!FAMILIES.containsKey(f)) {
                throw new IllegalArgumentException("EncoderFamiliesMain: unknown family '" + f + "'; the families are "
                        + FAMILIES.keySet());
            }
        }
        int length = Integer.parseInt(options.get("--length"));
        if (length < 3) {
            throw new IllegalArgumentException("EncoderFamiliesMain: --length " + length + " leaves no word between "
                    + "[CLS] and [SEP]");
        }
        return new Settings(dir, Integer.parseInt(options.get("--batch")), length,
                Integer.parseInt(options.get("--threads")), Integer.parseInt(options.get("--rounds")),
                Integer.parseInt(options.get("--warmup")), families, Double.parseDouble(options.get("--tolerance")));
    }

    /** @return {@code batch} texts of {@code length − 2} seeded words {@code tN} */
    static List<String> texts(int batch, int length) {
        SplittableRandom random = new SplittableRandom(SEED);
        List<String> texts = new ArrayList<>(batch);
        for (int b = 0; b < batch; b++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < length - 2; w++) {
                text.append(w == 0 ? "" : " ").append('t').append(random.nextInt(FIRST_WORD, WORDS));
            }
            texts.add(text.toString());
        }
        return texts;
    }

    private static String row(Settings s, String family) throws IOException, OrtException {
        Path folder = s.dir().resolve(family);
        Path graph = s.dir().resolve("onnx").resolve(family).resolve("model.onnx");
        if (!Files.isDirectory(folder) || !Files.isRegularFile(graph)) {
            throw new IOException("EncoderFamiliesMain: " + folder + " or " + graph + " is missing; write them with "
                    + "bench/src/test/python/export_encoder_families.py");
        }
        List<String> texts = texts(s.batch(), s.length());
        EmbeddingOptions options = EmbeddingOptions.defaults().withNormalize(false).withBatchSize(s.batch())
                .withMaxLength(s.length());
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (SentenceEmbedder embedder = SentenceEmbedder.from(Checkpoint.open(folder, Checkpoint.Kind.ENCODER),
                Backends.load("ejml", BackendOptions.defaults().withThreads(s.threads())), options);
                OrtSession session = OnnxSession.open(env, graph, s.threads())) {
            List<SentenceEmbedding> ours = embedder.embed(texts);
            long[][] ids = new long[s.batch()][];
            for (int b = 0; b < ids.length; b++) {
                int[] read = ours.get(b).ids();
                if (read.length != s.length()) {
                    throw new IllegalStateException(family + ": text " + b + " is " + read.length + " tokens, not "
                            + s.length() + "; is the folder's tokenizer the generator's?");
                }
                ids[b] = Arrays.stream(read).asLongStream().toArray();
            }
            long[][] mask = new long[s.batch()][s.length()];
            for (long[] m : mask) {
                Arrays.fill(m, 1);
            }
            Map<String, OnnxTensor> inputs = new HashMap<>();
            try {
                for (String name : session.getInputNames()) {
                    switch (name) {
                        case "input_ids" -> inputs.put(name, OnnxTensor.createTensor(env, ids));
                        case "attention_mask" -> inputs.put(name, OnnxTensor.createTensor(env, mask));
                        default -> throw new IllegalStateException(family + ": the graph's input '" + name
                                + "' is neither input_ids nor attention_mask");
                    }
                }
                double[] error = compare(family, ours, pooled(session, inputs, embedder.pooling(), s), s.tolerance());
                for (int r = 0; r < s.warmup(); r++) {
                    embedder.embed(texts);
                    pooled(session, inputs, embedder.pooling(), s);
                }
                double[] attn4j = new double[s.rounds()];
                double[] ort = new double[s.rounds()];
                for (int r = 0; r < s.rounds(); r++) {
                    LockSupport.parkNanos(PAUSE_NANOS);
                    long t0 = System.nanoTime();
                    embedder.embed(texts);
                    long t1 = System.nanoTime();
                    LockSupport.parkNanos(PAUSE_NANOS);
                    long o0 = System.nanoTime();
                    try (OrtSession.Result result = session.run(inputs)) {
                        result.get(0);
                    }
                    long o1 = System.nanoTime();
                    attn4j[r] = (t1 - t0) / 1e6;
                    ort[r] = (o1 - o0) / 1e6;
                }
                double a = median(attn4j);
                double o = median(ort);
                return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.2f | %.1e (max |v| %.1f) |",
                        FAMILIES.get(family), o, a, o / a, error[0], error[1]);
            } finally {
                inputs.values().forEach(OnnxTensor::close);
            }
        }
    }

    /** @return ONNX Runtime's {@code last_hidden_state [B, L, d]} pooled per row as attn4j pools */
    private static float[][] pooled(OrtSession session, Map<String, OnnxTensor> inputs, Pooling pooling, Settings s)
            throws OrtException {
        try (OrtSession.Result result = session.run(inputs)) {
            float[][][] hidden = (float[][][]) result.get(0).getValue();
            float[][] out = new float[hidden.length][];
            for (int b = 0; b < hidden.length; b++) {
                float[][] h = hidden[b];
                int d = h[0].length;
                out[b] = switch (pooling) {
                    case CLS -> h[0].clone();
                    case LAST_TOKEN -> h[h.length - 1].clone();
                    case MEAN -> {
                        double[] sum = new double[d];
                        for (float[] token : h) {
                            for (int j = 0; j < d; j++) {
                                sum[j] += token[j];
                            }
                        }
                        float[] mean = new float[d];
                        for (int j = 0; j < d; j++) {
                            mean[j] = (float) (sum[j] / h.length);
                        }
                        yield mean;
                    }
                    default -> throw new IllegalStateException("EncoderFamiliesMain: pooling " + pooling
                            + " is not one the generator writes (CLS, MEAN, LAST_TOKEN)");
                };
            }
            return out;
        }
    }

    /**
     * @return {@code {max |a − o|, max |o|}}
     * @throws IllegalStateException naming the family, row, feature and both values past the bound
     */
    static double[] compare(String family, List<SentenceEmbedding> ours, float[][] theirs, double tolerance) {
        double worst = 0;
        double largest = 0;
        int wb = 0;
        int wj = 0;
        for (int b = 0; b < theirs.length; b++) {
            float[] a = ours.get(b).vector();
            if (a.length != theirs[b].length) {
                throw new IllegalStateException(family + ": attn4j's vectors have " + a.length + " features, "
                        + "ONNX Runtime's " + theirs[b].length);
            }
            for (int j = 0; j < a.length; j++) {
                largest = Math.max(largest, Math.abs(theirs[b][j]));
                double e = Math.abs((double) a[j] - theirs[b][j]);
                if (!(e <= worst)) {
                    worst = e;
                    wb = b;
                    wj = j;
                }
            }
        }
        double bound = tolerance * Math.max(1, largest);
        if (!(worst <= bound)) {
            float o = theirs[wb][wj];
            throw new IllegalStateException(String.format(Locale.ROOT, "%s: attn4j and ONNX Runtime differ: row %d "
                    + "feature %d, ONNX Runtime %s, attn4j %s, abs error %.3e, rel error %.3e, bound %.3e "
                    + "(tolerance %.1e × max(1, max |v| = %.3f))", family, wb, wj, o, ours.get(wb).vector()[wj],
                    worst, worst / Math.max(Math.abs(o), Float.MIN_NORMAL), bound, tolerance, largest));
        }
        return new double[] {worst, largest};
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
