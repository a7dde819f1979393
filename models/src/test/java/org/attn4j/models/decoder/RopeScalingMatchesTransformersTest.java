package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.models.DecoderGoldens;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rotary parameters {@link RopeScaling} reads from checkpoints' configs (Llama 3.1 and 3.2, Qwen2.5 and Qwen3
 * with yarn, Phi-3 su, Phi-3.5 and Phi-4-mini longrope short and long, dynamic NTK below and past its length,
 * linear, yarn with mscale and an untruncated ramp, per-layer-type parameters) against transformers'
 * {@code ROPE_INIT_FUNCTIONS} as tck/src/golden/rope_scaling.py computes them in float64.
 */
class RopeScalingMatchesTransformersTest {

    static List<DecoderGoldens.Rope> cases() {
        return DecoderGoldens.rope();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void inverseFrequenciesAndAttentionScalingMatch(DecoderGoldens.Rope c) {
        DecoderConfig config = DecoderConfig.of(c.config(), c.name());
        int layer = 0;
        while (layer < config.layers() - 1 && !layerType(config, layer).equals(c.layerType())) {
            layer++;
        }
        RotaryEmbedding r = config.rope(layer).at(c.sequenceLength());
        double[] expected = c.inverseFrequencies();
        double[] actual = r.inverseFrequencies();
        assertEquals(expected.length, actual.length, c.name() + " pairs");
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs(actual[i] - expected[i]);
            assertEquals(expected[i], actual[i], 1e-13 * Math.abs(expected[i]), c.name() + " pair " + i + ": abs error "
                    + abs + " rel error " + abs / Math.abs(expected[i]) + " of " + Arrays.toString(actual));
        }
        assertEquals(c.attentionScaling(), r.attentionScaling(), 1e-14, c.name() + " attention scaling");
    }

    /** Gemma 2's default alternation: even layers local ({@code sliding_attention}). */
    private static String layerType(DecoderConfig config, int layer) {
        return config.type() == DecoderConfig.Type.GEMMA2 && layer % 2 == 0 ? "sliding_attention" : "full_attention";
    }
}
