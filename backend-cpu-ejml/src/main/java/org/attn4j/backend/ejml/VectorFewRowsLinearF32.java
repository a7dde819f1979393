package org.attn4j.backend.ejml;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code Ops.linear} in F32 for a few rows of input, on explicit SIMD vectors ({@code jdk.incubator.vector}):
 * <pre>
 *   out[i][j] = bias[j] + Σ_p x[i][p] · w[j][p]        x: [rows, in], w: [features, in], out: [rows, features]
 * </pre>
 * Each output is a dot product along the contiguous rows of {@code x} and {@code w}, computed four rows of
 * {@code x} by two rows of {@code w} at a time (8 vector accumulators, then one horizontal sum each), so the weight
 * is read where it lies. {@link VectorGemmF32} would first copy the whole weight into panels, which costs as much as
 * the product itself when there are only a few rows (a short sentence, a decoding step). A group shorter than four
 * rows repeats its last row and drops the extra results. Tasks are ranges of features. Only callers that
 * {@link Simd#enabled()} admitted may load this class.
 */
final class VectorFewRowsLinearF32 {
    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();
    /** Rows below which this kernel runs rather than {@link VectorGemmF32}. */
    static final int MAX_ROWS = 32;

    private VectorFewRowsLinearF32() {
    }

    /**
     * @param rows rows of {@code x}, fewer than {@link #MAX_ROWS}
     * @param features rows of {@code w}
     * @param in columns of {@code x} and {@code w}
     * @param x {@code [rows, in]}
     * @param w {@code [features, in]}
     * @param bias {@code [features]} or {@code null}
     * @param out {@code [rows, features]}; overwritten
     * @param parallel the pool
     */
    static void linear(int rows, int features, int in, float[] x, float[] w, float[] bias, float[] out,
                       Parallel parallel) {
        int pairs = (features + 1) / 2;
        parallel.forRange(pairs, 2L * rows * in, (from, to) -> {
            for (int pair = from; pair < to; pair++) {
                int j0 = 2 * pair;
                int j1 = Math.min(j0 + 1, features - 1);
                for (int i = 0; i < rows; i += 4) {
                    block(rows, features, in, x, w, bias, out, i, j0, j1);
                }
            }
        });
    }

    /** Outputs of rows {@code i … i+3} (clamped to the last row) and features {@code j0}, {@code j1}. */
    private static void block(int rows, int features, int in, float[] x, float[] w, float[] bias, float[] out,
                              int i, int j0, int j1) {
        int x0 = i * in;
        int x1 = Math.min(i + 1, rows - 1) * in;
        int x2 = Math.min(i + 2, rows - 1) * in;
        int x3 = Math.min(i + 3, rows - 1) * in;
        int w0 = j0 * in;
        int w1 = j1 * in;
        FloatVector a00 = FloatVector.zero(SPECIES);
        FloatVector a01 = a00;
        FloatVector a10 = a00;
        FloatVector a11 = a00;
        FloatVector a20 = a00;
        FloatVector a21 = a00;
        FloatVector a30 = a00;
        FloatVector a31 = a00;
        int p = 0;
        for (; p + LANES <= in; p += LANES) {
            FloatVector v0 = FloatVector.fromArray(SPECIES, w, w0 + p);
            FloatVector v1 = FloatVector.fromArray(SPECIES, w, w1 + p);
            FloatVector u = FloatVector.fromArray(SPECIES, x, x0 + p);
            a00 = u.fma(v0, a00);
            a01 = u.fma(v1, a01);
            u = FloatVector.fromArray(SPECIES, x, x1 + p);
            a10 = u.fma(v0, a10);
            a11 = u.fma(v1, a11);
            u = FloatVector.fromArray(SPECIES, x, x2 + p);
            a20 = u.fma(v0, a20);
            a21 = u.fma(v1, a21);
            u = FloatVector.fromArray(SPECIES, x, x3 + p);
            a30 = u.fma(v0, a30);
            a31 = u.fma(v1, a31);
        }
        float[] sums = {
            a00.reduceLanes(VectorOperators.ADD), a01.reduceLanes(VectorOperators.ADD),
            a10.reduceLanes(VectorOperators.ADD), a11.reduceLanes(VectorOperators.ADD),
            a20.reduceLanes(VectorOperators.ADD), a21.reduceLanes(VectorOperators.ADD),
            a30.reduceLanes(VectorOperators.ADD), a31.reduceLanes(VectorOperators.ADD),
        };
        int[] xs = {x0, x1, x2, x3};
        for (int r = 0; r < 4 && i + r < rows; r++) {
            float s0 = sums[2 * r];
            float s1 = sums[2 * r + 1];
            for (int q = p; q < in; q++) {
                s0 += x[xs[r] + q] * w[w0 + q];
                s1 += x[xs[r] + q] * w[w1 + q];
            }
            int o = (i + r) * features;
            out[o + j0] = bias == null ? s0 : s0 + bias[j0];
            out[o + j1] = bias == null ? s1 : s1 + bias[j1];
        }
    }
}
