package org.attn4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.attn4j.api.Shape;
import org.junit.jupiter.api.Test;

class StridesTest {

    @Test
    void contiguousStridesAreRowMajor() {
        assertArrayEquals(new int[] {12, 4, 1}, Strides.contiguous(Shape.of(2, 3, 4)));
        assertArrayEquals(new int[0], Strides.contiguous(Shape.scalar()));
    }

    @Test
    void broadcastStridesAreZeroOnMissingAndUnitDims() {
        assertArrayEquals(new int[] {0, 4, 0, 1}, Strides.broadcast("add", "b", Shape.of(3, 1, 4), Shape.of(2, 3, 5, 4)));
    }

    @Test
    void broadcastStridesRejectAnOperandThatDoesNotFitAndNameTheArgument() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Strides.broadcast("attention", "mask", Shape.of(3, 4), Shape.of(2, 5, 4)));
        assertEquals("attention: mask shape [3, 4] does not broadcast to [2, 5, 4]", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> Strides.broadcast("add", "a", Shape.of(2, 3, 4), Shape.of(3, 4)));
    }

    @Test
    void offsetsWalkTheIndexSpaceInRowMajorOrder() {
        assertArrayEquals(new int[] {0, 1, 2, 0, 1, 2}, Strides.offsets(Shape.of(2, 3), new int[] {0, 1}));
        assertArrayEquals(new int[] {0, 3, 1, 4, 2, 5}, Strides.offsets(Shape.of(3, 2), new int[] {1, 3}));
        assertArrayEquals(new int[] {0}, Strides.offsets(Shape.scalar(), new int[0]));
    }
}
