package org.attn4j.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class RotaryEmbeddingTest {

    private static void rejected(Executable e, String... words) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
        for (String w : words) {
            assertTrue(x.getMessage().contains(w), x.getMessage() + " should mention " + w);
        }
    }

    @Test
    void theOriginalEmbeddingTurnsPairIByBaseToTheMinusTwoIOverD() {
        RotaryEmbedding r = RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 10000.0, 8);
        assertEquals(4, r.pairs());
        assertEquals(8, r.dimension());
        assertEquals(1.0, r.attentionScaling());
        for (int i = 0; i < 4; i++) {
            assertEquals(Math.pow(10000.0, -2.0 * i / 8), r.inverseFrequency(i), 0.0, "pair " + i);
        }
    }

    @Test
    void explicitFrequenciesAreCopiedInAndOut() {
        double[] frequencies = {1.0, 0.25, 0.0};
        RotaryEmbedding r = RotaryEmbedding.ofInverseFrequencies(RopeLayout.INTERLEAVED, frequencies)
                .withAttentionScaling(1.25);
        frequencies[0] = 9;
        double[] out = r.inverseFrequencies();
        out[1] = 9;
        assertArrayEquals(new double[] {1.0, 0.25, 0.0}, r.inverseFrequencies());
        assertEquals(6, r.dimension());
        assertEquals(1.25, r.attentionScaling());
        assertEquals(RopeLayout.INTERLEAVED, r.layout());
        assertEquals(RopeLayout.HALF_SPLIT, r.withLayout(RopeLayout.HALF_SPLIT).layout());
    }

    @Test
    void equalContentsAreEqualValues() {
        RotaryEmbedding a = RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 500000.0, 64);
        RotaryEmbedding b = RotaryEmbedding.ofInverseFrequencies(RopeLayout.HALF_SPLIT, a.inverseFrequencies());
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, b.withAttentionScaling(2));
        assertNotEquals(a, b.withLayout(RopeLayout.INTERLEAVED));
    }

    @Test
    void badArgumentsAreNamed() {
        rejected(() -> RotaryEmbedding.of(null, 1e4, 8), "layout", "null");
        rejected(() -> RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 0, 8), "base", "0");
        rejected(() -> RotaryEmbedding.of(RopeLayout.HALF_SPLIT, Double.NaN, 8), "base", "NaN");
        rejected(() -> RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 1e4, 7), "dimension", "7");
        rejected(() -> RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 1e4, 0), "dimension", "0");
        rejected(() -> RotaryEmbedding.ofInverseFrequencies(RopeLayout.HALF_SPLIT), "inverseFrequencies", "empty");
        rejected(() -> RotaryEmbedding.ofInverseFrequencies(RopeLayout.HALF_SPLIT, (double[]) null),
                "inverseFrequencies", "null");
        rejected(() -> RotaryEmbedding.ofInverseFrequencies(RopeLayout.HALF_SPLIT, 1, Double.POSITIVE_INFINITY),
                "Infinity", "pair 1");
        rejected(() -> RotaryEmbedding.of(RopeLayout.HALF_SPLIT, 1e4, 8).withAttentionScaling(0),
                "attentionScaling", "0");
    }
}
