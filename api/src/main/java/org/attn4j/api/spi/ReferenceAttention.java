package org.attn4j.api.spi;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * Attention composed from the primitives of {@link Ops}: what a backend without a fused kernel returns from
 * {@link Ops#attention(Tensor, Tensor, Tensor, AttentionOptions)}, and what the TCK compares a fused kernel with:
 * <pre>
 *   logits  = q·kᵀ·scale, soft-capped to c·tanh(logits / c) when options.logitSoftcap() = c &gt; 0
 *   logits += additiveMask + maskToAdditive(mask) + maskToAdditive(visible keys)
 *   weights = dropout(softmax(logits, -1))
 *   output  = weights·v
 * </pre>
 * where the visible keys are those of {@link VisibleKeys} (causality, its alignment, the window and the key
 * length). With grouped-query attention q is viewed as {@code [..., H_kv, H/H_kv, Lq, d_k]} and k, v as
 * {@code [..., H_kv, 1, Lk, d]}, so that the products broadcast each kv head over its group without copying it.
 * It materialises the {@code [..., Lq, Lk]} logits, so its memory grows with {@code Lq·Lk}; intermediates live
 * in a scope of their own that is closed before returning.
 */
public final class ReferenceAttention {

    private ReferenceAttention() {
    }

    /**
     * @param ops the ops whose scope receives the results
     * @param q {@code [..., Lq, d_k]}
     * @param k {@code [..., Lk, d_k]}
     * @param v {@code [..., Lk, d_v]}
     * @param options masks, scale, dropout, returned weights
     * @return output {@code [..., Lq, d_v]} and, if asked, weights {@code [..., Lq, Lk]}
     */
    public static AttentionResult compute(Ops ops, Tensor q, Tensor k, Tensor v, AttentionOptions options) {
        ShapeChecks.AttentionShape shape = ShapeChecks.attention(q, k, v, options);
        Scope target = ops.scope();
        try (Scope work = target.backend().newScope()) {
            Ops t = work.ops();
            Tensor keys = k;
            Tensor values = v;
            Tensor queries = q;
            int group = shape.groupSize();
            if (group > 1) {
                queries = t.reshape(q, grouped(q.shape(), group));
                keys = t.reshape(k, grouped(k.shape(), 1));
                values = t.reshape(v, grouped(v.shape(), 1));
            }
            Tensor logits = t.scale(t.matmul(queries, keys, false, true), options.scaleFor(shape.keyDim()));
            if (group > 1) {
                logits = t.reshape(logits, shape.weights().toArray());
            }
            if (options.logitSoftcap() > 0) {
                logits = t.softcap(logits, options.logitSoftcap());
            }
            if (options.additiveMask() != null) {
                logits = t.add(logits, options.additiveMask());
            }
            if (options.mask() != null) {
                logits = t.add(logits, t.additiveMask(options.mask(), q.dtype()));
            }
            Mask visible = new VisibleKeys(options, shape.queries(), shape.keys()).mask(shape.queries(), shape.keys());
            if (visible != null) {
                logits = t.add(logits, t.additiveMask(visible, q.dtype()));
            }
            Tensor weights = t.softmax(logits, -1);
            if (options.dropoutP() > 0) {
                weights = t.dropout(weights, options.dropoutP(), options.dropoutSeed());
            }
            Tensor output = group > 1
                    ? t.reshape(t.matmul(t.reshape(weights, grouped(shape.weights(), group)), values),
                            shape.output().toArray())
                    : t.matmul(weights, v);
            target.adopt(output);
            return new AttentionResult(output, options.returnWeights() ? target.adopt(weights) : null);
        }
    }

    /** {@code [..., H, L, d]} viewed as {@code [..., H/group, group, L, d]}. */
    private static int[] grouped(Shape s, int group) {
        int[] dims = s.toArray();
        int[] out = new int[dims.length + 1];
        System.arraycopy(dims, 0, out, 0, dims.length - 3);
        out[dims.length - 3] = dims[dims.length - 3] / group;
        out[dims.length - 2] = group;
        out[dims.length - 1] = dims[dims.length - 2];
        out[dims.length] = dims[dims.length - 1];
        return out;
    }
}
