package org.attn4j.api;

import java.util.OptionalDouble;

/**
 * The options of {@link Ops#attention(Tensor, Tensor, Tensor, AttentionOptions)}. Start from {@link #defaults()}
 * and change what you need with the {@code with…} methods; each returns a new value.
 *
 * @param causal query {@code i} may attend to key {@code j} only if {@code j <= i} (top-left aligned, as
 *     PyTorch's {@code is_causal})
 * @param mask a boolean mask, {@code true} = may attend, broadcastable to {@code [..., Lq, Lk]}; or null
 * @param additiveMask a float tensor added to the scaled logits, broadcastable to {@code [..., Lq, Lk]}; or null
 * @param scale the factor applied to {@code q·kᵀ}; empty means {@code 1/sqrt(d_k)}; {@code 1.0} is allowed
 * @param dropoutP the probability in {@code [0, 1]} of zeroing each attention weight; 0 disables dropout
 * @param dropoutSeed the seed of the dropout mask (see {@link org.attn4j.api.spi.Dropout})
 * @param returnWeights whether {@link AttentionResult#weights()} is filled in
 */
public record AttentionOptions(boolean causal, Mask mask, Tensor additiveMask, OptionalDouble scale,
                               double dropoutP, long dropoutSeed, boolean returnWeights) {

    private static final AttentionOptions DEFAULTS =
            new AttentionOptions(false, null, null, OptionalDouble.empty(), 0.0, 0L, false);

    /** Validates the options that do not depend on the inputs' shapes. */
    public AttentionOptions {
        if (scale == null) {
            throw new IllegalArgumentException("attention: argument scale is null; use OptionalDouble.empty()");
        }
        if (scale.isPresent() && !Double.isFinite(scale.getAsDouble())) {
            throw new IllegalArgumentException("attention: argument scale is " + scale.getAsDouble()
                    + "; it must be finite");
        }
        if (!(dropoutP >= 0.0 && dropoutP <= 1.0)) {
            throw new IllegalArgumentException("attention: argument dropoutP is " + dropoutP
                    + "; it must lie in [0, 1]");
        }
    }

    /** @return no mask, not causal, scale {@code 1/sqrt(d_k)}, no dropout, no weights returned */
    public static AttentionOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param value whether attention is causal
     * @return a copy with {@code causal} set
     */
    public AttentionOptions withCausal(boolean value) {
        return new AttentionOptions(value, mask, additiveMask, scale, dropoutP, dropoutSeed, returnWeights);
    }

    /**
     * @param value a boolean mask ({@code true} = may attend) or null
     * @return a copy with the mask set
     */
    public AttentionOptions withMask(Mask value) {
        return new AttentionOptions(causal, value, additiveMask, scale, dropoutP, dropoutSeed, returnWeights);
    }

    /**
     * @param value a float tensor added to the logits, or null
     * @return a copy with the additive mask set
     */
    public AttentionOptions withAdditiveMask(Tensor value) {
        return new AttentionOptions(causal, mask, value, scale, dropoutP, dropoutSeed, returnWeights);
    }

    /**
     * @param value the logit scale, for example {@code 1.0} for unscaled attention
     * @return a copy with an explicit scale
     */
    public AttentionOptions withScale(double value) {
        return new AttentionOptions(causal, mask, additiveMask, OptionalDouble.of(value), dropoutP, dropoutSeed,
                returnWeights);
    }

    /**
     * @param p the drop probability in {@code [0, 1]}
     * @param seed the seed of the dropout mask
     * @return a copy with dropout on the attention weights
     */
    public AttentionOptions withDropout(double p, long seed) {
        return new AttentionOptions(causal, mask, additiveMask, scale, p, seed, returnWeights);
    }

    /**
     * @param value whether to return the attention weights
     * @return a copy with {@code returnWeights} set
     */
    public AttentionOptions withWeights(boolean value) {
        return new AttentionOptions(causal, mask, additiveMask, scale, dropoutP, dropoutSeed, value);
    }

    /**
     * @param keyDim {@code d_k}
     * @return the explicit scale, or {@code 1/sqrt(keyDim)}
     */
    public double scaleFor(int keyDim) {
        return scale.orElse(1.0 / Math.sqrt(keyDim));
    }
}
