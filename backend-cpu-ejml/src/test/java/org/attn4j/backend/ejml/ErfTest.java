package org.attn4j.backend.ejml;

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

    private static void assertRelative(double x, double bound) {
        double expected = exactErf(x).doubleValue();
        double actual = Erf.erf(x);
        double rel = Math.abs(actual - expected) / Math.abs(expected);
        assertTrue(rel < bound, "erf(" + x + "): expected " + expected + " but was " + actual + " (abs error "
                + Math.abs(actual - expected) + ", rel error " + rel + ")");
    }

    @Test
    void erfHasRelativeErrorBelowOneInTenToTheFifteen() {
        double[] special = {1e-300, 1e-10, 0.01, 0.5, 1, 1.5, 2, 2.5, 2.999999, 3, 3.000001, 4, 5, 5.9, 5.999999};
        for (double x : special) {
            assertRelative(x, 1e-15);
            assertRelative(-x, 1e-15);
        }
        Random random = new Random(3);
        for (int i = 0; i < 400; i++) {
            assertRelative(12 * random.nextDouble() - 6, 1e-15);
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

    @Test
    void erfcKeepsTheTailAccurate() {
        for (double x = 3; x < 10; x += 0.37) {
            double expected = BigDecimal.ONE.subtract(exactErf(x), MC).doubleValue();
            double actual = Erf.erfc(x);
            double rel = Math.abs(actual - expected) / expected;
            assertTrue(rel < 1e-14, "erfc(" + x + "): expected " + expected + " but was " + actual
                    + " (rel error " + rel + ")");
        }
    }
}
