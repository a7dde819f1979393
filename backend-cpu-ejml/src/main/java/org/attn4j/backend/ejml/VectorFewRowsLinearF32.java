package org.attn4j.backend.ejml;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code Ops.linear} in F32 for a few rows of input, on explicit SIMD vectors ({@code jdk.incubator.vector}):
 * <pre>
 *   out[i][j] = bias[j] + Σ_p x[i][p] · w[j][p]        x: [rows, in], w: [features, in], out: [rows, features]
 * </pre>
 * Each output is a dot product along the contiguous rows of {@code x} and {@code w}: four rows of {@code x} by two
 * rows of {@code w} at a time (8 vector accumulators, then one horizontal sum each), and the rows past the last
 * group of four one at a time by {@link VectorDecodingF32#scores}. The weight is read where it lies;
 * {@link VectorGemmF32} would first copy the whole weight into panels, which costs as much as the product itself
 * when there are only a few rows (a short sentence, a decoding step). Tasks are ranges of features. Only callers
 * that {@link Simd#enabled()} admitted may load this class.
 */
final class VectorFewRowsLinearF32 {
    private static final VectorSpecies<Float> SPECIES = Vectors.F32;
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
        int grouped = rows - rows % 4;
        int pairs = (features + 1) / 2;
        parallel.forRange(pairs, 2L * rows * in, (from, to) -> {
            for (int pair = from; pair < to; pair++) {
                int j0 = 2 * pair;
                int j1 = Math.min(j0 + 1, features - 1);
                for (int i = 0; i < grouped; i += 4) {
                    block(features, in, x, w, bias, out, i, j0, j1);
                }
            }
            int j0 = 2 * from;
            int n = Math.min(2 * to, features) - j0;
            for (int i = grouped; i < rows; i++) {
                int o = i * features + j0;
                VectorDecodingF32.scores(x, i * in, w, j0 * in, in, out, o, n);
                if (bias != null) {
                    for (int j = 0; j < n; j++) {
                        out[o + j] += bias[j0 + j];
                    }
                }
            }
        });
    }

    /** Outputs of rows {@code i … i+3} and features {@code j0}, {@code j1}. */
    private static void block(int features, int in, float[] x, float[] w, float[] bias, float[] out, int i, int j0,
                              int j1) {
        int x0 = i * in;
        int x1 = x0 + in;
        int x2 = x1 + in;
        int x3 = x2 + in;
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
        float s00 = 0;
        float s01 = 0;
        float s10 = 0;
        float s11 = 0;
        float s20 = 0;
        float s21 = 0;
        float s30 = 0;
        float s31 = 0;
        int vectorEnd = in - in % LANES;
        int lastVector = vectorEnd - LANES;
        for (int p = 0; p < vectorEnd; p += LANES) {
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
            if (p == lastVector) {
                s00 = a00.reduceLanes(VectorOperators.ADD);
                s01 = a01.reduceLanes(VectorOperators.ADD);
                s10 = a10.reduceLanes(VectorOperators.ADD);
                s11 = a11.reduceLanes(VectorOperators.ADD);
                s20 = a20.reduceLanes(VectorOperators.ADD);
                s21 = a21.reduceLanes(VectorOperators.ADD);
                s30 = a30.reduceLanes(VectorOperators.ADD);
                s31 = a31.reduceLanes(VectorOperators.ADD);
            }
        }
        for (int p = vectorEnd; p < in; p++) {
            float v0 = w[w0 + p];
            float v1 = w[w1 + p];
            s00 += x[x0 + p] * v0;
            s01 += x[x0 + p] * v1;
            s10 += x[x1 + p] * v0;
            s11 += x[x1 + p] * v1;
            s20 += x[x2 + p] * v0;
            s21 += x[x2 + p] * v1;
            s30 += x[x3 + p] * v0;
            s31 += x[x3 + p] * v1;
        }
        store(out, i * features, j0, j1, s00, s01, bias);
        store(out, (i + 1) * features, j0, j1, s10, s11, bias);
        store(out, (i + 2) * features, j0, j1, s20, s21, bias);
        store(out, (i + 3) * features, j0, j1, s30, s31, bias);
    }

    /** {@code out[row + j] = s (+ bias[j])} for the two features of a block. */
    private static void store(float[] out, int row, int j0, int j1, float s0, float s1, float[] bias) {
        out[row + j0] = bias == null ? s0 : s0 + bias[j0];
        out[row + j1] = bias == null ? s1 : s1 + bias[j1];
    }
}
