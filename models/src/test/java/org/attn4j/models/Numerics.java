package org.attn4j.models;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.ProviderReport;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.HostTensor;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The backends and dtypes the layer tests run on, and their tolerance table.
 *
 * <p>Every available backend found by {@link Backends#describe()} runs every test in F32 and, if it supports it,
 * in F64. A value passes when {@code |actual - expected| <= atol + rtol·|expected|}:
 * <ul>
 *   <li>F64: atol = rtol = 1e-10. The goldens are PyTorch float64; a layer composes a few dozen ops whose rounding
 *       errors (~1e-16 each) grow through sums of at most 129 terms and layer norm's division by the standard
 *       deviation. Measured on EJML: every case passes at 1e-14, so 1e-10 leaves four orders of margin for other
 *       summation orders while still catching any wrong formula.</li>
 *   <li>F32: atol = rtol = 1e-5. Inputs and weights are rounded to float (relative 6e-8) and every op rounds
 *       again. Measured on EJML: the largest error over all cases is 8.4e-7 absolute (a two-layer pre-norm GELU
 *       encoder), so 1e-5 leaves a factor of ten for backends that sum in another order or use fused kernels.</li>
 * </ul>
 */
final class Numerics {

    private Numerics() {
    }

    /** A backend and the dtype a test runs in. */
    record Target(Backend backend, DType dtype) {
        double atol() {
            return dtype == DType.F64 ? 1e-10 : 1e-5;
        }

        double rtol() {
            return atol();
        }

        @Override
        public String toString() {
            return backend.name() + "/" + dtype;
        }
    }

    static List<Target> targets() {
        List<Target> out = new ArrayList<>();
        for (ProviderReport r : Backends.describe()) {
            if (!r.availability().available()) {
                continue;
            }
            Backend b = Backends.load(r.name());
            out.add(new Target(b, DType.F32));
            if (r.capabilities().supports(DType.F64)) {
                out.add(new Target(b, DType.F64));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no usable backend on the test class path: " + Backends.describe());
        }
        return out;
    }

    /**
     * @param cases golden cases
     * @return every (target, case) pair
     */
    static Stream<Arguments> across(List<Goldens.Case> cases) {
        return targets().stream().flatMap(t -> cases.stream().map(c -> Arguments.of(t, c)));
    }

    static void assertClose(String what, Target target, HostTensor expected, Tensor actual) {
        assertEquals(expected.shape(), actual.shape(), what + ": shape");
        assertClose(what, target, expected.data(), actual.toDoubleArray());
    }

    static void assertClose(String what, Target target, double[] expected, double[] actual) {
        assertEquals(expected.length, actual.length, what + ": length");
        double worstAbs = 0;
        int worst = -1;
        for (int i = 0; i < expected.length; i++) {
            double e = expected[i];
            double a = actual[i];
            if (Double.isNaN(e) || Double.isInfinite(e)) {
                if (Double.compare(e, a) != 0) {
                    fail(what + " on " + target + ": index " + i + " expected " + e + " actual " + a);
                }
                continue;
            }
            double abs = Math.abs(a - e);
            if (!(abs <= target.atol() + target.rtol() * Math.abs(e)) && (worst < 0 || !(abs <= worstAbs))) {
                worst = i;
                worstAbs = abs;
            }
        }
        if (worst >= 0) {
            double e = expected[worst];
            double a = actual[worst];
            fail(String.format("%s on %s: index %d expected %.17g actual %.17g abs error %.3g rel error %.3g"
                    + " (atol %.1g, rtol %.1g)", what, target, worst, e, a, Math.abs(a - e),
                    Math.abs(a - e) / Math.abs(e), target.atol(), target.rtol()));
        }
    }
}
