package org.attn4j.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ShapeTest {

    @Test
    void zeroOrNegativeDimensionIsRejectedWithTheDimensions() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> Shape.of(2, 0, 3));
        assertTrue(zero.getMessage().contains("[2, 0, 3]"), zero.getMessage());
        assertTrue(zero.getMessage().contains("dimension 1"), zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Shape.of(-1));
    }

    @Test
    void sizeIsTheProductOfDimensionsAndScalarHasSizeOne() {
        assertEquals(24, Shape.of(2, 3, 4).size());
        assertEquals(1, Shape.scalar().size());
        assertEquals(0, Shape.of().rank());
    }

    @Test
    void negativeAxesCountFromTheEnd() {
        Shape s = Shape.of(2, 3, 4);
        assertEquals(4, s.dim(-1));
        assertEquals(2, s.dim(-3));
        assertEquals(1, s.normalizeAxis(-2));
        assertThrows(IllegalArgumentException.class, () -> s.normalizeAxis(3));
        assertThrows(IllegalArgumentException.class, () -> s.normalizeAxis(-4));
    }

    @Test
    void stridesAreRowMajor() {
        Shape s = Shape.of(2, 3, 4);
        assertEquals(12, s.stride(0));
        assertEquals(4, s.stride(1));
        assertEquals(1, s.stride(2));
    }

    @Test
    void valueSemanticsAndDefensiveCopies() {
        int[] dims = {5, 6};
        Shape s = Shape.of(dims);
        dims[0] = 99;
        assertEquals(Shape.of(5, 6), s);
        assertEquals(Shape.of(5, 6).hashCode(), s.hashCode());
        s.toArray()[1] = 42;
        assertArrayEquals(new int[] {5, 6}, s.toArray());
        assertEquals("[5, 6]", s.toString());
        assertEquals(Shape.of(5, 6, 7), s.append(7));
        assertEquals(Shape.of(6), s.slice(1, 2));
    }
}
