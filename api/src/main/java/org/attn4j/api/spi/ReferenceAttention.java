package org.attn4j.api.spi;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;

/**
 * Attention composed from the primitives of {@link Ops}: what a backend without a fused kernel returns from
 * {@link Ops#attention(Tensor, Tensor, Tensor, AttentionOptions)}, and what the TCK compares a fused kernel with:
 * <pre>
 *   logits  = q·kᵀ·scale + additiveMask + maskToAdditive(mask) + maskToAdditive(causal)
 *   weights = dropout(softmax(logits, -1))
 *   output  = weights·v
 * </pre>
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
            Tensor logits = t.scale(t.matmul(q, k, false, true), options.scaleFor(shape.keyDim()));
            if (options.additiveMask() != null) {
                logits = t.add(logits, options.additiveMask());
            }
            if (options.mask() != null) {
                logits = t.add(logits, t.additiveMask(options.mask(), q.dtype()));
            }
            if (options.causal()) {
                logits = t.add(logits, t.additiveMask(Mask.causal(shape.queries(), shape.keys()), q.dtype()));
            }
            Tensor weights = t.softmax(logits, -1);
            if (options.dropoutP() > 0) {
                weights = t.dropout(weights, options.dropoutP(), options.dropoutSeed());
            }
            Tensor output = target.adopt(t.matmul(weights, v));
            return new AttentionResult(output, options.returnWeights() ? target.adopt(weights) : null);
        }
    }
}
