package org.attn4j.models.layers;

import java.util.List;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.Parameters;

/**
 * The self-attention of the rotary encoders (NomicBERT, ModernBERT, GTE): one fused projection to queries, keys and
 * values, a rotary embedding on the queries and keys at positions {@code 0 .. L-1}, scaled dot-product attention
 * under a boolean mask, and an output projection:
 * <pre>
 *   q, k, v = split(x·W_qkvᵀ + b_qkv, [d, d, d])               [B, L, d] each, viewed as [B, H, L, d/H]
 *   q, k    = rope(q), rope(k)                                  (the first rotary.dimension() features of a head)
 *   a       = softmax(q·kᵀ / √(d/H) where mask, else −∞)·v       [B, H, L, d/H] → [B, L, d]
 *   y       = a·W_oᵀ + b_o (+ residual)
 * </pre>
 * A query whose keys are all masked gets a zero output, as the api specifies. The biases are optional, as the
 * {@link Linear}s were loaded.
 */
public final class RotarySelfAttention {
    private final Linear qkv;
    private final Linear out;
    private final int heads;
    private final RotaryEmbedding rotary;

    /**
     * @param qkv {@code [3d, d]}: the query rows, then the key rows, then the value rows
     * @param out {@code [d, d]}
     * @param heads {@code H}, dividing {@code d}
     * @param rotary the frequencies and pair layout, at most {@code d/H} features
     */
    public RotarySelfAttention(Linear qkv, Linear out, int heads, RotaryEmbedding rotary) {
        if (qkv == null || out == null || rotary == null) {
            throw new IllegalArgumentException("RotarySelfAttention: argument " + (qkv == null ? "qkv"
                    : out == null ? "out" : "rotary") + " is null");
        }
        int d = out.outFeatures();
        if (heads < 1 || d % heads != 0) {
            throw new IllegalArgumentException("RotarySelfAttention: heads " + heads + " does not divide the width "
                    + d);
        }
        if (qkv.inFeatures() != d || qkv.outFeatures() != 3 * d || out.inFeatures() != d) {
            throw new IllegalArgumentException("RotarySelfAttention: qkv is [" + qkv.outFeatures() + ", "
                    + qkv.inFeatures() + "] and out [" + out.outFeatures() + ", " + out.inFeatures() + "]; width "
                    + d + " needs [" + 3 * d + ", " + d + "] and [" + d + ", " + d + "]");
        }
        if (rotary.dimension() > d / heads) {
            throw new IllegalArgumentException("RotarySelfAttention: the rotary embedding turns "
                    + rotary.dimension() + " features, more than the head size " + d / heads);
        }
        this.qkv = qkv;
        this.out = out;
        this.heads = heads;
        this.rotary = rotary;
    }

    /**
     * @param parameters where the projections are uploaded, once
     * @return this attention reading its projections from {@code parameters}
     */
    public RotarySelfAttention bind(Parameters parameters) {
        return new RotarySelfAttention(qkv.bind(parameters), out.bind(parameters), heads, rotary);
    }

    /** @return the fused projection {@code [3d, d]} */
    public Linear qkv() {
        return qkv;
    }

    /** @return the output projection {@code [d, d]} */
    public Linear out() {
        return out;
    }

    /** @return the rotary embedding */
    public RotaryEmbedding rotary() {
        return rotary;
    }

    /**
     * @param scope receives the results
     * @param x {@code [B, L, d]}
     * @param mask broadcastable to {@code [B, H, L, L]}, true where a query may attend a key, or null for all
     * @param residual added to the output projection in its pass ({@code [B, L, d]}), or null
     * @param needWeights whether to return the attention weights {@code [B, H, L, L]} too
     * @return {@code [B, L, d]} and, if asked, the weights
     */
    public AttentionResult forward(Scope scope, Tensor x, Mask mask, Tensor residual, boolean needWeights) {
        if (x == null || x.shape().rank() != 3 || x.shape().dim(2) != out.outFeatures()) {
            throw new IllegalArgumentException("RotarySelfAttention.forward: argument x has shape "
                    + (x == null ? null : x.shape()) + "; [B, L, " + out.outFeatures() + "] was expected");
        }
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            int b = x.shape().dim(0);
            int l = x.shape().dim(1);
            int d = out.outFeatures();
            List<Tensor> parts = ops.split(qkv.forward(work, x), new int[] {d, d, d}, -1);
            Tensor q = ops.rope(heads(ops, parts.get(0), b, l), rotary, 0);
            Tensor k = ops.rope(heads(ops, parts.get(1), b, l), rotary, 0);
            Tensor v = heads(ops, parts.get(2), b, l);
            AttentionResult a = ops.attention(q, k, v,
                    AttentionOptions.defaults().withMask(mask).withWeights(needWeights));
            Tensor merged = ops.reshape(ops.permute(a.output(), 0, 2, 1, 3), b, l, d);
            Tensor y = out.forward(work, merged, Epilogue.none().withResidual(residual));
            return new AttentionResult(scope.adopt(y), needWeights ? scope.adopt(a.weights()) : null);
        }
    }

    private Tensor heads(Ops ops, Tensor t, int b, int l) {
        return ops.permute(ops.reshape(t, b, l, heads, t.shape().dim(2) / heads), 0, 2, 1, 3);
    }
}
