package org.attn4j.models;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
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
        return scope.ops().attention(x, x, x, AttentionOptions.defaults().withScale(1.0).withWeights(true));
    }
}
