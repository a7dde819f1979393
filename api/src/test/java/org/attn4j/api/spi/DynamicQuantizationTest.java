package org.attn4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.Random;
import org.attn4j.api.Shape;
import org.junit.jupiter.api.Test;

/**
 * {@link DynamicQuantization} against ONNX's {@code DynamicQuantizeLinear} at its edges: the range always holds
 * zero, an all-zero tensor has scale 1, halves round to even, and the corrected integer product equals
 * {@code Σ (a - a_z)(q - z)} taken in long arithmetic; each sequence is quantized as if alone, and rows of zeros
 * move no sequence's range.
 */
class DynamicQuantizationTest {

    private static int unsigned(DynamicQuantization d, int i) {
        return d.numbers()[i] + 128;
    }

    @Test
    void allPositiveInputKeepsZeroInRangeWithZeroPointZero() {
        DynamicQuantization d = DynamicQuantization.of("linear", new float[] {0.5f, 2.55f, 1f}, 3, 1);
        assertEquals(0.01f, d.scale(0), 0f, "(2.55 - 0) / 255");
        assertEquals(0, d.zeroPoint(0));
        assertEquals(50, unsigned(d, 0));
        assertEquals(255, unsigned(d, 1));
        assertEquals(100, unsigned(d, 2));
    }

    @Test
    void allNegativeInputHasZeroPoint255() {
        DynamicQuantization d = DynamicQuantization.of("linear", new float[] {-2.55f, -1f}, 2, 1);
        assertEquals(255, d.zeroPoint(0));
        assertEquals(0, unsigned(d, 0));
    }

    @Test
    void allZeroInputHasScaleOneAndZeroPointZero() {
        DynamicQuantization d = DynamicQuantization.of("linear", new float[4], 2, 2);
        assertEquals(1f, d.scale(0), 0f);
        assertEquals(0, d.zeroPoint(0));
        assertEquals(0, unsigned(d, 3));
    }

    @Test
    void halvesRoundToEven() {
        float[] x = {-127.5f, 127.5f, 0.5f, 1.5f, 2.5f};
        DynamicQuantization d = DynamicQuantization.of("linear", x, 5, 1);
        assertEquals(1f, d.scale(0), 0f, "(127.5 + 127.5) / 255");
        assertEquals(128, d.zeroPoint(0), "127.5 rounds to even 128");
        assertEquals(0, unsigned(d, 0), "-127.5 rounds to -128, + 128");
        assertEquals(255, unsigned(d, 1), "127.5 rounds to 128, + 128 = 256, saturated");
        assertEquals(128, unsigned(d, 2), "0.5 rounds to 0");
        assertEquals(130, unsigned(d, 3), "1.5 rounds to 2");
        assertEquals(130, unsigned(d, 4), "2.5 rounds to 2");
    }

    @Test
    void correctedProductEqualsTheZeroPointFormulaInLongArithmetic() {
        Random random = new Random(3);
        for (int trial = 0; trial < 200; trial++) {
            int columns = 1 + random.nextInt(300);
            float[] x = new float[2 * columns];
            double shift = random.nextGaussian() * 3;
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (random.nextGaussian() + shift);
            }
            DynamicQuantization d = DynamicQuantization.of("linear", x, columns, 2);
            byte[] q = new byte[columns];
            random.nextBytes(q);
            int z = random.nextInt(256) - 128;
            int sum = 0;
            long raw = 0;
            for (int p = 0; p < columns; p++) {
                sum += q[p];
                raw += (long) d.numbers()[columns + p] * q[p];
            }
            long expected = 0;
            for (int p = 0; p < columns; p++) {
                expected += (long) (unsigned(d, columns + p) - d.zeroPoint(1)) * (q[p] - z);
            }
            int actual = d.correct((int) raw, 1, columns, z, sum);
            if (actual != expected) {
                fail("trial " + trial + ", " + columns + " columns: expected " + expected + ", actual " + actual);
            }
        }
    }

    @Test
    void nonFiniteInputIsRefusedNamingItsPlace() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DynamicQuantization.of("linear", new float[] {0f, 1f, Float.NEGATIVE_INFINITY, 0f}, 2, 2));
        assertTrue(e.getMessage().startsWith("linear: argument x holds -Infinity at row 1, column 0"),
                e.getMessage());
    }

    private static float[] gaussian(Random random, int n, double shift) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (random.nextGaussian() * 2 + shift);
        }
        return x;
    }

    private static void assertSameQuantization(DynamicQuantization expected, int expectedRow,
                                               DynamicQuantization actual, int actualRow, int columns, String what) {
        assertEquals(Float.floatToIntBits(expected.scale(expectedRow)), Float.floatToIntBits(actual.scale(actualRow)),
                what + ": scale " + expected.scale(expectedRow) + " vs " + actual.scale(actualRow));
        assertEquals(expected.zeroPoint(expectedRow), actual.zeroPoint(actualRow), what + ": zero point");
        for (int p = 0; p < columns; p++) {
            assertEquals(expected.numbers()[expectedRow * columns + p], actual.numbers()[actualRow * columns + p],
                    what + ", column " + p);
        }
    }

    @Test
    void eachSequenceIsQuantizedAsATensorHoldingItAlone() {
        Random random = new Random(5);
        int columns = 7;
        int rows = 4;
        double[] shifts = {0, 4, -4};
        float[] all = new float[shifts.length * rows * columns];
        for (int s = 0; s < shifts.length; s++) {
            System.arraycopy(gaussian(random, rows * columns, shifts[s]), 0, all, s * rows * columns, rows * columns);
        }
        DynamicQuantization together = DynamicQuantization.of("linear", all, columns, rows);
        for (int s = 0; s < shifts.length; s++) {
            float[] one = Arrays.copyOfRange(all, s * rows * columns, (s + 1) * rows * columns);
            DynamicQuantization alone = DynamicQuantization.of("linear", one, columns, rows);
            for (int r = 0; r < rows; r++) {
                assertSameQuantization(alone, r, together, s * rows + r, columns, "sequence " + s + ", row " + r);
            }
        }
        assertTrue(together.scale(0) != together.scale(rows), "sequences of different ranges have their own scales");
    }

    @Test
    void rowsOfZerosMoveNoSequencesRange() {
        Random random = new Random(6);
        int columns = 5;
        for (double shift : new double[] {0, 3, -3}) {
            float[] real = gaussian(random, 3 * columns, shift);
            float[] padded = Arrays.copyOf(real, 8 * columns);
            DynamicQuantization alone = DynamicQuantization.of("linear", real, columns, 3);
            DynamicQuantization withZeros = DynamicQuantization.of("linear", padded, columns, 8);
            for (int r = 0; r < 3; r++) {
                assertSameQuantization(alone, r, withZeros, r, columns, "shift " + shift + ", row " + r);
            }
        }
    }

    @Test
    void sequencesAreTheMatricesOfTheLastTwoAxes() {
        assertEquals(1, DynamicQuantization.sequenceRows(Shape.of(5)));
        assertEquals(6, DynamicQuantization.sequenceRows(Shape.of(6, 5)));
        assertEquals(3, DynamicQuantization.sequenceRows(Shape.of(2, 3, 5)));
        assertEquals(3, DynamicQuantization.sequenceRows(Shape.of(4, 2, 3, 5)));
    }

    @Test
    void rowsThatDoNotSplitIntoSequencesAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DynamicQuantization.of("linear", new float[10], 2, 3));
        assertTrue(e.getMessage().contains("5 rows") && e.getMessage().contains("sequences of 3"), e.getMessage());
    }
}
