package org.attn4j.backend.ejml;

import org.attn4j.api.spi.AbstractOps.Reduction;

/**
 * Kernels that work along one axis of a tensor viewed as {@code [outer, n, inner]} (row-major), in double
 * precision: max, sum, mean, variance and softmax.
 */
final class Reductions {

    private Reductions() {
    }

    /**
     * @param kind the reduction
     * @param x {@code [outer, n, inner]}, not modified
     * @param outer the product of the dims before the axis
     * @param n the size of the axis
     * @param inner the product of the dims after the axis
     * @return {@code [outer, inner]}: max (NaN if any NaN), sum, mean, or population variance {@code Σ(x-mean)²/n}
     */
    static double[] reduce(Reduction kind, double[] x, int outer, int n, int inner) {
        double[] out = new double[outer * inner];
        for (int o = 0; o < outer; o++) {
            for (int in = 0; in < inner; in++) {
                int base = o * n * inner + in;
                out[o * inner + in] = switch (kind) {
                    case MAX -> max(x, base, inner, n);
                    case SUM -> sum(x, base, inner, n);
                    case MEAN -> sum(x, base, inner, n) / n;
                    case VARIANCE -> variance(x, base, inner, n, sum(x, base, inner, n) / n);
                };
            }
        }
        return out;
    }

    private static double max(double[] x, int base, int step, int n) {
        double m = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < n; j++) {
            m = Math.max(m, x[base + j * step]);
        }
        return m;
    }

    private static double sum(double[] x, int base, int step, int n) {
        double s = 0;
        for (int j = 0; j < n; j++) {
            s += x[base + j * step];
        }
        return s;
    }

    private static double variance(double[] x, int base, int step, int n, double mean) {
        double s = 0;
        for (int j = 0; j < n; j++) {
            double d = x[base + j * step] - mean;
            s += d * d;
        }
        return s / n;
    }

    /**
     * Stable softmax along the axis: {@code e^(x - max) / Σ e^(x - max)}. A slice of only {@code -∞} gives zeros;
     * a NaN anywhere in a slice gives NaN everywhere in it.
     *
     * @param x {@code [outer, n, inner]}, not modified
     * @param outer the product of the dims before the axis
     * @param n the size of the axis
     * @param inner the product of the dims after the axis
     * @return a new array of the same layout
     */
    static double[] softmax(double[] x, int outer, int n, int inner) {
        double[] out = new double[x.length];
        for (int o = 0; o < outer; o++) {
            for (int in = 0; in < inner; in++) {
                int base = o * n * inner + in;
                double m = max(x, base, inner, n);
                if (m == Double.NEGATIVE_INFINITY) {
                    continue;
                }
                double s = 0;
                for (int j = 0; j < n; j++) {
                    double e = Math.exp(x[base + j * inner] - m);
                    out[base + j * inner] = e;
                    s += e;
                }
                double inv = 1.0 / s;
                for (int j = 0; j < n; j++) {
                    out[base + j * inner] *= inv;
                }
            }
        }
        return out;
    }
}
