package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * Test helpers: seeded inputs, multi-index arithmetic written independently of the backend, and tolerance
 * asserts whose message names the index, both values and the absolute and relative error.
 */
final class Oracle {

    private Oracle() {
    }

    /**
     * @param dtype the precision the values must be representable in
     * @param n how many
     * @param random the seeded source
     * @return uniform values in [-2, 2), rounded to float for F32 so that the oracle sees the tensor's inputs
     */
    static double[] values(DType dtype, int n, Random random) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            double x = 4 * random.nextDouble() - 2;
            v[i] = dtype == DType.F32 ? (float) x : x;
        }
        return v;
    }

    static Tensor tensor(Scope scope, DType dtype, double[] values, int... dims) {
        return scope.tensor(values, Shape.of(dims), dtype);
    }

    /** @return the multi-index of a flat row-major index */
    static int[] unravel(long flat, int[] dims) {
        int[] index = new int[dims.length];
        for (int d = dims.length - 1; d >= 0; d--) {
            index[d] = (int) (flat % dims[d]);
            flat /= dims[d];
        }
        return index;
    }

    /**
     * @param index an index into a shape of rank at least {@code dims.length}
     * @param dims a shape that broadcasts to it (aligned at the last axis)
     * @return the flat index into {@code dims}, with broadcast axes pinned to 0
     */
    static int ravelBroadcast(int[] index, int[] dims) {
        int flat = 0;
        int shift = index.length - dims.length;
        for (int d = 0; d < dims.length; d++) {
            flat = flat * dims[d] + (dims[d] == 1 ? 0 : index[d + shift]);
        }
        return flat;
    }

    static long size(int... dims) {
        long n = 1;
        for (int d : dims) {
            n *= d;
        }
        return n;
    }

    /** The tolerance of a comparison against a double-precision oracle. */
    record Tolerance(double absolute, double relative) {
        static Tolerance of(DType dtype) {
            return dtype == DType.F32 ? new Tolerance(3e-5, 3e-5) : new Tolerance(1e-12, 1e-12);
        }
    }

    static void assertClose(String what, double[] expected, Tensor actual, Tolerance tolerance) {
        assertClose(what, expected, actual.toDoubleArray(), tolerance);
    }

    /**
     * Passes when every element satisfies {@code |a - e| <= abs + rel·|e|}, or both are NaN, or both are the same
     * infinity.
     */
    static void assertClose(String what, double[] expected, double[] actual, Tolerance tolerance) {
        if (expected.length != actual.length) {
            fail(what + ": expected " + expected.length + " elements but got " + actual.length);
        }
        for (int i = 0; i < expected.length; i++) {
            double e = expected[i];
            double a = actual[i];
            boolean same = Double.isNaN(e) ? Double.isNaN(a) : Double.isInfinite(e) ? a == e
                    : Math.abs(a - e) <= tolerance.absolute() + tolerance.relative() * Math.abs(e);
            if (!same) {
                double abs = Math.abs(a - e);
                fail(what + ": mismatch at index " + i + ": expected " + e + " but was " + a + " (abs error " + abs
                        + ", rel error " + abs / Math.abs(e) + ", tolerance " + tolerance + ")");
            }
        }
    }
}
