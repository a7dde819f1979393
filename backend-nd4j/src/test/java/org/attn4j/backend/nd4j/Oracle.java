package org.attn4j.backend.nd4j;

import java.util.Random;
import org.attn4j.api.Shape;

/**
 * Straightforward double-precision loops that define the expected result of each op, written from the formulas in
 * the api's javadoc. Arrays are row-major.
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

    /** Maps a flat index of {@code out} to the flat index of {@code in} broadcast against it (numpy rules). */
    static int broadcastIndex(int flat, Shape out, Shape in) {
        int index = 0;
        int offset = out.rank() - in.rank();
        for (int axis = out.rank() - 1, rest = flat; axis >= 0; axis--) {
            int coordinate = rest % out.dim(axis);
            rest /= out.dim(axis);
            int inAxis = axis - offset;
            if (inAxis >= 0 && in.dim(inAxis) != 1) {
                index += coordinate * (int) in.stride(inAxis);
            }
        }
        return index;
    }

    /** @return {@code op(a)·op(b)} with broadcast batch dims; {@code out} is the result shape */
    static double[] matmul(double[] a, Shape as, double[] b, Shape bs, boolean ta, boolean tb, Shape out) {
        int m = out.dim(-2);
        int n = out.dim(-1);
        int k = ta ? as.dim(-2) : as.dim(-1);
        Shape batch = out.slice(0, out.rank() - 2);
        Shape aBatch = as.slice(0, as.rank() - 2);
        Shape bBatch = bs.slice(0, bs.rank() - 2);
        double[] z = new double[(int) out.size()];
        for (int p = 0; p < batch.size(); p++) {
            int ao = broadcastIndex(p, batch, aBatch) * as.dim(-2) * as.dim(-1);
            int bo = broadcastIndex(p, batch, bBatch) * bs.dim(-2) * bs.dim(-1);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int l = 0; l < k; l++) {
                        double x = ta ? a[ao + l * m + i] : a[ao + i * k + l];
                        double y = tb ? b[bo + j * k + l] : b[bo + l * n + j];
                        s += x * y;
                    }
                    z[p * m * n + i * n + j] = s;
                }
            }
        }
        return z;
    }

    /** One reduction over {@code axis}: the values of each slice in order, folded by {@code kind}. */
    static double[] reduce(double[] x, Shape s, int axis, String kind) {
        int len = s.dim(axis);
        int inner = (int) s.stride(axis);
        int outer = (int) (s.size() / len / inner);
        double[] out = new double[outer * inner];
        for (int o = 0; o < outer; o++) {
            for (int in = 0; in < inner; in++) {
                double[] slice = new double[len];
                for (int l = 0; l < len; l++) {
                    slice[l] = x[(o * len + l) * inner + in];
                }
                out[o * inner + in] = fold(slice, kind);
            }
        }
        return out;
    }

    private static double fold(double[] v, String kind) {
        double sum = 0;
        double max = Double.NEGATIVE_INFINITY;
        for (double d : v) {
            sum += d;
            max = Double.isNaN(d) || Double.isNaN(max) ? Double.NaN : Math.max(max, d);
        }
        double mean = sum / v.length;
        double var = 0;
        for (double d : v) {
            var += (d - mean) * (d - mean);
        }
        return switch (kind) {
            case "max" -> max;
            case "sum" -> sum;
            case "mean" -> mean;
            case "variance" -> var / v.length;
            default -> throw new IllegalArgumentException(kind);
        };
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

    /** The Maclaurin series of erf, accurate to about 1e-12 for the |x| &lt; 5 of Gaussian test inputs. */
    static double erf(double x) {
        double term = x;
        double sum = x;
        for (int n = 1; Math.abs(term) > 1e-17 * Math.abs(sum) || n < 3; n++) {
            term *= -x * x / n;
            sum += term / (2 * n + 1);
        }
        return 2 / Math.sqrt(Math.PI) * sum;
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
