package org.attn4j.api;

import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.Consumer;

/**
 * The options of {@link Ops#attention(Tensor, Tensor, Tensor, AttentionOptions)}, an immutable value. Start from
 * {@link #defaults()} and change what you need with the {@code with…} methods; each returns a new value, so an
 * option added later changes no caller:
 * <pre>{@code
 * AttentionOptions o = AttentionOptions.defaults().withCausal(true).withDropout(0.1, 42).withWeights(true);
 * }</pre>
 * What each option means on every backend is written down in {@code SEMANTICS.md} at the root of the project.
 *
 * <p>Which key {@code j} query {@code i} may see: with {@code n = keyLength} (or {@code Lk}) and {@code i'} the
 * query's position ({@code i} top-left, {@code i + n - Lq} bottom-right, see {@link CausalAlignment}), key
 * {@code j} is visible iff {@code j < n}, and if causal {@code j <= i'}, and if a window {@code w > 0} is set
 * {@code j > i' - w}; then the boolean and additive masks apply. A logit soft-cap bounds the scaled logits before
 * any mask is added. Keys and values may have fewer heads than the
 * queries (grouped-query attention, see {@link Ops#attention}).
 */
public final class AttentionOptions {

    private static final AttentionOptions DEFAULTS = new AttentionOptions(new Draft());

    private final boolean causal;
    private final Mask mask;
    private final Tensor additiveMask;
    private final OptionalDouble scale;
    private final double dropoutP;
    private final long dropoutSeed;
    private final boolean returnWeights;
    private final CausalAlignment causalAlignment;
    private final int window;
    private final int keyLength;
    private final double logitSoftcap;

    /** Checks the draft's values and takes them. */
    private AttentionOptions(Draft d) {
        if (d.scale.isPresent() && !Double.isFinite(d.scale.getAsDouble())) {
            throw new IllegalArgumentException("attention: argument scale is " + d.scale.getAsDouble()
                    + "; it must be finite");
        }
        if (!(d.dropoutP >= 0.0 && d.dropoutP <= 1.0)) {
            throw new IllegalArgumentException("attention: argument dropoutP is " + d.dropoutP
                    + "; it must lie in [0, 1]");
        }
        if (d.causalAlignment == null) {
            throw new IllegalArgumentException("attention: argument causalAlignment is null");
        }
        if (d.window < 0) {
            throw new IllegalArgumentException("attention: argument window is " + d.window
                    + "; it must be at least 1, or 0 for none");
        }
        if (d.keyLength < 0) {
            throw new IllegalArgumentException("attention: argument keyLength is " + d.keyLength
                    + "; it must be at least 1, or 0 for every key");
        }
        if (!(d.logitSoftcap >= 0) || Double.isInfinite(d.logitSoftcap)) {
            throw new IllegalArgumentException("attention: argument logitSoftcap is " + d.logitSoftcap
                    + "; it must be positive and finite, or 0 for none");
        }
        causal = d.causal;
        mask = d.mask;
        additiveMask = d.additiveMask;
        scale = d.scale;
        dropoutP = d.dropoutP;
        dropoutSeed = d.dropoutSeed;
        returnWeights = d.returnWeights;
        causalAlignment = d.causalAlignment;
        window = d.window;
        keyLength = d.keyLength;
        logitSoftcap = d.logitSoftcap;
    }

    /** @return these options with {@code change} applied to a copy of their values, checked again */
    private AttentionOptions with(Consumer<Draft> change) {
        Draft d = new Draft(this);
        change.accept(d);
        return new AttentionOptions(d);
    }

    /** The values of an {@link AttentionOptions} while a {@code with…} method changes one; the defaults when new. */
    private static final class Draft {
        boolean causal;
        Mask mask;
        Tensor additiveMask;
        OptionalDouble scale = OptionalDouble.empty();
        double dropoutP;
        long dropoutSeed;
        boolean returnWeights;
        CausalAlignment causalAlignment = CausalAlignment.TOP_LEFT;
        int window;
        int keyLength;
        double logitSoftcap;

        Draft() {
        }

        Draft(AttentionOptions o) {
            causal = o.causal;
            mask = o.mask;
            additiveMask = o.additiveMask;
            scale = o.scale;
            dropoutP = o.dropoutP;
            dropoutSeed = o.dropoutSeed;
            returnWeights = o.returnWeights;
            causalAlignment = o.causalAlignment;
            window = o.window;
            keyLength = o.keyLength;
            logitSoftcap = o.logitSoftcap;
        }
    }

    /** @return no mask, not causal, scale {@code 1/sqrt(d_k)}, no dropout, no weights returned */
    public static AttentionOptions defaults() {
        return DEFAULTS;
    }

    /** @return whether query {@code i} may attend only to keys {@code j <= i'} (see {@link #causalAlignment()}) */
    public boolean causal() {
        return causal;
    }

    /** @return a boolean mask, {@code true} = may attend, broadcastable to {@code [..., Lq, Lk]}; or null */
    public Mask mask() {
        return mask;
    }

    /** @return a float tensor added to the scaled logits, broadcastable to {@code [..., Lq, Lk]}; or null */
    public Tensor additiveMask() {
        return additiveMask;
    }

    /** @return the factor applied to {@code q·kᵀ}; empty means {@code 1/sqrt(d_k)} */
    public OptionalDouble scale() {
        return scale;
    }

