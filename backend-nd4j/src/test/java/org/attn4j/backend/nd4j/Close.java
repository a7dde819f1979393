package org.attn4j.backend.nd4j;

import static org.junit.jupiter.api.Assertions.fail;

import org.attn4j.api.DType;

/** Tolerance-based comparison whose failure names the index, both values and the errors. */
final class Close {

    private Close() {
    }

    /** @return the absolute tolerance used for {@code dtype}: about 100 ulps of 1 in F32, 1e-10 in F64 */
    static double tolerance(DType dtype) {
        return dtype == DType.F32 ? 2e-5 : 1e-10;
    }

    static void assertClose(String what, double[] expected, double[] actual, double tol) {
        if (expected.length != actual.length) {
            fail(what + ": expected " + expected.length + " values but got " + actual.length);
        }
        double worstAbs = 0;
        double worstRel = 0;
        int worst = -1;
        for (int i = 0; i < expected.length; i++) {
            double e = expected[i];
            double a = actual[i];
            if (Double.isNaN(e) || Double.isNaN(a) || Double.isInfinite(e) || Double.isInfinite(a)) {
                if (Double.compare(e, a) != 0 && !(Double.isNaN(e) && Double.isNaN(a))) {
                    fail(what + ": at index " + i + " expected " + e + " but got " + a);
                }
                continue;
            }
            double abs = Math.abs(e - a);
            double rel = abs / Math.max(Math.abs(e), Double.MIN_NORMAL);
            if (abs > tol * Math.max(1.0, Math.abs(e)) && abs > worstAbs) {
                worst = i;
            }
            worstAbs = Math.max(worstAbs, abs);
            worstRel = Math.max(worstRel, rel);
        }
        if (worst >= 0) {
            double e = expected[worst];
            double a = actual[worst];
            fail(what + ": at index " + worst + " expected " + e + " but got " + a + " (abs error "
                    + Math.abs(e - a) + ", rel error " + Math.abs(e - a) / Math.abs(e) + "; largest abs error "
                    + worstAbs + ", largest rel error " + worstRel + ", tolerance " + tol + ")");
        }
    }
}
