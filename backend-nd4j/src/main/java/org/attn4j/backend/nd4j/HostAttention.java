package org.attn4j.backend.nd4j;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.Dropout;
import org.attn4j.api.spi.ShapeChecks;

/**
 * Attention of a small problem in plain Java loops on host copies of the operands, in double precision, except
 * that an F32 call rounds each logit to F32, so that a logit past the F32 range is ±∞ as in every F32 kernel:
 * <pre>
 *   logit[p,i,j] = cap(scale · Σ_c q[p,i,c]·k[p,j,c]) + additive[p,i,j], plus -∞ where mask or causality forbids
 *   w[p,i,·]     = softmax(logit[p,i,·])   all -∞ → zeros; a NaN or +∞ logit → a NaN row (IEEE)
 *   w[p,i,j]     = dropout(w)[p,i,j]       the {@link Dropout} hash of the index in [..., Lq, Lk]; dropped → 0
 *   out[p,i,e]   = Σ_j w[p,i,j]·v[p,j,e]
 * </pre>
 * with {@code cap(x) = c·tanh(x / c)} for a logit soft-cap {@code c}, else {@code x}.
 * Each libnd4j op costs several microseconds to launch, and an attention composed from them takes a dozen; for a
 * small problem these loops finish first. Measured on 2 cores (loops against native tiles): 2¹⁷ multiply-adds
 * 124 µs against 595 µs, 2¹⁹ 397 µs against 695 µs, 1.5·2²⁰ 1.19 ms against 0.75 ms; hence the limit of 2¹⁹. Shapes: q
 * {@code [P, Lq, d_k]}, k {@code [P, Lk, d_k]}, v {@code [P, Lk, d_v]}, flattened row-major.
 */
final class HostAttention {
    /** The most multiply-adds ({@code P·Lq·Lk·(d_k + d_v)}) a problem may take to be computed here. */
    static final long MAX_WORK = 1L << 19;

    private HostAttention() {
    }

    /**
     * @param shape the call's dimensions
     * @return whether the problem is small enough for these loops
     */
    static boolean suits(ShapeChecks.AttentionShape shape) {
        return (long) shape.problems() * shape.queries() * shape.keys() * (shape.keyDim() + shape.valueDim())
                <= MAX_WORK;
    }

    /**
     * @param q the queries; not modified
     * @param k the keys; not modified
     * @param v the values; not modified
     * @param additive the additive mask's values (shape {@code additiveShape}), or null
     * @param additiveShape the additive mask's shape, or null
     * @param options masks, scale and dropout
     * @param shape the call's dimensions
     * @param weights receives the weights {@code [P, Lq, Lk]} when not null; modified
     * @param f32 round each logit to F32 (the call's dtype is F32)
     * @return the output {@code [P, Lq, d_v]}
     */
    static double[] compute(double[] q, double[] k, double[] v, double[] additive, Shape additiveShape,
                            AttentionOptions options, ShapeChecks.AttentionShape shape, double[] weights,
                            boolean f32) {
        int problems = shape.problems();
        int lq = shape.queries();
        int lk = shape.keys();
        int dk = shape.keyDim();
        int dv = shape.valueDim();
        double scale = options.scaleFor(dk);
        double cap = options.logitSoftcap();
        Shape full = shape.weights();
        Mask mask = options.mask();
        double p = options.dropoutP();
        double survivor = p > 0 ? Dropout.survivorScale(p) : 1.0;
        double[] out = new double[problems * lq * dv];
        double[] row = new double[lk];
        for (int b = 0; b < problems; b++) {
            for (int i = 0; i < lq; i++) {
                long rowStart = ((long) b * lq + i) * lk;
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < lk; j++) {
                    double s = 0;
                    for (int c = 0; c < dk; c++) {
                        s += q[(b * lq + i) * dk + c] * k[(b * lk + j) * dk + c];
                    }
                    s *= scale;
                    if (cap > 0) {
                        s = cap * Math.tanh(s / cap);
                    }
                    if (additive != null) {
                        s += additive[broadcastIndex(rowStart + j, full, additiveShape)];
                    }
                    if (f32) {
                        s = (float) s;
                    }
                    if (mask != null && !mask.allowed(broadcastIndex(rowStart + j, full, mask.shape()))
                            || options.causal() && j > i) {
                        s += Double.NEGATIVE_INFINITY;
                    }
                    row[j] = s;
                    max = Math.max(max, s);
                }
                double sum = 0;
                for (int j = 0; j < lk; j++) {
                    row[j] = max == Double.NEGATIVE_INFINITY ? 0.0 : Math.exp(row[j] - max);
                    sum += row[j];
                }
                for (int j = 0; j < lk; j++) {
                    double w = sum == 0.0 ? 0.0 : row[j] / sum;
                    if (p > 0) {
                        w = Dropout.keep(options.dropoutSeed(), rowStart + j, p) ? w * survivor : 0.0;
                    }
                    if (weights != null) {
                        weights[(int) rowStart + j] = w;
                    }
                    for (int e = 0; e < dv; e++) {
                        out[(b * lq + i) * dv + e] += w * v[(b * lk + j) * dv + e];
                    }
                }
            }
        }
        return out;
    }

    /**
     * @param flat a row-major index into {@code full}
     * @param full the shape indexed
     * @param from a shape that broadcasts to {@code full} (numpy rules, leading dims may be missing)
     * @return the row-major index into {@code from} of the element broadcast to {@code flat}
     */
    static int broadcastIndex(long flat, Shape full, Shape from) {
        long index = 0;
        long stride = 1;
        long rest = flat;
        for (int axis = 1; axis <= from.rank(); axis++) {
            int size = full.dim(-axis);
            long coordinate = rest % size;
            rest /= size;
            if (from.dim(-axis) != 1) {
                index += coordinate * stride;
            }
            stride *= from.dim(-axis);
        }
        return (int) index;
    }
}
