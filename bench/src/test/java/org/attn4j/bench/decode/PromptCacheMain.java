package org.attn4j.bench.decode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.generate.BatchDecoder;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.PromptCache;
import org.attn4j.models.generate.TokenListener;

/**
 * Time to first token of a chat turn whose history the prompt cache holds, against the same turn read whole: a
 * random-weight Llama in the shape of SmolLM2-135M ({@link PeerModel}), a history of {@code H} tokens (1,000) that an
 * earlier request read as its prompt, and a new turn of {@code T} tokens (24) after it. One {@link BatchDecoder}
 * reads the turn in chunks of 64 tokens, the server's; the time runs from {@link BatchDecoder#join} to the step that
 * chooses the first token. Without the cache the whole prompt is read; with it, a fresh {@link PromptCache} holding the
 * history (read before the clock starts) gives its whole chunks, and only the rest is read. Each side runs once to
 * warm up and then {@code R} times (5), alternating; the report gives the medians, their ratio, and whether the first
 * token's logits were the same bits with and without the cache (they must be).
 *
 * <p>Arguments: the output folder (writes {@code prompt-cache.md}); system properties {@code bench.backend}
 * (default {@code ejml}), {@code bench.model} ({@code smollm2-135m}; also {@code tinyllama-1.1b}),
 * {@code bench.weights} ({@code bf16}; also {@code f32}, {@code q8_0}), {@code bench.history} (1000),
 * {@code bench.turn} (24), {@code bench.repeats} (5), {@code bench.layers} (the shape's; fewer only to try the
 * program out quickly).
 */
public final class PromptCacheMain {
    /** The server's prefill chunk. */
    private static final int CHUNK = 64;

    private PromptCacheMain() {
    }

    /**
     * @param args the output folder
     * @throws IOException if the report cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "results");
        String backend = System.getProperty("bench.backend", "ejml");
        PeerModel named = PeerModel.named(System.getProperty("bench.model", PeerModel.SMOLLM2_135M.name()));
        int layers = Integer.getInteger("bench.layers", named.layers());
        PeerModel shape = new PeerModel(named.name(), named.source(), named.vocab(), named.hidden(),
                named.intermediate(), layers, named.heads(), named.kvHeads(), named.maxPositions(), named.ropeTheta(),
                named.eps(), named.tied(), named.seed());
        WeightType weights = WeightType.valueOf(System.getProperty("bench.weights", "bf16").toUpperCase(Locale.ROOT));
        int history = Integer.getInteger("bench.history", 1000);
        int turn = Integer.getInteger("bench.turn", 24);
        int repeats = Integer.getInteger("bench.repeats", 5);
        if (history < CHUNK || turn < 1 || repeats < 1 || layers < 1) {
            throw new IllegalArgumentException("prompt cache bench: bench.history " + history + " must be at least "
                    + CHUNK + ", bench.turn " + turn + ", bench.repeats " + repeats + " and bench.layers " + layers
                    + " at least 1");
        }
        SplittableRandom random = new SplittableRandom(history * 31L + turn);
        int[] earlier = random.ints(history, PeerModel.SPECIAL_TOKENS, shape.vocab()).toArray();
        int[] prompt = Arrays.copyOf(earlier, history + turn);
        for (int i = history; i < prompt.length; i++) {
            prompt[i] = random.nextInt(PeerModel.SPECIAL_TOKENS, shape.vocab());
        }
        String loadBefore = load();
        double[] without = new double[repeats];
        double[] with = new double[repeats];
        int reused = 0;
        boolean same = true;
        try (CausalLM model = CausalLM.of(BatchedDecodeMain.config(shape), BatchedDecodeMain.state(shape),
                Backends.load(backend), DType.F32, weights == WeightType.F32 ? null : weights)) {
            long perPosition;
            try (var probe = model.newCache(1, 1)) {
                perPosition = probe.bytes();
            }
            long cacheBytes = perPosition * prompt.length;
            First cold = first(model, prompt, null);
            First warm = cached(model, earlier, prompt, cacheBytes);
            for (int r = 0; r < repeats; r++) {
                First a = first(model, prompt, null);
                First b = cached(model, earlier, prompt, cacheBytes);
                without[r] = a.seconds;
                with[r] = b.seconds;
                reused = b.reused;
                same &= Arrays.equals(a.logits, b.logits) && Arrays.equals(cold.logits, a.logits);
            }
            same &= Arrays.equals(cold.logits, warm.logits);
        }
        double slow = median(without);
        double fast = median(with);
        List<String> lines = new ArrayList<>();
        lines.add("# Prompt cache: time to first token of a chat turn after a cached history");
        lines.add("");
        lines.add(String.format(Locale.ROOT, "%s shape (%d layers, hidden %d, %d heads over %d kv heads, vocabulary"
                + " %d), random weights in %s, F32 activations and cache, on %s, one stream; prefill chunk %d; the"
                + " median of %d runs each.", shape.source(), shape.layers(), shape.hidden(), shape.heads(),
                shape.kvHeads(), shape.vocab(), weights, backend, CHUNK, repeats));
        lines.add("");
        lines.add("| history | new turn | reused | first token without cache (ms) | with cache (ms) | × sooner"
                + " | same logits |");
        lines.add("|---|---|---|---|---|---|---|");
        lines.add(String.format(Locale.ROOT, "| %d | %d | %d | %.1f | %.1f | %.2f | %s |", history, turn, reused,
                slow * 1e3, fast * 1e3, slow / fast, same ? "yes" : "NO"));
        lines.add("");
        lines.add("Load average before the run: " + loadBefore + "; after: " + load() + ".");
        Files.createDirectories(out);
        Files.write(out.resolve("prompt-cache.md"), lines);
        lines.forEach(System.out::println);
    }

    /** The first token of one run: its logits, the seconds from joining to it, the prompt tokens reused. */
    private record First(float[] logits, double seconds, int reused) {
    }

    /** @return the first token of {@code prompt} read from a fresh cache holding {@code earlier}'s whole chunks */
    private static First cached(CausalLM model, int[] earlier, int[] prompt, long cacheBytes) {
        try (PromptCache cache = new PromptCache(cacheBytes)) {
            first(model, earlier, cache);
            return first(model, prompt, cache);
        }
    }

    /** Runs {@code prompt} until its first token, timed from the join. */
    private static First first(CausalLM model, int[] prompt, PromptCache cache) {
        float[][] logits = new float[1][];
        try (BatchDecoder batch = new BatchDecoder(model, CHUNK, cache)) {
            long start = System.nanoTime();
            BatchDecoder.Sequence s = batch.join(prompt, GenerationOptions.defaults().withMaxNewTokens(1),
                    new TokenListener() {
                        @Override
                        public boolean onToken(int token) {
                            return true;
                        }

                        @Override
                        public boolean onToken(int token, float[] l) {
                            logits[0] = l;
                            return true;
                        }
                    });
            while (batch.active() > 0) {
                batch.step();
            }
            return new First(logits[0], (System.nanoTime() - start) / 1e9, s.cachedTokens());
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }
}
