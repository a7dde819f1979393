package org.attn4j.models.tutorial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.junit.jupiter.api.Test;

class AttentionMasksTest {

    @Test
    void booleanMasksCombineByBroadcastAnd() {
        Mask causal = Mask.causal(2, 2);
        Mask padding = Mask.keyPadding(new int[] {2, 1}, 2);
        Mask both = AttentionMasks.and(causal, padding);
        assertEquals(Shape.of(2, 1, 2, 2), both.shape());
        assertArrayEquals(new boolean[] {true, false, true, true, true, false, true, false}, both.toArray());
    }
}
