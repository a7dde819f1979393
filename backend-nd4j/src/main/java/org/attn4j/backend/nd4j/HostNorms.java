package org.attn4j.backend.nd4j;

import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Layer norm and RMS norm over the last dim, each with an optional residual added first, in one pass per row of
 * plain Java loops over the native buffers (bulk copies of a block of rows at a time). Each row is normalised in
 * F64 whatever the dtype, so that the squares of F32 entries past 1.8e19 do not overflow; gamma, beta and the weight
 * apply in the dtype afterwards:
 * <pre>
 *   s = x + residual                         in the dtype, as the composition's add
 *   layer norm:  y = (float) ((s - mean) / sqrt(var + eps)) · gamma + beta     mean, var (population) in F64
 *   RMS norm:    y = (float) (s / sqrt(mean(s²) + eps)) · weight
 * </pre>
 * libnd4j would need seven to nine calls (casts, a mean, a subtraction, squares, a second mean, a square root, a
 * division, the affine pair), each with its launch and most with an allocation; one pass on the calling thread
 * costs less at every size a transformer feeds it (the README has the profile). The composed form and this one
 * differ only in the order of the F64 sums and in multiplying by {@code 1/std} instead of dividing by it, a rounding
 * in F64 that the F32 result almost never shows.
 */
final class HostNorms {
    /** Elements copied to the heap per block of rows. */
    private static final int BLOCK = 1 << 15;

    private HostNorms() {
    }

    /**
     * @param x {@code [..., d]}, C-ordered; not modified
     * @param residual x's shape, or null; not modified
     * @param gamma {@code [d]} or null: the weight of RMS norm, gamma of layer norm; not modified
     * @param beta {@code [d]} or null (layer norm only); not modified
     * @param eps added to the variance or the mean square
     * @param rms RMS norm instead of layer norm
     * @param dtype the element type of every operand
     * @param shape x's shape
     * @param t receives the intermediates
     * @return a new array of x's shape
     */
    static INDArray normalise(INDArray x, INDArray residual, INDArray gamma, INDArray beta, double eps, boolean rms,
                              DType dtype, Shape shape, Intermediates t) {
        int d = shape.dim(-1);
        int rows = Math.toIntExact(shape.size() / d);
        INDArray out = t.add(NdArrays.uninitialized(dtype, shape));
        int rowsPerBlock = Math.max(1, BLOCK / d);
        if (dtype == DType.F64) {
            double[] g = gamma == null ? null : new double[d];
            double[] b = beta == null ? null : new double[d];
            if (g != null) {
                doubles(gamma).get(g);
            }
            if (b != null) {
                doubles(beta).get(b);
            }
            DoubleBuffer in = doubles(x);
            DoubleBuffer add = residual == null ? null : doubles(residual);
            DoubleBuffer to = doubles(out);
            double[] block = new double[Math.min(rows, rowsPerBlock) * d];
            double[] other = add == null ? null : new double[block.length];
            for (int r0 = 0; r0 < rows; r0 += rowsPerBlock) {
                int n = Math.min(rowsPerBlock, rows - r0) * d;
                in.get(block, 0, n);
                if (add != null) {
                    add.get(other, 0, n);
                    for (int i = 0; i < n; i++) {
                        block[i] += other[i];
                    }
                }
                for (int row = 0; row < n; row += d) {
                    double mean = rms ? 0.0 : mean(block, row, d);
                    double inv = 1 / (rms ? rms(block, row, d, eps) : Math.sqrt(variance(block, row, d, mean) + eps));
                    for (int c = 0; c < d; c++) {
                        double v = (block[row + c] - mean) * inv;
                        v = g == null ? v : v * g[c];
                        block[row + c] = b == null ? v : v + b[c];
                    }
                }
                to.put(block, 0, n);
            }
        } else {
            float[] g = gamma == null ? null : new float[d];
            float[] b = beta == null ? null : new float[d];
            if (g != null) {
                floats(gamma).get(g);
            }
            if (b != null) {
                floats(beta).get(b);
            }
            FloatBuffer in = floats(x);
            FloatBuffer add = residual == null ? null : floats(residual);
            FloatBuffer to = floats(out);
            float[] block = new float[Math.min(rows, rowsPerBlock) * d];
            float[] other = add == null ? null : new float[block.length];
            for (int r0 = 0; r0 < rows; r0 += rowsPerBlock) {
                int n = Math.min(rowsPerBlock, rows - r0) * d;
                in.get(block, 0, n);
                if (add != null) {
                    add.get(other, 0, n);
                    for (int i = 0; i < n; i++) {
                        block[i] += other[i];
                    }
                }
                for (int row = 0; row < n; row += d) {
                    if (rms) {
                        double inv = 1 / rms(block, row, d, eps);
                        for (int c = 0; c < d; c++) {
                            float v = (float) (block[row + c] * inv);
                            block[row + c] = g == null ? v : v * g[c];
                        }
                    } else {
                        double mean = mean(block, row, d);
                        double inv = 1 / Math.sqrt(variance(block, row, d, mean) + eps);
                        for (int c = 0; c < d; c++) {
                            float v = (float) ((block[row + c] - mean) * inv);
                            v = g == null ? v : v * g[c];
                            block[row + c] = b == null ? v : v + b[c];
                        }
                    }
                }
                to.put(block, 0, n);
            }
        }
        return out;
    }

