package org.attn4j.models.bert;

import org.attn4j.api.AttentionResult;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.GatedFeedForward;
import org.attn4j.models.layers.LayerNorm;
import org.attn4j.models.layers.RotarySelfAttention;
import org.attn4j.models.parameters.Parameters;

/**
 * The post-norm block of NomicBERT and GTE, BERT's order with rotary attention and a gated MLP:
 * <pre>
 *   a = attentionNorm(x + attention(x, mask))
 *   y = mlpNorm(a + mlp(a))
 * </pre>
 *
 * @param attention the rotary self-attention with its output projection
 * @param attentionNorm the norm after the attention's residual sum
 * @param mlp the gated feed-forward block
 * @param mlpNorm the norm after the MLP's residual sum
 */
record PostNormLayer(RotarySelfAttention attention, LayerNorm attentionNorm, GatedFeedForward mlp,
                     LayerNorm mlpNorm) {

    PostNormLayer bind(Parameters p) {
        return new PostNormLayer(attention.bind(p), attentionNorm.bind(p), mlp.bind(p), mlpNorm.bind(p));
    }

    /**
     * @param scope receives the results
     * @param x {@code [B, L, d]}
     * @param mask the key padding mask, or null
     * @param needWeights whether to return the attention weights too
     * @return {@code [B, L, d]} and, if asked, the weights {@code [B, H, L, L]}
     */
    AttentionResult forward(Scope scope, Tensor x, Mask mask, boolean needWeights) {
        try (Scope work = scope.backend().newScope()) {
            AttentionResult attended = attention.forward(work, x, mask, null, needWeights);
            Tensor a = attentionNorm.forward(work, attended.output(), x);
            Tensor y = scope.adopt(mlpNorm.forward(work, mlp.forward(work, a, null), a));
            return new AttentionResult(y, needWeights ? scope.adopt(attended.weights()) : null);
        }
    }
}
