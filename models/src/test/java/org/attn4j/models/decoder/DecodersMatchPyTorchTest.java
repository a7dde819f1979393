package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.DecoderGoldens;
import org.attn4j.models.DecoderGoldens.Decoder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * GPT-2 and the Llama-style decoders against PyTorch float64 (tck/src/golden/decoder_cases.py) on every backend
 * of the test class path: the prompt's logits in one forward, the same logits token by token through the cache,
 * and 16 greedy steps.
 */
class DecodersMatchPyTorchTest {

    static Stream<Arguments> decoders() {
        return DecoderGoldens.across();
    }

    private static CausalLM load(DecoderGoldens.Target t, Decoder d) {
        return CausalLM.of(DecoderConfig.of(d.config(), d.name()), d.parameters(), t.backend(), t.dtype());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("decoders")
    void promptLogitsMatchInOneForward(DecoderGoldens.Target t, Decoder d) {
        try (CausalLM model = load(t, d); KvCache cache = model.newCache(1, d.prompt().length);
             Scope scope = t.backend().newScope()) {
            Tensor logits = model.forward(scope, new int[][] {d.prompt()}, cache);
            t.assertClose(d.name() + " logits", d.logits().data(), logits.toDoubleArray());
            assertEquals(d.prompt().length, cache.length());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("decoders")
    void promptLogitsMatchTokenByTokenThroughTheCache(DecoderGoldens.Target t, Decoder d) {
        int[] prompt = d.prompt();
        int v = d.logits().shape().dim(2);
        try (CausalLM model = load(t, d); KvCache cache = model.newCache(1, prompt.length + 3);
             Scope scope = t.backend().newScope()) {
            double[] all = new double[prompt.length * v];
            for (int i = 0; i < prompt.length; i++) {
                double[] row = model.forward(scope, new int[][] {{prompt[i]}}, cache).toDoubleArray();
                System.arraycopy(row, 0, all, i * v, v);
            }
            t.assertClose(d.name() + " logits, one token at a time", d.logits().data(), all);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("decoders")
    void greedyGenerationMatches(DecoderGoldens.Target t, Decoder d) {
        List<Integer> streamed = new ArrayList<>();
        try (CausalLM model = load(t, d)) {
            int[] out = Generator.generate(model, d.prompt(),
                    GenerationOptions.defaults().withMaxNewTokens(d.generated().length), streamed::add);
            assertArrayEquals(d.generated(), out, d.name() + " greedy tokens");
            assertEquals(d.generated().length, streamed.size());
            for (int i = 0; i < out.length; i++) {
                assertEquals(out[i], streamed.get(i), "streamed token " + i);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("decoders")
    void aTruncatedCacheContinuesAsIfNeverExtended(DecoderGoldens.Target t, Decoder d) {
        try (CausalLM model = load(t, d); KvCache cache = model.newCache(1, 32)) {
            int[] first = Generator.generate(model, cache, d.prompt(), GenerationOptions.defaults()
                    .withMaxNewTokens(4), id -> { });
            assertArrayEquals(java.util.Arrays.copyOf(d.generated(), 4), first);
            cache.truncate(d.prompt().length);
            int[] again = Generator.generate(model, cache, new int[] {d.generated()[0]},
                    GenerationOptions.defaults().withMaxNewTokens(3), id -> { });
            assertArrayEquals(java.util.Arrays.copyOfRange(d.generated(), 1, 4), again);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("decoders")
    void leftPaddedRowsOfABatchMatchTheirOwnRuns(DecoderGoldens.Target t, Decoder d) {
        int[] prompt = d.prompt();
        int v = d.logits().shape().dim(2);
        int pad = 3;
        int[] padded = new int[prompt.length];
        int[] shorter = java.util.Arrays.copyOf(prompt, prompt.length - pad);
        System.arraycopy(shorter, 0, padded, pad, shorter.length);
        try (CausalLM model = load(t, d); KvCache batch = model.newCache(2, prompt.length + 1);
             KvCache alone = model.newCache(1, prompt.length + 1); Scope scope = t.backend().newScope()) {
            batch.setPadding(0, pad);
            double[] both = model.next(scope, new int[][] {prompt, padded}, batch).toDoubleArray();
            double[] full = java.util.Arrays.copyOfRange(d.logits().data(), (prompt.length - 1) * v, prompt.length * v);
            t.assertClose("row 0", full, java.util.Arrays.copyOfRange(both, 0, v));
            double[] own = model.next(scope, new int[][] {shorter}, alone).toDoubleArray();
            t.assertClose("row 1 (left-padded)", own, java.util.Arrays.copyOfRange(both, v, 2 * v));
        }
    }

    @org.junit.jupiter.api.Test
    void everyConfigKeyOfTheFixturesIsUnderstood() {
        for (Decoder d : DecoderGoldens.all()) {
            Map<String, Object> config = d.config();
            DecoderConfig c = DecoderConfig.of(config, d.name());
            assertEquals(((Number) config.get("vocab_size")).intValue(), c.vocabSize());
        }
    }
}
