package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The SIMD kernel's {@code 2^x}; runs only where the tests resolve {@code jdk.incubator.vector}. */
class VectorExp2Test {

    private static float[] exp2(float[] x) {
        float[] out = x.clone();
        VectorFlashAttentionF32.exp2(out, 0, out.length);
        return out;
    }

    @Test
    void exp2IsWithinTwoUlpsOfPowOnTheSoftmaxRange() {
        Random random = new Random(11);
        for (int round = 0; round < 2000; round++) {
            float[] x = new float[128];
            for (int i = 0; i < x.length; i++) {
                x[i] = round == 0 ? -i * 0.5f - 0.25f : -126 * random.nextFloat();
            }
            float[] actual = exp2(x);
            for (int i = 0; i < x.length; i++) {
                float expected = (float) Math.pow(2, x[i]);
                float error = Math.abs(actual[i] - expected);
                assertTrue(error <= 2 * Math.ulp(expected), "2^" + x[i] + ": expected " + expected + " but was "
                        + actual[i] + " (abs error " + error + ", rel error " + error / expected + ")");
            }
        }
    }

    @Test
    void exp2MapsZeroToOneVeryNegativeToZeroAndKeepsNaN() {
        float[] x = new float[Vectors.F32.length()];
        x[1] = -0f;
        x[2] = Float.NEGATIVE_INFINITY;
        x[3] = -200f;
        x[4] = Float.NaN;
        x[5] = -Float.MAX_VALUE;
        x[6] = -1f;
        float[] out = exp2(x);
        assertEquals(1f, out[0]);
        assertEquals(1f, out[1]);
        assertEquals(0f, out[2]);
        assertEquals(0f, out[3]);
        assertTrue(Float.isNaN(out[4]));
        assertEquals(0f, out[5]);
        assertEquals(0.5f, out[6]);
    }
}
