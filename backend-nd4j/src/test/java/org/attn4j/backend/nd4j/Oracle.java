package org.attn4j.backend.nd4j;

import java.util.Random;
import org.attn4j.api.Shape;

/**
 * Seeded inputs and attention as a straightforward double-precision loop, written from the formula in the api's
 * javadoc, for the tests of this backend's blocked attention. Arrays are row-major.
 */
final class Oracle {

    private Oracle() {
    }

    static double[] random(long seed, int n) {
        Random r = new Random(seed);
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = r.nextGaussian();
        }
        return out;
    }

    /** Softmax of each slice along {@code axis}; an all -∞ slice gives zeros. */
    static double[] softmax(double[] x, Shape s, int axis) {
        int len = s.dim(axis);
        int inner = (int) s.stride(axis);
        int outer = (int) (s.size() / len / inner);
        double[] out = new double[x.length];
        for (int o = 0; o < outer; o++) {
            for (int in = 0; in < inner; in++) {
                double max = Double.NEGATIVE_INFINITY;
                for (int l = 0; l < len; l++) {
                    max = Math.max(max, x[(o * len + l) * inner + in]);
                }
                double sum = 0;
                for (int l = 0; l < len; l++) {
                    sum += max == Double.NEGATIVE_INFINITY ? 0 : Math.exp(x[(o * len + l) * inner + in] - max);
                }
                for (int l = 0; l < len; l++) {
                    int i = (o * len + l) * inner + in;
                    out[i] = max == Double.NEGATIVE_INFINITY ? 0 : Math.exp(x[i] - max) / sum;
                }
            }
        }
        return out;
    }

    /**
     * Attention as the api defines it, with {@code mask} already expanded to {@code [P, Lq, Lk]} booleans (or null)
     * and an optional dropout.
     */
    static double[][] attention(double[] q, double[] k, double[] v, int problems, int lq, int lk, int dk, int dv,
                                double scale, boolean[] allowed, boolean causal, double p, long seed) {
        double[] w = new double[problems * lq * lk];
        double[] out = new double[problems * lq * dv];
        for (int b = 0; b < problems; b++) {
            for (int i = 0; i < lq; i++) {
                double[] row = new double[lk];
                for (int j = 0; j < lk; j++) {
                    double s = 0;
                    for (int l = 0; l < dk; l++) {
                        s += q[(b * lq + i) * dk + l] * k[(b * lk + j) * dk + l];
                    }
                    boolean ok = (allowed == null || allowed[(b * lq + i) * lk + j]) && (!causal || j <= i);
                    row[j] = ok ? s * scale : Double.NEGATIVE_INFINITY;
                }
                double[] sm = softmax(row, Shape.of(lk), 0);
                for (int j = 0; j < lk; j++) {
                    int flat = (b * lq + i) * lk + j;
                    double keep = p == 0 ? 1 : org.attn4j.api.spi.Dropout.keep(seed, flat, p)
                            ? org.attn4j.api.spi.Dropout.survivorScale(p) : 0;
                    w[flat] = sm[j] * keep;
                }
                for (int c = 0; c < dv; c++) {
                    double s = 0;
                    for (int j = 0; j < lk; j++) {
                        s += w[(b * lq + i) * lk + j] * v[(b * lk + j) * dv + c];
                    }
                    out[(b * lq + i) * dv + c] = s;
                }
            }
        }
        return new double[][] {out, w};
    }
}
