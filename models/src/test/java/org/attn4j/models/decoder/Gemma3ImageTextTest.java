package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.models.DecoderGoldens;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.junit.jupiter.api.Test;

/**
 * The text decoder of a Gemma 3 image-text checkpoint (the golden {@code gemma3_image_text_linear_tiny}) under both
 * layouts transformers saves: {@code language_model.model.*} beside {@code vision_tower.*} (transformers 4.50, the
 * layout of Google's checkpoints) and {@code model.language_model.*} beside {@code model.vision_tower.*} (later
 * versions). Both give the same logits; a tensor outside the decoder and the image modules is still refused.
 */
class Gemma3ImageTextTest {
    private static final Backend BACKEND = Backends.load("ejml");

    private static DecoderGoldens.Decoder golden() {
        return DecoderGoldens.all().stream().filter(d -> d.name().equals("gemma3_image_text_linear_tiny"))
                .findFirst().orElseThrow();
    }

    private static double[] logits(DecoderGoldens.Decoder d, StateDict state) {
        try (CausalLM model = CausalLM.of(DecoderConfig.of(d.config(), d.name()), state, BACKEND, DType.F64);
             KvCache cache = model.newCache(1, d.prompt().length); Scope scope = BACKEND.newScope()) {
            assertEquals(DecoderConfig.Type.GEMMA3_IMAGE_TEXT, model.config().type());
            return model.forward(scope, new int[][] {d.prompt()}, cache).toDoubleArray();
        }
    }

    private static StateDict renamed(StateDict state) {
        Map<String, HostTensor> out = new LinkedHashMap<>();
        state.asMap().forEach((name, t) -> out.put(name.startsWith("language_model.model.")
                ? "model.language_model." + name.substring("language_model.model.".length()) : "model." + name, t));
        return StateDict.of(out);
    }

    @Test
    void bothSavedLayoutsOfTheImageTextCheckpointGiveTheSameLogits() {
        DecoderGoldens.Decoder d = golden();
        assertTrue(d.parameters().contains("vision_tower.vision_model.embeddings.patch_embedding.weight"));
        double[] older = logits(d, d.parameters());
        double[] newer = logits(d, renamed(d.parameters()));
        assertArrayEquals(older, newer, 0.0);
        double[] expected = d.logits().data();
        for (int i = 0; i < expected.length; i++) {
            double error = Math.abs(older[i] - expected[i]);
            assertTrue(error <= 1e-10 * (1 + Math.abs(expected[i])), "logit " + i + ": expected " + expected[i]
                    + ", actual " + older[i] + ", abs error " + error + ", rel error " + error / Math.abs(expected[i]));
        }
    }

    @Test
    void aTensorOutsideTheDecoderAndTheImageModulesIsRefused() {
        DecoderGoldens.Decoder d = golden();
        Map<String, HostTensor> extra = new LinkedHashMap<>(d.parameters().asMap());
        extra.put("audio_tower.weight", HostTensor.of(new double[] {1, 2}, 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> logits(d, StateDict.of(extra)));
        assertTrue(e.getMessage().contains("unexpected audio_tower.weight"), e.getMessage());
    }
}
