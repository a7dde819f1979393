package org.attn4j.models.tutorial;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;

/**
 * Self-attention without trainable weights, the first step of Raschka's chapter 3 and of Bloem's text:
 * <pre>
 *   weights = softmax(X·Xᵀ)      [.., L, L]   (no scaling)
 *   context = weights·X          [.., L, d]
 * </pre>
 * for {@code X} of shape {@code [L, d]} or {@code [B, L, d]}.
 */
public final class SimplifiedSelfAttention {

    private static final AttentionOptions OPTIONS = AttentionOptions.defaults().withScale(1.0).withWeights(true);

    private SimplifiedSelfAttention() {
    }

    /**
     * @param scope receives the results
     * @param x {@code [L, d]} or {@code [B, L, d]}
     * @return the context vectors {@code [.., L, d]} and the weights {@code [.., L, L]}
     */
    public static AttentionResult forward(Scope scope, Tensor x) {
        if (x.shape().rank() != 2 && x.shape().rank() != 3) {
            throw new IllegalArgumentException("SimplifiedSelfAttention: argument x has shape " + x.shape()
                    + "; it must be [L, d] or [B, L, d]");
        }
        return scope.ops().attention(x, x, x, OPTIONS);
    }

    /**
     * The context vector of one query position, as Raschka first computes {@code z(2)} for the query
     * {@code x(2)} ("journey"): {@code ω = x(q)·Xᵀ}, {@code α = softmax(ω)}, {@code z = α·X}.
     *
     * @param scope receives the results
     * @param x {@code [L, d]} or {@code [B, L, d]}
     * @param position the query index in {@code [0, L)}
     * @return the context vector {@code [.., d]} and the weights {@code [.., L]}
     */
    public static AttentionResult forwardQuery(Scope scope, Tensor x, int position) {
        Sequences.checkPosition(x, position, "SimplifiedSelfAttention.forwardQuery");
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            AttentionResult r = ops.attention(Sequences.row(ops, x, position), x, x, OPTIONS);
            return new AttentionResult(scope.adopt(ops.reshape(r.output(), Sequences.without(r.output().shape(), -2))),
                    scope.adopt(ops.reshape(r.weights(), Sequences.without(r.weights().shape(), -2))));
        }
    }
}
