package org.attn4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link DynamicQuantization} against ONNX's {@code DynamicQuantizeLinear} at its edges: the range always holds
 * zero, an all-zero tensor has scale 1, halves round to even, and the corrected integer product equals
 * {@code Σ (a - a_z)(q - z)} taken in long arithmetic.
 */
class DynamicQuantizationTest {

    private static int unsigned(DynamicQuantization d, int i) {
        return d.numbers()[i] + 128;
    }

    @Test
    void allPositiveInputKeepsZeroInRangeWithZeroPointZero() {
        DynamicQuantization d = DynamicQuantization.of("linear", new float[] {0.5f, 2.55f, 1f}, 3);
        assertEquals(0.01f, d.scale(), 0f, "(2.55 - 0) / 255");
        assertEquals(0, d.zeroPoint());
        assertEquals(50, unsigned(d, 0));
        assertEquals(255, unsigned(d, 1));
        assertEquals(100, unsigned(d, 2));
    }

    @Test
    void allNegativeInputHasZeroPoint255() {
        DynamicQuantization d = DynamicQuantization.of("linear", new float[] {-2.55f, -1f}, 2);
        assertEquals(255, d.zeroPoint());
        assertEquals(0, unsigned(d, 0));
    }

    @Test
    void allZeroInputHasScaleOneAndZeroPointZero() {
        DynamicQuantization d = DynamicQuantization.of("linear", new float[4], 2);
        assertEquals(1f, d.scale(), 0f);
        assertEquals(0, d.zeroPoint());
        assertEquals(0, unsigned(d, 3));
    }

    @Test
    void halvesRoundToEven() {
        float[] x = {-127.5f, 127.5f, 0.5f, 1.5f, 2.5f};
        DynamicQuantization d = DynamicQuantization.of("linear", x, 5);
        assertEquals(1f, d.scale(), 0f, "(127.5 + 127.5) / 255");
        assertEquals(128, d.zeroPoint(), "127.5 rounds to even 128");
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
            DynamicQuantization d = DynamicQuantization.of("linear", x, columns);
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
                expected += (long) (unsigned(d, columns + p) - d.zeroPoint()) * (q[p] - z);
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
                () -> DynamicQuantization.of("linear", new float[] {0f, 1f, Float.NEGATIVE_INFINITY}, 2));
        assertTrue(e.getMessage().startsWith("linear: argument x holds -Infinity at row 1, column 0"),
                e.getMessage());
    }
}
