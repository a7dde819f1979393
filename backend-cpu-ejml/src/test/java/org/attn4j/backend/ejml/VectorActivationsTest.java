package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.attn4j.api.Activation;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The F32 activations of the SIMD epilogue against double-precision references rounded once: within a few ulp on a
 * dense grid of [-30, 30], tails included (the references take {@code Φ(x) = ½·erfc(|x|/√2)} from a continued
 * fraction and {@code σ} as {@code 1/(1 + e^-t)}, where {@code 1 + erf} and {@code 1 + tanh} would cancel; below
 * 1e-36 the comparison is absolute, 3e-37, since the F32 exponential stops at 1.8e-38), and the same answers at zeros,
 * infinities and NaN as the backend's double-precision ops. Runs only where the tests resolve
 * {@code jdk.incubator.vector}.
 */
class VectorActivationsTest {
    private static final float[] SPECIAL = {0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN,
        Float.MIN_VALUE, -Float.MIN_VALUE, 1e-30f, -1e-30f, 1e30f, -1e30f, 88.7f, -88.7f, 100f, -100f};

    @BeforeEach
    void needsTheVectorApi() {
        assumeTrue(Simd.enabled(), "the SIMD kernels are off in this run");
    }

    /** Within 4 ulp on [-9, 30]; 6 at worst in the far lower tail (values below 1e-18), hence 8. */
    @Test
    void geluIsWithinEightUlpOfTheExactGelu() {
        assertWithin(Activation.GELU, 8);
    }

    /**
     * Its exponent's argument {@code t = -2·√(2/π)·(x + 0.044715·x³)} is formed in F32 (as every F32 implementation
     * forms it), whose five roundings alone move {@code e^t} by up to about {@code 2.5·|t|} ulp: {@code 3·|t|} more
     * is allowed.
     */
    @Test
    void tanhGeluIsWithinFourUlpOfItsDoublePrecisionValueBesidesItsArgumentsRounding() {
        assertWithin(Activation.GELU_TANH, 4);
    }

    @Test
    void siluIsWithinFourUlpOfItsDoublePrecisionValue() {
        assertWithin(Activation.SILU, 4);
    }

    @Test
    void reluIsExact() {
        assertWithin(Activation.RELU, 0);
    }

    private static void assertWithin(Activation act, int ulps) {
        int n = 200_001;
        float[] x = new float[n + SPECIAL.length];
        for (int i = 0; i < n; i++) {
            x[i] = -30f + 60f * i / (n - 1);
        }
        System.arraycopy(SPECIAL, 0, x, n, SPECIAL.length);
        float[] y = x.clone();
        Epilogues.f32(act, y, 0, y.length, 1, y.length, null, 0, null, 0, 0, 0, null, 0, 0);
        double worst = 0;
        int worstAt = -1;
        for (int i = 0; i < x.length; i++) {
            float expected = (float) reference(act, x[i]);
            float actual = y[i];
            if (Float.isNaN(expected) || Float.isInfinite(expected)) {
                assertTrue(Float.compare(expected, actual) == 0 || (Float.isNaN(expected) && Float.isNaN(actual)),
                        act + "(" + x[i] + "): expected " + expected + " but was " + actual);
                continue;
            }
            double error = Math.abs((double) actual - expected);
            if (Math.abs(expected) < 1e-36) {
                assertTrue(error <= 3e-37, act + "(" + x[i] + "): expected " + expected + " but was " + actual
                        + " (abs error " + error + ")");
                continue;
            }
            double inUlps = error / Math.ulp(expected);
            if (act == Activation.GELU_TANH) {
                double t = 2 * Math.sqrt(2 / Math.PI) * (x[i] + 0.044715 * x[i] * x[i] * x[i]);
                inUlps -= 3 * Math.abs(t);
            }
            if (inUlps > worst) {
                worst = inUlps;
                worstAt = i;
            }
        }
        assertTrue(worst <= ulps, act + " is " + worst + " ulp off at x = " + (worstAt < 0 ? "-" : x[worstAt])
                + " (expected " + (worstAt < 0 ? "-" : reference(act, x[worstAt])) + ", was "
                + (worstAt < 0 ? "-" : y[worstAt]) + "); at most " + ulps + " allowed");
    }

    /** The activation in double precision without cancellation in the lower tails; specials as the backend's. */
    private static double reference(Activation act, double x) {
        if (Double.isNaN(x) || Double.isInfinite(x) || x == 0) {
            return Epilogues.activate(act, x);
        }
        return switch (act) {
            case GELU -> x < 0 ? x * 0.5 * erfc(-x / Math.sqrt(2)) : Epilogues.activate(act, x);
            case GELU_TANH -> x / (1 + Math.exp(-2 * Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
            default -> Epilogues.activate(act, x);
        };
    }

    /** {@code erfc(z)} for {@code z > 0}: {@code 1 - erf} below 2, the continued fraction of Laplace above. */
    private static double erfc(double z) {
        if (z < 2) {
            return 1 - org.attn4j.api.spi.Erf.erf(z);
        }
        double f = z;
        for (int k = 200; k >= 1; k--) {
            f = z + (k / 2.0) / f;
        }
        return Math.exp(-z * z) / Math.sqrt(Math.PI) / f;
    }
}
