package org.attn4j.backend.ejml;

/**
 * Layer norm and RMS norm along the last axis, optionally of {@code x + residual}, in one pass over the rows, spread
 * over the pool: each row's sum (rounded to the operands' type, as {@code add} would) goes into the result, then its
 * statistics are taken in double precision and the result rounded once (an F32 row's on double vectors where the
 * Vector API is in use, {@link VectorNorms}, the same bits). No widened copy of anything is made.
 * <pre>
 *   layerNorm:  y = (s - mean(s)) / sqrt(var(s) + eps) · gamma + beta          s = x (+ residual), var biased
 *   rmsNorm:    y = s / sqrt(mean(s²) + eps) · weight
 * </pre>
 */
final class Norms {
    private Norms() {
    }

    /**
     * @param x {@code [rows, d]}, {@code float[]} or {@code double[]}, not modified
     * @param residual the same shape and type, or null; not modified
     * @param gamma {@code [d]} of the type, or null for ones
     * @param beta {@code [d]} of the type, or null for zeros (layer norm only)
     * @param eps added to the variance (or the mean square)
     * @param rms whether this is RMS norm (no centring, no beta)
     * @param out {@code [rows, d]} of the type, overwritten
     * @param d the row length
     * @param parallel the pool
     */
    static void run(Object x, Object residual, Object gamma, Object beta, double eps, boolean rms, Object out, int d,
                    Parallel parallel) {
        int rows = (x instanceof float[] f ? f.length : ((double[]) x).length) / d;
        parallel.forRange(rows, 4L * d, (from, to) -> {
            if (x instanceof float[] f) {
                for (int r = from; r < to; r++) {
                    rowF32(f, (float[]) residual, (float[]) gamma, (float[]) beta, eps, rms, (float[]) out, r * d, d);
                }
            } else {
                for (int r = from; r < to; r++) {
                    rowF64((double[]) x, (double[]) residual, (double[]) gamma, (double[]) beta, eps, rms,
                            (double[]) out, r * d, d);
                }
            }
        });
    }

    private static void rowF32(float[] x, float[] residual, float[] gamma, float[] beta, double eps, boolean rms,
                               float[] out, int at, int d) {
        if (residual == null) {
            System.arraycopy(x, at, out, at, d);
        } else {
            for (int j = 0; j < d; j++) {
                out[at + j] = x[at + j] + residual[at + j];
            }
        }
        double mean = rms ? 0 : sum(out, at, d) / d;
        double inv = 1.0 / Math.sqrt(squares(out, at, d, mean) / d + eps);
        int from = Simd.enabled() ? VectorNorms.normalize(out, at, d, mean, inv, gamma, beta) : 0;
        for (int j = from; j < d; j++) {
            double y = (out[at + j] - mean) * inv;
            if (gamma != null) {
                y *= gamma[j];
            }
            if (beta != null) {
                y += beta[j];
            }
            out[at + j] = (float) y;
        }
    }

    /**
     * {@code Σ_j v[at + j]}, {@code 0 ≤ j < d}, in double precision over four interleaved partial sums (element
     * {@code j} into sum {@code j mod 4}, the four added at the end), so that the additions do not wait on one
     * another; a float row's sum carries about {@code 1e-16} relative error in any order, far below its rounding.
     */
    private static double sum(float[] v, int at, int d) {
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int j = 0;
        for (; j + 4 <= d; j += 4) {
            s0 += v[at + j];
            s1 += v[at + j + 1];
            s2 += v[at + j + 2];
            s3 += v[at + j + 3];
        }
        for (; j < d; j++) {
            s0 += v[at + j];
        }
        return (s0 + s1) + (s2 + s3);
    }

    /** {@code Σ_j (v[at + j] - centre)²} in double precision, in the order of {@link #sum}. */
    private static double squares(float[] v, int at, int d, double centre) {
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int j = 0;
        for (; j + 4 <= d; j += 4) {
            double c0 = v[at + j] - centre;
            double c1 = v[at + j + 1] - centre;
            double c2 = v[at + j + 2] - centre;
            double c3 = v[at + j + 3] - centre;
            s0 += c0 * c0;
            s1 += c1 * c1;
            s2 += c2 * c2;
            s3 += c3 * c3;
        }
        for (; j < d; j++) {
            double c = v[at + j] - centre;
            s0 += c * c;
        }
        return (s0 + s1) + (s2 + s3);
    }

    private static void rowF64(double[] x, double[] residual, double[] gamma, double[] beta, double eps, boolean rms,
                               double[] out, int at, int d) {
        double sum = 0;
        for (int j = 0; j < d; j++) {
            double s = residual == null ? x[at + j] : x[at + j] + residual[at + j];
            out[at + j] = s;
            sum += s;
        }
        double mean = rms ? 0 : sum / d;
        double squares = 0;
        for (int j = 0; j < d; j++) {
            double c = out[at + j] - mean;
            squares += c * c;
        }
        double inv = 1.0 / Math.sqrt(squares / d + eps);
        for (int j = 0; j < d; j++) {
            double y = (out[at + j] - mean) * inv;
            if (gamma != null) {
                y *= gamma[j];
            }
            if (beta != null) {
                y += beta[j];
            }
            out[at + j] = y;
        }
    }
}
