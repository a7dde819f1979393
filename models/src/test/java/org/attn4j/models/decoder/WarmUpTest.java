package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.stream.Stream;
import org.attn4j.api.Scope;
import org.attn4j.models.DecoderGoldens;
import org.attn4j.models.DecoderGoldens.Decoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A decoder's warm-up runs on every family of the decoder goldens and leaves no trace: the prompt's logits after it
 * are the same bits as before it, with a prompt of the model's own or without one.
 */
class WarmUpTest {
    static Stream<Arguments> decoders() {
        return DecoderGoldens.across();
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("decoders")
    void theLogitsAfterAWarmUpAreTheLogitsBeforeIt(DecoderGoldens.Target t, Decoder d) {
        try (CausalLM lm = CausalLM.of(DecoderConfig.of(d.config(), d.name()), d.parameters(), t.backend(),
                t.dtype(), null)) {
            float[] before = logits(lm, d.prompt());
            lm.warmUp(d.prompt(), Duration.ofSeconds(5));
            lm.warmUp(Duration.ofSeconds(5));
            assertArrayEquals(before, logits(lm, d.prompt()), d.name());
        }
    }

    @Test
    void aWarmUpRefusesNoIdsAndANegativeBudget() {
        Decoder d = DecoderGoldens.all().get(0);
        try (CausalLM lm = CausalLM.of(DecoderConfig.of(d.config(), d.name()), d.parameters(),
                DecoderGoldens.targets().get(0).backend(), DecoderGoldens.targets().get(0).dtype(), null)) {
            IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                    () -> lm.warmUp(new int[0], Duration.ofMillis(1)));
            assertTrue(none.getMessage().startsWith("CausalLM.warmUp: arguments ids 0 ids"), none.getMessage());
            IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                    () -> lm.warmUp(Duration.ofMillis(-1)));
            assertTrue(negative.getMessage().contains("budget PT-0.001S"), negative.getMessage());
            IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
                    () -> lm.warmUp(new int[] {lm.config().vocabSize()}, Duration.ofMillis(1)));
            assertTrue(outside.getMessage().contains("outside [0, " + lm.config().vocabSize() + ")"),
                    outside.getMessage());
        }
    }

    private static float[] logits(CausalLM lm, int[] prompt) {
        try (KvCache cache = lm.newCache(1, prompt.length); Scope scope = lm.backend().newScope()) {
            return lm.next(scope, new int[][] {prompt}, cache).toFloatArray();
        }
    }
}
