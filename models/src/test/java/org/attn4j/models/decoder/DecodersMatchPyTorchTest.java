package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.DecoderGoldens;
import org.attn4j.models.DecoderGoldens.Decoder;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.Generator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every family (GPT-2, Llama 3.x tied and untied with llama3 RoPE, a dynamic-NTK Llama with biases, Mistral with a
 * window, Qwen2.5 with yarn and windowed upper layers, Qwen3 with per-head norms and an explicit head size, Gemma,
 * Gemma 2 with soft-caps and local/global layers, Gemma 3 with per-head norms, five local layers to a global one and
 * a rotary base for each, also as the text decoder of an image-text checkpoint with linear scaling on its global
 * layers, Phi-3 with fused projections, partial LongRoPE and a window)
 * against its PyTorch float64 reference (tck/src/golden/decoder_families.py) with random weights, on every backend
 * of the test class path: the prompt's logits in one forward, the same logits token by token through the cache,
 * 16 greedy steps with the logits of each, a truncated cache and a left-padded batch.
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

    /**
     * The logits after each generated token, fed one at a time as generation does, and the reference's top-1 margin
     * of every choice above twice the tolerance at which these logits are compared: logits within it cannot swap
     * the two best tokens, so equal ids mean equal choices and not luck between near ties.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("decoders")
    void everyStepsLogitsMatchAndEveryChoiceHasAClearMargin(DecoderGoldens.Target t, Decoder d) {
        int v = d.logits().shape().dim(2);
        double[] steps = d.stepLogits().data();
        try (CausalLM model = load(t, d); KvCache cache = model.newCache(1, d.prompt().length + d.generated().length);
             Scope scope = t.backend().newScope()) {
            model.next(scope, new int[][] {d.prompt()}, cache);
            for (int i = 0; i < d.generated().length; i++) {
                double[] row = model.next(scope, new int[][] {{d.generated()[i]}}, cache).toDoubleArray();
                double[] expected = java.util.Arrays.copyOfRange(steps, i * v, (i + 1) * v);
                t.assertClose(d.name() + " logits after generated token " + i, expected, row);
                double top = java.util.Arrays.stream(expected).max().orElseThrow();
                assertTrue(d.margins()[i] > 2 * t.tolerance() * (1 + Math.abs(top)), d.name() + " step " + i
                        + ": margin " + d.margins()[i] + " is too close to the tolerance for ids to mean much");
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
            Object text = config.getOrDefault("text_config", config);
            assertEquals(((Number) ((Map<?, ?>) text).get("vocab_size")).intValue(), c.vocabSize());
        }
    }
}