    // The sums below keep four partial sums, so that the additions of consecutive elements do not wait for each
    // other (a single F64 accumulator is bound by the latency of its adds).

    private static double mean(float[] s, int from, int d) {
        double a = 0;
        double b = 0;
        double c = 0;
        double e = 0;
        int i = from;
        for (int end = from + d - 3; i < end; i += 4) {
            a += s[i];
            b += s[i + 1];
            c += s[i + 2];
            e += s[i + 3];
        }
        for (; i < from + d; i++) {
            a += s[i];
        }
        return (a + b + c + e) / d;
    }

    private static double variance(float[] s, int from, int d, double mean) {
        double a = 0;
        double b = 0;
        double c = 0;
        double e = 0;
        int i = from;
        for (int end = from + d - 3; i < end; i += 4) {
            double v0 = s[i] - mean;
            double v1 = s[i + 1] - mean;
            double v2 = s[i + 2] - mean;
            double v3 = s[i + 3] - mean;
            a += v0 * v0;
            b += v1 * v1;
            c += v2 * v2;
            e += v3 * v3;
        }
        for (; i < from + d; i++) {
            double v = s[i] - mean;
            a += v * v;
        }
        return (a + b + c + e) / d;
    }

    /** @return {@code sqrt(mean(s²) + eps)} with the squares in F64 */
    private static double rms(float[] s, int from, int d, double eps) {
        return Math.sqrt(variance(s, from, d, 0.0) + eps);
    }

    private static double mean(double[] s, int from, int d) {
        double a = 0;
        double b = 0;
        double c = 0;
        double e = 0;
        int i = from;
        for (int end = from + d - 3; i < end; i += 4) {
            a += s[i];
            b += s[i + 1];
            c += s[i + 2];
            e += s[i + 3];
        }
        for (; i < from + d; i++) {
            a += s[i];
        }
        return (a + b + c + e) / d;
    }

    private static double variance(double[] s, int from, int d, double mean) {
        double a = 0;
        double b = 0;
        double c = 0;
        double e = 0;
        int i = from;
        for (int end = from + d - 3; i < end; i += 4) {
            double v0 = s[i] - mean;
            double v1 = s[i + 1] - mean;
            double v2 = s[i + 2] - mean;
            double v3 = s[i + 3] - mean;
            a += v0 * v0;
            b += v1 * v1;
            c += v2 * v2;
            e += v3 * v3;
        }
        for (; i < from + d; i++) {
            double v = s[i] - mean;
            a += v * v;
        }
        return (a + b + c + e) / d;
    }

    /** @return {@code sqrt(mean(s²) + eps)} */
    private static double rms(double[] s, int from, int d, double eps) {
        return Math.sqrt(variance(s, from, d, 0.0) + eps);
    }

    /** @return a buffer over a C-contiguous F32 array's elements, from its first */
    static FloatBuffer floats(INDArray a) {
        BlasProducts.address(a);
        return a.data().asNioFloat().position(Math.toIntExact(a.offset())).slice();
    }

    /** @return a buffer over a C-contiguous F64 array's elements, from its first */
    static DoubleBuffer doubles(INDArray a) {
        BlasProducts.address(a);
        return a.data().asNioDouble().position(Math.toIntExact(a.offset())).slice();
    }
}
