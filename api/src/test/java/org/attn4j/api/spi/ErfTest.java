package org.attn4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ErfTest {
    private static final MathContext MC = new MathContext(150);
    private static final BigDecimal PI =
            new BigDecimal("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196");

    /** {@code erf(x) = 2/√π Σ (-1)ⁿ x^{2n+1} / (n!(2n+1))} in 150-digit arithmetic, enough for |x| ≤ 10. */
    private static BigDecimal exactErf(double value) {
        BigDecimal x = new BigDecimal(value);
        BigDecimal x2 = x.multiply(x, MC);
        BigDecimal power = x;
        BigDecimal factorial = BigDecimal.ONE;
        BigDecimal sum = BigDecimal.ZERO;
        BigDecimal eps = new BigDecimal("1e-100");
        for (int n = 0; ; n++) {
            if (n > 0) {
                power = power.multiply(x2, MC).negate();
                factorial = factorial.multiply(BigDecimal.valueOf(n));
            }
            BigDecimal term = power.divide(factorial.multiply(BigDecimal.valueOf(2L * n + 1)), MC);
            sum = sum.add(term, MC);
            if (n > 10 && term.abs().compareTo(eps) < 0) {
                break;
            }
        }
        return sum.multiply(BigDecimal.valueOf(2), MC).divide(PI.sqrt(MC), MC);
    }

    /** Passes when {@code erf(x)} is within two ulp of the exact value, which implies a relative error below 5e-16. */
    private static void assertWithinTwoUlp(double x) {
        double expected = exactErf(x).doubleValue();
        double actual = Erf.erf(x);
        double abs = Math.abs(actual - expected);
        assertTrue(abs <= 2 * Math.ulp(expected), "erf(" + x + "): expected " + expected + " but was " + actual
                + " (abs error " + abs + ", rel error " + abs / Math.abs(expected) + ")");
    }

    @Test
    void erfIsWithinTwoUlpOnBothSidesOfEveryPieceAndAtRandomPoints() {
        double[] special = {1e-300, 1e-10, 0.01, 0.5, 1, 5.999999};
        for (double x : special) {
            assertWithinTwoUlp(x);
            assertWithinTwoUlp(-x);
        }
        for (int k = 1; k < 96; k++) {
            assertWithinTwoUlp(k / 16.0);
            assertWithinTwoUlp(Math.nextDown(k / 16.0));
        }
        Random random = new Random(3);
        for (int i = 0; i < 400; i++) {
            assertWithinTwoUlp(12 * random.nextDouble() - 6);
        }
    }

    @Test
    void erfSaturatesAndPropagatesNaN() {
        assertEquals(0.0, Erf.erf(0.0));
        assertEquals(1.0, Erf.erf(6.5));
        assertEquals(-1.0, Erf.erf(Double.NEGATIVE_INFINITY));
        assertEquals(1.0, Erf.erf(Double.POSITIVE_INFINITY));
        assertTrue(Double.isNaN(Erf.erf(Double.NaN)));
    }
}
