package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class FastExpTest {

    @Test
    void fastExpIsWithinTwoUlpOfMathExpOnTheSoftmaxRange() {
        Random random = new Random(5);
        for (int i = 0; i < 200_000; i++) {
            float x = i < 1000 ? -i * 0.0871f : -87f * random.nextFloat();
            float expected = (float) Math.exp(x);
            float actual = FastExp.exp(x);
            float ulp = Math.ulp(expected);
            assertTrue(Math.abs(actual - expected) <= 2 * ulp, "exp(" + x + "): expected " + expected + " but was "
                    + actual + " (abs error " + Math.abs(actual - expected) + ", rel error "
                    + Math.abs(actual - expected) / expected + ")");
        }
    }

    @Test
    void fastExpMapsZeroToOneMinusInfinityToZeroAndKeepsNaN() {
        assertEquals(1f, FastExp.exp(0f));
        assertEquals(1f, FastExp.exp(-0f));
        assertEquals(0f, FastExp.exp(Float.NEGATIVE_INFINITY));
        assertEquals(0f, FastExp.exp(-100f));
        assertTrue(Float.isNaN(FastExp.exp(Float.NaN)));
    }
}
