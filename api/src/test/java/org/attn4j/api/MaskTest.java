package org.attn4j.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MaskTest {

    @Test
    void causalMaskIsLowerTriangularAlignedTopLeft() {
        Mask m = Mask.causal(2, 4);
        assertEquals(Shape.of(2, 4), m.shape());
        assertArrayEquals(new boolean[] {true, false, false, false, true, true, false, false}, m.toArray());
    }

    @Test
    void causalMaskWithMoreQueriesThanKeysAllowsEveryKeyToLateQueries() {
        Mask m = Mask.causal(3, 2);
        assertArrayEquals(new boolean[] {true, false, true, true, true, true}, m.toArray());
    }

    @Test
    void keyPaddingMaskAllowsTheValidPrefixPerBatchItem() {
        Mask m = Mask.keyPadding(new int[] {1, 3, 0}, 3);
        assertEquals(Shape.of(3, 1, 1, 3), m.shape());
        assertArrayEquals(new boolean[] {true, false, false, true, true, true, false, false, false}, m.toArray());
    }

    @Test
    void keyPaddingRejectsLengthsOutsideTheKeyRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Mask.keyPadding(new int[] {2, 5}, 4));
        assertTrue(e.getMessage().contains("validLengths[1] is 5"), e.getMessage());
    }

    @Test
    void ofRejectsAFlagCountThatDoesNotMatchTheShape() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Mask.of(Shape.of(2, 2), new boolean[3]));
        assertTrue(e.getMessage().contains("[2, 2]"), e.getMessage());
    }

    @Test
    void ofCopiesItsInput() {
        boolean[] flags = {true, false};
        Mask m = Mask.of(Shape.of(1, 2), flags);
        flags[1] = true;
        assertEquals(Mask.of(Shape.of(1, 2), new boolean[] {true, false}), m);
    }
}
