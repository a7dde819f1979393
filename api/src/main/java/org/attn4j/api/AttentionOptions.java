package org.attn4j.api;

import java.util.OptionalDouble;

/**
 * The options of {@link Ops#attention(Tensor, Tensor, Tensor, AttentionOptions)}. Start from {@link #defaults()}
 * and change what you need with the {@code with…} methods; each returns a new value.
 *
 * <p>Which key {@code j} query {@code i} may see: with {@code n = keyLength} (or {@code Lk}) and {@code i'} the
 * query's position ({@code i} top-left, {@code i + n - Lq} bottom-right, see {@link CausalAlignment}), key
 * {@code j} is visible iff {@code j < n}, and if causal {@code j <= i'}, and if a window {@code w > 0} is set
 * {@code j > i' - w}; then the boolean and additive masks apply. Keys and values may have fewer heads than the
 * queries (grouped-query attention, see {@link Ops#attention}).
 *
 * @param causal whether query {@code i} may attend only to keys {@code j <= i'}
 * @param causalAlignment where the causal diagonal sits when {@code Lq != Lk}
 * @param mask a boolean mask, {@code true} = may attend, broadcastable to {@code [..., Lq, Lk]}; or null
 * @param additiveMask a float tensor added to the scaled logits, broadcastable to {@code [..., Lq, Lk]}; or null
 * @param scale the factor applied to {@code q·kᵀ}; empty means {@code 1/sqrt(d_k)}; {@code 1.0} is allowed
 * @param dropoutP the probability in {@code [0, 1]} of zeroing each attention weight; 0 disables dropout
 * @param dropoutSeed the seed of the dropout mask (see {@link org.attn4j.api.spi.Dropout})
 * @param returnWeights whether {@link AttentionResult#weights()} is filled in
 * @param window the number of most recent keys each query sees, itself included ({@code i' - w < j <= i'}); 0
 *     for no window; a window needs {@code causal}
 * @param keyLength how many keys exist, the rest of {@code k} and {@code v} being unused cache capacity that is
 *     neither read nor seen; 0 for all {@code Lk}
 */
public record AttentionOptions(boolean causal, CausalAlignment causalAlignment, Mask mask, Tensor additiveMask,
                               OptionalDouble scale, double dropoutP, long dropoutSeed, boolean returnWeights,
                               int window, int keyLength) {

    private static final AttentionOptions DEFAULTS = new AttentionOptions(false, CausalAlignment.TOP_LEFT, null,
            null, OptionalDouble.empty(), 0.0, 0L, false, 0, 0);

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
        if (causalAlignment == null) {
            throw new IllegalArgumentException("attention: argument causalAlignment is null");
        }
        if (window < 0) {
            throw new IllegalArgumentException("attention: argument window is " + window
                    + "; it must be at least 1, or 0 for none");
        }
        if (keyLength < 0) {
            throw new IllegalArgumentException("attention: argument keyLength is " + keyLength
                    + "; it must be at least 1, or 0 for every key");
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
        return new AttentionOptions(value, causalAlignment, mask, additiveMask, scale, dropoutP, dropoutSeed, returnWeights,
                window, keyLength);
    }

    /**
     * @param value a boolean mask ({@code true} = may attend) or null
     * @return a copy with the mask set
     */
    public AttentionOptions withMask(Mask value) {
        return new AttentionOptions(causal, causalAlignment, value, additiveMask, scale, dropoutP, dropoutSeed,
                returnWeights, window, keyLength);
    }

    /**
     * @param value a float tensor added to the logits, or null
     * @return a copy with the additive mask set
     */
    public AttentionOptions withAdditiveMask(Tensor value) {
        return new AttentionOptions(causal, causalAlignment, mask, value, scale, dropoutP, dropoutSeed, returnWeights,
                window, keyLength);
    }

    /**
     * @param value the logit scale, for example {@code 1.0} for unscaled attention
     * @return a copy with an explicit scale
     */
    public AttentionOptions withScale(double value) {
        return new AttentionOptions(causal, causalAlignment, mask, additiveMask, OptionalDouble.of(value), dropoutP,
                dropoutSeed, returnWeights, window, keyLength);
    }

    /**
     * @param p the drop probability in {@code [0, 1]}
     * @param seed the seed of the dropout mask
     * @return a copy with dropout on the attention weights
     */
    public AttentionOptions withDropout(double p, long seed) {
        return new AttentionOptions(causal, causalAlignment, mask, additiveMask, scale, p, seed, returnWeights, window,
                keyLength);
    }

    /**
     * @param value whether to return the attention weights
     * @return a copy with {@code returnWeights} set
     */
    public AttentionOptions withWeights(boolean value) {
        return new AttentionOptions(causal, causalAlignment, mask, additiveMask, scale, dropoutP, dropoutSeed, value,
                window, keyLength);
    }

    /**
     * @param value where the causal diagonal sits; {@link CausalAlignment#BOTTOM_RIGHT} for decoding with a cache
     * @return a copy with the alignment set (it matters only when causal)
     */
    public AttentionOptions withCausalAlignment(CausalAlignment value) {
        return new AttentionOptions(causal, value, mask, additiveMask, scale, dropoutP, dropoutSeed, returnWeights,
                window, keyLength);
    }

    /**
     * @param value how many of the most recent keys each query sees, itself included; 0 for no window
     * @return a copy with the sliding window set (it needs causal attention)
     */
    public AttentionOptions withWindow(int value) {
        return new AttentionOptions(causal, causalAlignment, mask, additiveMask, scale, dropoutP, dropoutSeed,
                returnWeights, value, keyLength);
    }

    /**
     * @param value how many keys of {@code k} and {@code v} exist (a filled cache prefix); 0 for all of them
     * @return a copy with the key length set
     */
    public AttentionOptions withKeyLength(int value) {
        return new AttentionOptions(causal, causalAlignment, mask, additiveMask, scale, dropoutP, dropoutSeed,
                returnWeights, window, value);
    }

    /**
     * @param keys {@code Lk}, the keys of the call
     * @return the number of keys that exist: {@link #keyLength()} or {@code keys}
     */
    public int keysFor(int keys) {
        return keyLength == 0 ? keys : keyLength;
    }

    /**
     * @param keyDim {@code d_k}
     * @return the explicit scale, or {@code 1/sqrt(keyDim)}
     */
    public double scaleFor(int keyDim) {
        return scale.orElse(1.0 / Math.sqrt(keyDim));
    }
}