    /** @return the probability in {@code [0, 1]} of zeroing each attention weight; 0 disables dropout */
    public double dropoutP() {
        return dropoutP;
    }

    /** @return the seed of the dropout mask */
    public long dropoutSeed() {
        return dropoutSeed;
    }

    /** @return whether {@link AttentionResult#weights()} is filled in */
    public boolean returnWeights() {
        return returnWeights;
    }

    /**
     * @param value whether attention is causal
     * @return a copy with {@code causal} set
     */
    public AttentionOptions withCausal(boolean value) {
        return with(d -> d.causal = value);
    }

    /**
     * @param value a boolean mask ({@code true} = may attend) or null
     * @return a copy with the mask set
     */
    public AttentionOptions withMask(Mask value) {
        return with(d -> d.mask = value);
    }

    /**
     * @param value a float tensor added to the logits, or null
     * @return a copy with the additive mask set
     */
    public AttentionOptions withAdditiveMask(Tensor value) {
        return with(d -> d.additiveMask = value);
    }

    /**
     * @param value the logit scale, finite; for example {@code 1.0} for unscaled attention
     * @return a copy with an explicit scale
     * @throws IllegalArgumentException if {@code value} is not finite
     */
    public AttentionOptions withScale(double value) {
        return with(d -> d.scale = OptionalDouble.of(value));
    }

    /**
     * @param p the drop probability in {@code [0, 1]}
     * @param seed the seed of the dropout mask (the hash is in {@code SEMANTICS.md})
     * @return a copy with dropout on the attention weights
     * @throws IllegalArgumentException if {@code p} lies outside {@code [0, 1]}
     */
    public AttentionOptions withDropout(double p, long seed) {
        return with(d -> {
            d.dropoutP = p;
            d.dropoutSeed = seed;
        });
    }

    /**
     * @param value whether to return the attention weights
     * @return a copy with {@code returnWeights} set
     */
    public AttentionOptions withWeights(boolean value) {
        return with(d -> d.returnWeights = value);
    }

    /** @return where the causal diagonal sits when {@code Lq != Lk}; {@link CausalAlignment#TOP_LEFT} by default */
    public CausalAlignment causalAlignment() {
        return causalAlignment;
    }

    /**
     * @return how many of the most recent keys each query sees, itself included ({@code i' - w < j <= i'}); 0 for
     *     no window; a window needs {@code causal}
     */
    public int window() {
        return window;
    }

    /**
     * @return how many keys exist, the rest of {@code k} and {@code v} being unused cache capacity that is neither
     *     read nor seen; 0 for all {@code Lk}
     */
    public int keyLength() {
        return keyLength;
    }

    /**
     * @param value where the causal diagonal sits; {@link CausalAlignment#BOTTOM_RIGHT} for decoding with a cache
     * @return a copy with the alignment set (it matters only when causal)
     */
    public AttentionOptions withCausalAlignment(CausalAlignment value) {
        return with(d -> d.causalAlignment = value);
    }

    /**
     * @param value how many of the most recent keys each query sees, itself included; 0 for no window
     * @return a copy with the sliding window set (it needs causal attention)
     */
    public AttentionOptions withWindow(int value) {
        return with(d -> d.window = value);
    }

    /**
     * @param value how many keys of {@code k} and {@code v} exist (a filled cache prefix); 0 for all of them
     * @return a copy with the key length set
     */
    public AttentionOptions withKeyLength(int value) {
        return with(d -> d.keyLength = value);
    }

    /**
     * @return the soft-cap {@code c} of the scaled logits, {@code c · tanh(q·kᵀ·scale / c)} before any mask is
     *     added (Gemma 2's {@code attn_logit_softcapping}); 0 for none
     */
    public double logitSoftcap() {
        return logitSoftcap;
    }

    /**
     * @param value the soft-cap of the scaled logits, positive and finite; 0 for none
     * @return a copy with the logits soft-capped to {@code value · tanh(logit / value)} before the masks
     */
    public AttentionOptions withLogitSoftcap(double value) {
        return with(d -> d.logitSoftcap = value);
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

    @Override
    public boolean equals(Object o) {
        return o instanceof AttentionOptions a && causal == a.causal && Objects.equals(mask, a.mask)
                && Objects.equals(additiveMask, a.additiveMask) && scale.equals(a.scale)
                && Double.compare(dropoutP, a.dropoutP) == 0 && dropoutSeed == a.dropoutSeed
                && returnWeights == a.returnWeights && causalAlignment == a.causalAlignment && window == a.window
                && keyLength == a.keyLength && Double.compare(logitSoftcap, a.logitSoftcap) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(causal, mask, additiveMask, scale, dropoutP, dropoutSeed, returnWeights, causalAlignment,
                window, keyLength, logitSoftcap);
    }

    @Override
    public String toString() {
        return "AttentionOptions[causal=" + causal + ", mask=" + mask + ", additiveMask="
                + (additiveMask == null ? null : additiveMask.dtype() + " " + additiveMask.shape()) + ", scale="
                + (scale.isPresent() ? scale.getAsDouble() : "1/sqrt(d_k)") + ", dropoutP=" + dropoutP
                + ", dropoutSeed=" + dropoutSeed + ", returnWeights=" + returnWeights + ", causalAlignment="
                + causalAlignment + ", window=" + window + ", keyLength=" + keyLength + ", logitSoftcap="
                + logitSoftcap + "]";
    }
}
