package org.attn4j.models.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.attn4j.api.DType;
import org.attn4j.models.DecoderGoldens;
import org.attn4j.models.DecoderGoldens.Decoder;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.decoder.KvCache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The prompt cache on every family of the decoder goldens (random weights) and every backend of the test class path:
 * prompts that share prefixes of different lengths with earlier ones, read in chunks of several sizes with token
 * limits that give their caches other capacities, give the same logits and greedy tokens, bit for bit, with the cache
 * and without it, one at a time and joining one batch at different steps; and the cache copies exactly the whole
 * chunks of the longest shared prefix, short of the last token (but for Phi-3's LongRoPE, which lends less).
 */
class PromptCacheTest {
    private static final long PLENTY = 1L << 30;

    static Stream<Arguments> decoders() {
        return DecoderGoldens.across();
    }

    private static CausalLM load(DecoderGoldens.Target t, Decoder d) {
        return CausalLM.of(DecoderConfig.of(d.config(), d.name()), d.parameters(), t.backend(), t.dtype(), null);
    }

    /** What one generation gave: its tokens, the logits each was chosen from, how many prompt tokens it reused. */
    private record Run(int[] tokens, List<float[]> logits, int cached) {
    }

    /** Keeps the logits of each token; ends the generation after {@code most} tokens. */
    private static final class Recorder implements TokenListener {
        private final List<float[]> logits = new ArrayList<>();
        private final int most;

        Recorder(int most) {
            this.most = most;
        }

        @Override
        public boolean onToken(int token) {
            throw new AssertionError("the decoder hands logits with every token");
        }

        @Override
        public boolean onToken(int token, float[] l) {
            logits.add(l);
            return logits.size() < most;
        }
    }

    /**
     * Prompts around a seeded base of {@code length} ids: the base; prefixes of it of several lengths with tails of
     * their own; the base again; the base and more; a tail-less prefix one chunk long.
     */
    private static int[][] prompts(int vocab, int length, int chunk, long seed) {
        Random random = new Random(seed);
        int[] base = random.ints(length, 0, vocab).toArray();
        List<int[]> out = new ArrayList<>();
        out.add(base);
        for (int prefix : new int[] {1, chunk - 1, chunk, chunk + 1, 2 * chunk + 1, length - 2}) {
            if (prefix < 1 || prefix > length) {
                continue;
            }
            int[] p = Arrays.copyOf(base, prefix + 1 + random.nextInt(2 * chunk));
            for (int i = prefix; i < p.length; i++) {
                p[i] = random.nextInt(vocab);
            }
            if (p[prefix] == base[Math.min(prefix, length - 1)]) {
                p[prefix] = (p[prefix] + 1) % vocab;
            }
            out.add(p);
        }
        out.add(base.clone());
        int[] longer = Arrays.copyOf(base, length + 2 * chunk + 1);
        for (int i = length; i < longer.length; i++) {
            longer[i] = random.nextInt(vocab);
        }
        out.add(longer);
        out.add(Arrays.copyOf(base, Math.min(chunk, length)));
        return out.toArray(new int[0][]);
    }

    private static GenerationOptions options(int i) {
        return GenerationOptions.defaults().withMaxNewTokens(2 + 2 * (i % 3));
    }

    /** Each prompt in a batch of its own, one after the other, sharing {@code cache} (or none). */
    private static List<Run> oneByOne(CausalLM model, int chunk, int[][] prompts, PromptCache cache) {
        return oneByOne(model, chunk, prompts, cache, PromptCacheTest::options, Integer.MAX_VALUE);
    }

    /** As above, prompt {@code i} with {@code options.apply(i)}, each ended after {@code most} tokens. */
    private static List<Run> oneByOne(CausalLM model, int chunk, int[][] prompts, PromptCache cache,
                                      IntFunction<GenerationOptions> options, int most) {
        List<Run> out = new ArrayList<>();
        for (int i = 0; i < prompts.length; i++) {
            try (BatchDecoder batch = new BatchDecoder(model, chunk, cache)) {
                Recorder r = new Recorder(most);
                BatchDecoder.Sequence s = batch.join(prompts[i], options.apply(i), r);
                while (batch.active() > 0) {
                    batch.step();
                }
                out.add(new Run(s.generation().tokens(), r.logits, s.cachedTokens()));
            }
        }
        return out;
    }

    /** Every prompt in one batch, the {@code i}-th joining before step {@code 2i}. */
    private static List<Run> together(CausalLM model, int chunk, int[][] prompts, PromptCache cache) {
        List<BatchDecoder.Sequence> joined = new ArrayList<>();
        List<Recorder> recorders = new ArrayList<>();
        try (BatchDecoder batch = new BatchDecoder(model, chunk, cache)) {
            int steps = 0;
            while (joined.size() < prompts.length || batch.active() > 0) {
                if (joined.size() < prompts.length && steps % 2 == 0) {
                    Recorder r = new Recorder(Integer.MAX_VALUE);
                    recorders.add(r);
                    joined.add(batch.join(prompts[joined.size()], options(joined.size()), r));
                }
                batch.step();
                steps++;
            }
        }
        List<Run> out = new ArrayList<>();
        for (int i = 0; i < joined.size(); i++) {
            out.add(new Run(joined.get(i).generation().tokens(), recorders.get(i).logits,
                    joined.get(i).cachedTokens()));
        }
        return out;
    }

    private static void assertSameBits(String what, List<Run> expected, List<Run> actual) {
        assertEquals(expected.size(), actual.size(), what + ": generations");
        for (int g = 0; g < expected.size(); g++) {
            Run e = expected.get(g);
            Run a = actual.get(g);
            assertArrayEquals(e.tokens, a.tokens, what + ": generation " + g + "'s greedy tokens (" + a.cached
                    + " prompt tokens reused)");
            for (int s = 0; s < e.logits.size(); s++) {
                float[] x = e.logits.get(s);
                float[] y = a.logits.get(s);
                for (int i = 0; i < x.length; i++) {
                    if (Float.floatToIntBits(x[i]) != Float.floatToIntBits(y[i])) {
                        throw new AssertionError(what + ": generation " + g + " (" + a.cached + " prompt tokens "
                                + "reused), token " + s + ", logit " + i + ": expected " + x[i] + ", actual " + y[i]
                                + ", abs error " + Math.abs(x[i] - y[i]) + ", rel error "
                                + Math.abs(x[i] - y[i]) / Math.abs(x[i]));
                    }
                }
            }
        }
    }

    /** The longest whole-chunk prefix {@code prompts[i]} shares with an earlier prompt, short of its last token. */
    private static int expectedReuse(int[][] prompts, int i, int chunk) {
        int best = 0;
        for (int j = 0; j < i; j++) {
            int kept = prompts[j].length / chunk * chunk;
            int n = Math.min(kept, prompts[i].length);
            int shared = Arrays.mismatch(prompts[j], 0, n, prompts[i], 0, n);
            shared = shared < 0 ? n : shared;
            best = Math.max(best, Math.min(shared, prompts[i].length - 1) / chunk * chunk);
        }
        return best;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("decoders")
    void reuseGivesTheSameLogitsAndTokensAsReadingThePromptAgain(DecoderGoldens.Target t, Decoder d) {
        try (CausalLM model = load(t, d)) {
            int vocab = model.config().vocabSize();
            int positions = model.config().type() == DecoderConfig.Type.GPT2 ? model.config().maxPositions() : 64;
            int tested = 0;
            for (int chunk : t.dtype() == DType.F32 ? new int[] {1, 3, 8} : new int[] {3}) {
                int length = Math.min(24, positions - 2 * chunk - 7);
                if (length < 2 * chunk + 2) {
                    continue;
                }
                tested++;
                int[][] prompts = prompts(vocab, length, chunk, 41 + chunk);
                String what = d.name() + " on " + t + ", chunk " + chunk;
                List<Run> fresh = oneByOne(model, chunk, prompts, null);
                try (PromptCache cache = new PromptCache(PLENTY)) {
                    List<Run> reused = oneByOne(model, chunk, prompts, cache);
                    assertSameBits(what + ", one by one", fresh, reused);
                    for (int i = 0; i < prompts.length && model.config().recomputeBeyond() == 0; i++) {
                        assertEquals(expectedReuse(prompts, i, chunk), reused.get(i).cached, what + ": prompt " + i
                                + " of " + prompts[i].length + " tokens, reused positions");
                    }
                    assertTrue(reused.stream().mapToInt(Run::cached).sum() > 0, what + ": nothing reused");
                }
                try (PromptCache cache = new PromptCache(PLENTY)) {
                    assertSameBits(what + ", in one batch", fresh, together(model, chunk, prompts, cache));
                }
            }
            assertTrue(tested > 0, d.name() + ": no chunk size fits " + positions + " positions");
        }
    }

    /**
     * A prompt past the length at which a backend may switch to a kernel that splits the keys (decoding a few rows
     * against a long cache), read in chunks of a few rows, reused by prompts whose token limits give their caches
     * capacities of about 300 and 4,300 positions (each stopped after 3 tokens): the split must follow the keys that
     * exist, not the cache's capacity.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("decoders")
    void reuseOfALongPromptIsExactWhateverTheCacheCapacity(DecoderGoldens.Target t, Decoder d) {
        if (t.dtype() != DType.F32 || !d.name().startsWith("llama")) {
            return;
        }
        try (CausalLM model = load(t, d)) {
            int length = 300;
            Random random = new Random(7);
            int[] base = random.ints(length, 0, model.config().vocabSize()).toArray();
            int[][] prompts = {base, Arrays.copyOf(base, length - 5), base.clone()};
            IntFunction<GenerationOptions> limits = i -> GenerationOptions.defaults()
                    .withMaxNewTokens(i == 0 ? 3 : 4000);
            List<Run> fresh = oneByOne(model, 8, prompts, null, limits, 3);
            try (PromptCache cache = new PromptCache(PLENTY)) {
                List<Run> reused = oneByOne(model, 8, prompts, cache, limits, 3);
                assertSameBits(d.name() + " on " + t + ", " + length + " tokens", fresh, reused);
                assertEquals((length - 6) / 8 * 8, reused.get(1).cached);
                assertEquals((length - 1) / 8 * 8, reused.get(2).cached);
            }
        }
    }

    @Test
    void theLeastRecentlyUsedPromptsGoWhenTheBytesRunOut() {
        Decoder d = DecoderGoldens.all().get(0);
        DecoderGoldens.Target t = (DecoderGoldens.Target) DecoderGoldens.across().findFirst().orElseThrow().get()[0];
        try (CausalLM model = load(t, d); KvCache probe = model.newCache(1, 4)) {
            long perPosition = probe.bytes() / 4;
            int vocab = model.config().vocabSize();
            Random random = new Random(3);
            int[] a = random.ints(9, 0, vocab).toArray();
            int[] b = random.ints(9, 0, vocab).toArray();
            int[] c = random.ints(9, 0, vocab).toArray();
            try (PromptCache cache = new PromptCache(16 * perPosition)) {
                oneByOne(model, 4, new int[][] {a, b}, cache);
                assertEquals(new PromptCache.Stats(16 * perPosition, 2, 0, 2, 0, 0), cache.stats());
                assertEquals(8, oneByOne(model, 4, new int[][] {a}, cache).get(0).cached);
                oneByOne(model, 4, new int[][] {c}, cache);
                PromptCache.Stats s = cache.stats();
                assertEquals(2, s.entries());
                assertEquals(1, s.evictions());
                assertEquals(16 * perPosition, s.bytes());
                assertEquals(0, oneByOne(model, 4, new int[][] {b}, cache).get(0).cached, "b was used least lately");
                assertEquals(8, oneByOne(model, 4, new int[][] {c.clone()}, cache).get(0).cached);
            }
            try (PromptCache small = new PromptCache(7 * perPosition)) {
                oneByOne(model, 4, new int[][] {a, a}, small);
                assertEquals(new PromptCache.Stats(0, 0, 0, 2, 0, 0), small.stats(),
                        "8 positions exceed 7 positions' bytes: nothing is kept");
            }
        }
    }

    @Test
    void aPromptThatExtendsAKeptOneReplacesIt() {
        Decoder d = DecoderGoldens.all().get(0);
        DecoderGoldens.Target t = (DecoderGoldens.Target) DecoderGoldens.across().findFirst().orElseThrow().get()[0];
        try (CausalLM model = load(t, d); KvCache probe = model.newCache(1, 1)) {
            int[] turn1 = new Random(5).ints(10, 0, model.config().vocabSize()).toArray();
            int[] turn2 = Arrays.copyOf(turn1, 21);
            Arrays.fill(turn2, 10, 21, 1);
            try (PromptCache cache = new PromptCache(PLENTY)) {
                List<Run> runs = oneByOne(model, 4, new int[][] {turn1, turn2}, cache);
                assertEquals(8, runs.get(1).cached);
                assertEquals(new PromptCache.Stats(20 * probe.bytes(), 1, 1, 1, 8, 0), cache.stats());
            }
        }
    }

    @Test
    void badArgumentsAreRefusedByName() {
        Decoder d = DecoderGoldens.all().get(0);
        DecoderGoldens.Target t = (DecoderGoldens.Target) DecoderGoldens.across().findFirst().orElseThrow().get()[0];
        try (CausalLM model = load(t, d); KvCache cache = model.newCache(1, 8); KvCache other = model.newCache(1, 8);
             KvCache two = model.newCache(2, 8)) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> new PromptCache(0)).getMessage()
                    .contains("maxBytes is 0"));
            PromptCache prompts = new PromptCache(PLENTY);
            assertTrue(assertThrows(IllegalArgumentException.class, () -> prompts.restore(model, 0, new int[] {1},
                    cache)).getMessage().contains("chunk is 0"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> prompts.store(model, 2, new int[0],
                    cache)).getMessage().contains("prompt is empty"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> cache.copyTo(two, 0)).getMessage()
                    .contains("only the capacity"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> cache.copyTo(cache, 0)).getMessage()
                    .contains("is this one"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> cache.copyTo(other, 3))
                    .getMessage().contains("count is 3"));
            prompts.close();
            assertTrue(assertThrows(IllegalStateException.class, () -> prompts.restore(model, 2, new int[] {1},
                    cache)).getMessage().contains("closed"));
        }
    }
}
