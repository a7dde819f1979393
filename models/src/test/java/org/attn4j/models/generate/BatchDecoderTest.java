package org.attn4j.models.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.WeightType;
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
 * Batch invariance of decoding, on every family of the decoder goldens (random weights) and every backend of the
 * test class path: a sequence's logits from {@link CausalLM#step} and its tokens from {@link BatchDecoder} are the
 * same bits alone and among other sequences of other lengths that join and leave around it; with weights held in
 * fewer bits too (BF16, F16), whose products take other kernels. The step-level cases run on the backends that
 * declare {@link Capabilities.Feature#BATCH_INVARIANT}; the tokens of {@link BatchDecoder} are the same on every
 * backend, since on the others it steps each sequence alone.
 */
class BatchDecoderTest {
    private static final int CHUNK = 3;

    static Stream<Arguments> decoders() {
        return DecoderGoldens.across();
    }

    static Stream<Arguments> narrow() {
        return DecoderGoldens.across().filter(a -> ((DecoderGoldens.Target) a.get()[0]).dtype() == DType.F32)
                .filter(a -> ((Decoder) a.get()[1]).name().startsWith("llama"))
                .flatMap(a -> Stream.of(WeightType.BF16, WeightType.F16)
                        .map(w -> Arguments.of(a.get()[0], a.get()[1], w)));
    }

    private static CausalLM load(DecoderGoldens.Target t, Decoder d, WeightType storage) {
        return CausalLM.of(DecoderConfig.of(d.config(), d.name()), d.parameters(), t.backend(), t.dtype(), storage);
    }

    /** Seeded prompts of 1 to 12 ids, the first one the case's own. */
    private static int[][] prompts(Decoder d, int count, long seed) {
        Random random = new Random(seed);
        int vocab = d.logits().shape().dim(2);
        int[][] out = new int[count][];
        out[0] = d.prompt();
        for (int i = 1; i < count; i++) {
            out[i] = random.ints(1 + random.nextInt(12), 0, vocab).toArray();
        }
        return out;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("decoders")
    void stepLogitsOfASequenceAreTheBitsItGetsAlone(DecoderGoldens.Target t, Decoder d) {
        try (CausalLM model = load(t, d, null)) {
            assertStepInvariant(t, d, model);
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("narrow")
    void stepLogitsAreInvariantWithNarrowWeights(DecoderGoldens.Target t, Decoder d, WeightType storage) {
        try (CausalLM model = load(t, d, storage)) {
            assertStepInvariant(t, d, model);
        }
    }

    /**
     * Sequence 0 runs alone, chunk by chunk, then its next 6 tokens one at a time; then again with up to six others
     * of other lengths sharing its steps, joining at different steps and leaving after a few; its logits of every
     * step are compared bit for bit.
     */
    private static void assertStepInvariant(DecoderGoldens.Target t, Decoder d, CausalLM model) {
        assumeTrue(t.backend().capabilities().has(Capabilities.Feature.BATCH_INVARIANT), t.backend().name()
                + " does not declare batch invariance: its rows of a step may differ from those it computes alone");
        int[][] prompts = prompts(d, 7, 17);
        int[] feed = {3, 1, 4, 1, 5, 9};
        List<double[]> alone = run(model, prompts, feed, new int[] {0}, new int[] {0});
        List<double[]> shared = run(model, prompts, feed, new int[] {0, 0, 1, 1, 2, 3, 5},
                new int[] {0, 4, 3, 9, 2, 6, 1});
        assertEquals(alone.size(), shared.size());
        for (int s = 0; s < alone.size(); s++) {
            double[] a = alone.get(s);
            double[] b = shared.get(s);
            for (int i = 0; i < a.length; i++) {
                if (Double.doubleToLongBits(a[i]) != Double.doubleToLongBits(b[i])) {
                    throw new AssertionError(d.name() + " on " + t + ", step " + s + ": logit " + i + " alone "
                            + a[i] + ", in a batch " + b[i] + ", abs error " + Math.abs(a[i] - b[i]) + ", rel error "
                            + Math.abs(a[i] - b[i]) / Math.abs(a[i]));
                }
            }
        }
    }

    /**
     * Steps sequence 0's prompt in chunks of {@link #CHUNK}, then {@code feed}, one token a step; sequence {@code r}
     * joins at step {@code joins[r]} and stays for {@code stays[r]} steps (sequence 0 throughout).
     *
     * @return sequence 0's logits of every step
     */
    private static List<double[]> run(CausalLM model, int[][] prompts, int[] feed, int[] joins, int[] stays) {
        int[] prompt = prompts[0];
        int steps = (prompt.length + CHUNK - 1) / CHUNK + feed.length;
        List<double[]> out = new ArrayList<>();
        List<KvCache> caches = new ArrayList<>();
        int n = joins.length;
        int[] fed = new int[n];
        try {
            for (int r = 0; r < n; r++) {
                caches.add(model.newCache(1, prompts[r].length + steps * CHUNK + feed.length));
            }
            for (int s = 0; s < steps; s++) {
                List<int[]> ids = new ArrayList<>();
                List<KvCache> present = new ArrayList<>();
                for (int r = 0; r < n; r++) {
                    boolean in = r == 0 || (s >= joins[r] && s < joins[r] + stays[r]);
                    if (!in) {
                        continue;
                    }
                    int[] source = r == 0 ? concat(prompt, feed) : concat(prompts[r], feed);
                    int take = fed[r] < prompts[r].length ? Math.min(CHUNK, prompts[r].length - fed[r]) : 1;
                    ids.add(Arrays.copyOfRange(source, fed[r], fed[r] + take));
                    present.add(caches.get(r));
                    fed[r] += take;
                }
                try (Scope scope = model.backend().newScope()) {
                    double[] logits = model.step(scope, ids.toArray(new int[0][]), present).toDoubleArray();
                    int v = logits.length / ids.size();
                    out.add(Arrays.copyOfRange(logits, 0, v));
                }
            }
        } finally {
            caches.forEach(KvCache::close);
        }
        return out;
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("decoders")
    void greedyTokensAreTheSameAloneAmongOthersAndFromGenerator(DecoderGoldens.Target t, Decoder d) {
        int[][] prompts = prompts(d, 5, 29);
        GenerationOptions options = GenerationOptions.defaults().withMaxNewTokens(8);
        try (CausalLM model = load(t, d, null)) {
            int[][] alone = new int[prompts.length][];
            for (int i = 0; i < prompts.length; i++) {
                try (BatchDecoder batch = new BatchDecoder(model, CHUNK)) {
                    BatchDecoder.Sequence s = batch.join(prompts[i], options, id -> true);
                    while (batch.active() > 0) {
                        batch.step();
                    }
                    alone[i] = s.generation().tokens();
                }
            }
            try (BatchDecoder batch = new BatchDecoder(model, CHUNK)) {
                List<BatchDecoder.Sequence> joined = new ArrayList<>();
                List<List<Integer>> streamed = new ArrayList<>();
                int steps = 0;
                while (joined.size() < prompts.length || batch.active() > 0) {
                    if (joined.size() < prompts.length && steps % 2 == 0) {
                        List<Integer> tokens = new ArrayList<>();
                        streamed.add(tokens);
                        joined.add(batch.join(prompts[joined.size()], options, id -> tokens.add(id)));
                    }
                    batch.step();
                    steps++;
                }
                for (int i = 0; i < prompts.length; i++) {
                    int[] tokens = joined.get(i).generation().tokens();
                    assertArrayEquals(alone[i], tokens, d.name() + " on " + t + ": sequence " + i
                            + "'s greedy tokens in a batch");
                    assertEquals(Arrays.stream(tokens).boxed().toList(), streamed.get(i), "streamed tokens " + i);
                }
            }
            int[] generator = Generator.generate(model, prompts[0], options, id -> { });
            try (BatchDecoder batch = new BatchDecoder(model, prompts[0].length)) {
                BatchDecoder.Sequence s = batch.join(prompts[0], options, id -> true);
                batch.join(prompts[1], options, id -> true);
                while (batch.active() > 0) {
                    batch.step();
                }
                assertArrayEquals(generator, s.generation().tokens(), d.name() + " on " + t
                        + ": a batch whose chunk holds the whole prompt gives Generator's tokens");
            }
        }
    }

    @Test
    void aSequenceEndsAtItsStopTokenItsLimitOrWhenItsListenerRefuses() {
        Decoder d = DecoderGoldens.all().stream().filter(c -> Arrays.stream(c.generated(), 0, 8).distinct().count() > 2)
                .findFirst().orElseThrow();
        DecoderGoldens.Target t = (DecoderGoldens.Target) DecoderGoldens.across().findFirst().orElseThrow().get()[0];
        try (CausalLM model = load(t, d, null); BatchDecoder batch = new BatchDecoder(model, d.prompt().length)) {
            int[] greedy = Generator.generate(model, d.prompt(), GenerationOptions.defaults().withMaxNewTokens(8),
                    id -> { });
            int stopAt = -1;
            for (int k = 1; k < greedy.length && stopAt < 0; k++) {
                int id = greedy[k];
                if (Arrays.stream(greedy, 0, k).noneMatch(x -> x == id)) {
                    stopAt = k;
                }
            }
            assertTrue(stopAt > 0, d.name() + " repeats one token: " + Arrays.toString(greedy));
            BatchDecoder.Sequence limited = batch.join(d.prompt(), GenerationOptions.defaults().withMaxNewTokens(8),
                    id -> true);
            BatchDecoder.Sequence stopped = batch.join(d.prompt(), GenerationOptions.defaults().withMaxNewTokens(8)
                    .withStopTokens(greedy[stopAt]), id -> true);
            List<Integer> heard = new ArrayList<>();
            BatchDecoder.Sequence refused = batch.join(d.prompt(), GenerationOptions.defaults().withMaxNewTokens(8),
                    id -> heard.add(id) && heard.size() < 2);
            BatchDecoder.Sequence left = batch.join(d.prompt(), GenerationOptions.defaults().withMaxNewTokens(8),
                    id -> true);
            BatchDecoder.Sequence none = batch.join(d.prompt(), GenerationOptions.defaults().withMaxNewTokens(0),
                    id -> true);
            assertTrue(none.finished());
            assertEquals(StopReason.LENGTH, none.generation().stopReason());
            assertEquals(4, batch.active());
            batch.step();
            left.leave();
            while (batch.active() > 0) {
                batch.step();
            }
            assertEquals(new Generation(greedy, StopReason.LENGTH, -1, d.prompt().length), limited.generation());
            assertEquals(new Generation(Arrays.copyOf(greedy, stopAt), StopReason.STOP_TOKEN, greedy[stopAt],
                    d.prompt().length), stopped.generation());
            assertEquals(new Generation(Arrays.copyOf(greedy, 2), StopReason.CANCELLED, -1, d.prompt().length),
                    refused.generation());
            assertEquals(StopReason.CANCELLED, left.generation().stopReason());
        }
    }

    @Test
    void badArgumentsAreRefusedByName() {
        Decoder d = DecoderGoldens.all().get(0);
        DecoderGoldens.Target t = (DecoderGoldens.Target) DecoderGoldens.across().findFirst().orElseThrow().get()[0];
        int vocab = d.logits().shape().dim(2);
        try (CausalLM model = load(t, d, null); BatchDecoder batch = new BatchDecoder(model, 4);
             KvCache two = model.newCache(2, 8); KvCache one = model.newCache(1, 2);
             Scope scope = model.backend().newScope()) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> new BatchDecoder(model, 0)).getMessage()
                    .contains("prefillChunk"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> batch.join(new int[0],
                    GenerationOptions.defaults(), id -> true)).getMessage().contains("prompt is empty"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> batch.join(new int[] {vocab},
                    GenerationOptions.defaults(), id -> true)).getMessage().contains("outside [0, " + vocab + ")"));
            String m = assertThrows(IllegalArgumentException.class, () -> model.step(scope,
                    new int[][] {{1}, {2, 3, 4}, {1}}, List.of(two, one, one))).getMessage();
            assertTrue(m.contains("sequence 0's cache has batch 2") && m.contains("sequence 1's 3 new tokens do not"
                    + " fit") && m.contains("sequence 2's cache is also another sequence's"), m);
            assertTrue(assertThrows(IllegalArgumentException.class, () -> model.step(scope, new int[][] {{1}},
                    List.of())).getMessage().contains("one entry per sequence"));
            assertNull(batch.join(d.prompt(), GenerationOptions.defaults().withMaxNewTokens(4), id -> true)
                    .generation());
        }
    }
}
