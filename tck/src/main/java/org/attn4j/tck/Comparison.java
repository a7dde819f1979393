package org.attn4j.tck;

import java.util.Arrays;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.models.parameters.HostTensor;

/** Element-by-element comparison of an actual array with the expected one under a {@link Tolerance}. */
final class Comparison {

    private Comparison() {
    }

    /**
     * @param what names the op, the case, the dtype, the backend and the output, for the failure message
     * @param expected the reference
     * @param actual the result under test
     * @param dtype the element type of the run
     * @param tolerance the allowed error
     * @return as {@link #compare(String, Shape, double[], Shape, double[], DType, Tolerance)}
     */
    static Measurement compare(String what, HostTensor expected, HostTensor actual, DType dtype, Tolerance tolerance) {
        return compare(what, expected.shape(), expected.data(), actual.shape(), actual.data(), dtype, tolerance);
    }

    /**
     * @param what names the op, the case, the dtype, the backend and the output, for the failure message
     * @param expectedShape the expected shape
     * @param expected expected values, row-major; rounded to F32 first when {@code dtype} is F32
     * @param actualShape the shape the backend returned
     * @param actual the backend's values, row-major
     * @param dtype the element type of the run
     * @param tolerance the allowed error
     * @return the largest errors and, on a mismatch, a message naming the first bad index and the worst one
     */
    static Measurement compare(String what, Shape expectedShape, double[] expected, Shape actualShape, double[] actual,
                               DType dtype, Tolerance tolerance) {
        if (!expectedShape.equals(actualShape)) {
            return Measurement.failed(what + ": shape expected " + expectedShape + ", actual " + actualShape);
        }
        double maxAbs = 0;
        double maxRel = 0;
        double scale = 0;
        double used = 0;
        int worst = -1;
        int first = -1;
        int bad = 0;
        for (int i = 0; i < expected.length; i++) {
            double e = dtype == DType.F32 ? (float) expected[i] : expected[i];
            double a = actual[i];
            if (!tolerance.accepts(e, a)) {
                bad++;
                if (first < 0) {
                    first = i;
                }
            }
            used = Math.max(used, tolerance.used(e, a));
            if (Double.isFinite(e)) {
                scale = Math.max(scale, Math.abs(e));
                double abs = Double.isNaN(a) ? Double.POSITIVE_INFINITY : Math.abs(a - e);
                if (!(abs <= maxAbs)) {
                    maxAbs = abs;
                    worst = i;
                }
                if (Math.abs(e) > tolerance.abs() && Math.abs(e) > 0) {
                    maxRel = Math.max(maxRel, abs / Math.abs(e));
                }
            }
        }
        double toScale = scale > 0 ? maxAbs / scale : maxAbs;
        if (bad == 0) {
            return new Measurement(maxAbs, maxRel, toScale, used, null, null, null);
        }
        StringBuilder m = new StringBuilder(what).append(": ").append(bad).append(" of ").append(expected.length)
                .append(" elements outside ").append(tolerance.rule()).append(" (the output's largest |expected| is ")
                .append(scale).append("); first at ")
                .append(describe(first, expectedShape, expected, actual, dtype));
        if (worst >= 0 && worst != first) {
            m.append("; largest abs error at ").append(describe(worst, expectedShape, expected, actual, dtype));
        }
        return new Measurement(maxAbs, maxRel, toScale, used, m.toString(), null, null);
    }

    private static String describe(int i, Shape shape, double[] expected, double[] actual, DType dtype) {
        double e = dtype == DType.F32 ? (float) expected[i] : expected[i];
        double a = actual[i];
        double abs = Math.abs(a - e);
        double rel = e != 0 || Double.isNaN(abs) ? abs / Math.abs(e) : abs == 0 ? 0.0 : Double.POSITIVE_INFINITY;
        return "index " + i + " " + Arrays.toString(unravel(i, shape)) + ": expected " + e + ", actual " + a
                + ", abs error " + abs + ", rel error " + rel;
    }

    static int[] unravel(long flat, Shape shape) {
        int[] index = new int[shape.rank()];
        long rest = flat;
        for (int axis = shape.rank() - 1; axis >= 0; axis--) {
            index[axis] = (int) (rest % shape.dim(axis));
            rest /= shape.dim(axis);
        }
        return index;
    }
}
