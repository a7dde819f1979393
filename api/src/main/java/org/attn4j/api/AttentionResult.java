package org.attn4j.api;

import java.util.Optional;

/**
 * What {@link Ops#attention(Tensor, Tensor, Tensor, AttentionOptions)} returns.
 *
 * @param output {@code [..., Lq, d_v]}
 * @param weights {@code [..., Lq, Lk]}, the weights multiplied with {@code v} (after dropout, as PyTorch's
 *     {@code nn.MultiheadAttention} returns them); null unless {@link AttentionOptions#returnWeights()}
 */
public record AttentionResult(Tensor output, Tensor weights) {

    /** @return the weights, present when they were asked for */
    public Optional<Tensor> weightsIfReturned() {
        return Optional.ofNullable(weights);
    }
}
