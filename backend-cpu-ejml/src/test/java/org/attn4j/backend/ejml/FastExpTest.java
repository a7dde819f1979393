package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class FastExpTest {

    private static float[] exp(float[] x, float[] shift) {
        float[] out = new float[x.length];
        FastExp.exp(x, shift, out, new float[x.length], x.length);
        return out;
    }

    @Test
    void fastExpIsWithinOneUlpOfMathExpOnTheSoftmaxRange() {
        Random random = new Random(5);
        for (int round = 0; round < 2000; round++) {
            float[] x = new float[128];
            float[] shift = new float[128];
            for (int i = 0; i < x.length; i++) {
                x[i] = round == 0 ? -i * 0.69f : 10 * random.nextFloat() - 5;
                shift[i] = round == 0 ? 0 : x[i] + 87 * random.nextFloat();
            }
            float[] actual = exp(x, shift);
            for (int i = 0; i < x.length; i++) {
                float expected = (float) Math.exp(x[i] - shift[i]);
                float error = Math.abs(actual[i] - expected);
                assertTrue(error <= Math.ulp(expected), "exp(" + x[i] + " - " + shift[i] + "): expected " + expected
                        + " but was " + actual[i] + " (abs error " + error + ", rel error " + error / expected + ")");
            }
        }
    }

    @Test
    void fastExpMapsZeroToOneMinusInfinityToZeroAndKeepsNaN() {
        float[] x = {0f, -0f, Float.NEGATIVE_INFINITY, -100f, Float.NaN, 3f};
        float[] shift = {0f, 0f, 0f, 0f, 0f, Float.NaN};
        float[] out = exp(x, shift);
        assertEquals(1f, out[0]);
        assertEquals(1f, out[1]);
        assertEquals(0f, out[2]);
        assertEquals(0f, out[3]);
        assertTrue(Float.isNaN(out[4]));
        assertTrue(Float.isNaN(out[5]));
    }
}
