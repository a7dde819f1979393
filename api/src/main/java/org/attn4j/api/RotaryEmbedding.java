package org.attn4j.api;

import java.util.Arrays;
import java.util.Objects;

/**
 * What {@link Ops#rope(Tensor, RotaryEmbedding, int)} rotates and by how much, an immutable value: one inverse
 * frequency {@code ω_i} per pair of features, a scaling {@code s} applied to the cosines and sines, and the layout
 * that says which features form pair {@code i}. With {@code n} frequencies the first {@code 2n} features of a head
 * are rotated and the rest are copied unchanged (partial rotary embeddings). At position {@code p} pair {@code i}
 * turns by {@code θ = p · ω_i}:
 * <pre>
 *   (a, b)  ↦  (a·s·cos θ − b·s·sin θ,  b·s·cos θ + a·s·sin θ)
 * </pre>
 * {@link #of(RopeLayout, double, int)} gives the original embedding, {@code ω_i = base^(-2i/d)}; the scaled variants
 * of Hugging Face's {@code ROPE_INIT_FUNCTIONS} (linear, dynamic NTK, YaRN, LongRoPE, Llama 3) are other frequencies
 * and scalings, computed by the model that uses them and given here with {@link #ofInverseFrequencies}:
 * <pre>{@code
 * RotaryEmbedding yarn = RotaryEmbedding.ofInverseFrequencies(RopeLayout.HALF_SPLIT, frequencies)
 *         .withAttentionScaling(1.1386);
 * }</pre>
 */
public final class RotaryEmbedding {
    private final RopeLayout layout;
    private final double[] inverseFrequencies;
    private final double attentionScaling;

    private RotaryEmbedding(RopeLayout layout, double[] inverseFrequencies, double attentionScaling) {
        if (layout == null) {
            throw new IllegalArgumentException("RotaryEmbedding: argument layout is null");
        }
        if (inverseFrequencies == null || inverseFrequencies.length == 0) {
            throw new IllegalArgumentException("RotaryEmbedding: argument inverseFrequencies is "
                    + (inverseFrequencies == null ? "null" : "empty") + "; give one frequency per pair of features");
        }
        for (int i = 0; i < inverseFrequencies.length; i++) {
            if (!Double.isFinite(inverseFrequencies[i])) {
                throw new IllegalArgumentException("RotaryEmbedding: argument inverseFrequencies holds "
                        + inverseFrequencies[i] + " at pair " + i + "; every frequency must be finite");
            }
        }
        if (!(attentionScaling > 0) || Double.isInfinite(attentionScaling)) {
            throw new IllegalArgumentException("RotaryEmbedding: argument attentionScaling is " + attentionScaling
                    + "; it must be positive and finite");
        }
        this.layout = layout;
        this.inverseFrequencies = inverseFrequencies.clone();
        this.attentionScaling = attentionScaling;
    }

    /**
     * The original rotary embedding over {@code dimension} features: {@code ω_i = base^(-2i/dimension)} for
     * {@code i < dimension/2}, scaling 1.
     *
     * @param layout which features form a pair
     * @param base the frequency base, for example 10000; positive and finite
     * @param dimension how many features are rotated, even and at least 2
     * @return the embedding
     */
    public static RotaryEmbedding of(RopeLayout layout, double base, int dimension) {
        if (!(base > 0) || Double.isInfinite(base)) {
            throw new IllegalArgumentException("RotaryEmbedding: argument base is " + base
                    + "; it must be positive and finite");
        }
        if (dimension < 2 || dimension % 2 != 0) {
            throw new IllegalArgumentException("RotaryEmbedding: argument dimension is " + dimension
                    + "; it must be even and at least 2");
        }
        double[] frequencies = new double[dimension / 2];
        for (int i = 0; i < frequencies.length; i++) {
            frequencies[i] = Math.pow(base, -2.0 * i / dimension);
        }
        return new RotaryEmbedding(layout, frequencies, 1.0);
    }

    /**
     * @param layout which features form a pair
     * @param inverseFrequencies {@code ω_i} per pair, each finite; not modified (copied)
     * @return the embedding of {@code 2 · inverseFrequencies.length} features, scaling 1
     */
    public static RotaryEmbedding ofInverseFrequencies(RopeLayout layout, double... inverseFrequencies) {
        return new RotaryEmbedding(layout, inverseFrequencies, 1.0);
    }

    /**
     * @param value the factor {@code s} of the cosines and sines, positive and finite (YaRN's and LongRoPE's
     *     attention factor)
     * @return a copy with that scaling
     */
    public RotaryEmbedding withAttentionScaling(double value) {
        return new RotaryEmbedding(layout, inverseFrequencies, value);
    }

    /**
     * @param value which features form a pair
     * @return a copy with that layout
     */
    public RotaryEmbedding withLayout(RopeLayout value) {
        return new RotaryEmbedding(value, inverseFrequencies, attentionScaling);
    }

    /** @return which features form a pair */
    public RopeLayout layout() {
        return layout;
    }

    /** @return {@code n}, the number of rotated pairs */
    public int pairs() {
        return inverseFrequencies.length;
    }

    /** @return {@code 2n}, the number of rotated features at the start of each head */
    public int dimension() {
        return 2 * inverseFrequencies.length;
    }

    /**
     * @param pair {@code i < n}
     * @return {@code ω_i}
     */
    public double inverseFrequency(int pair) {
        return inverseFrequencies[pair];
    }

    /** @return a copy of {@code ω_0 … ω_(n-1)} */
    public double[] inverseFrequencies() {
        return inverseFrequencies.clone();
    }

    /** @return {@code s}, the factor of the cosines and sines */
    public double attentionScaling() {
        return attentionScaling;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RotaryEmbedding r && layout == r.layout
                && Arrays.equals(inverseFrequencies, r.inverseFrequencies)
                && Double.compare(attentionScaling, r.attentionScaling) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(layout, Arrays.hashCode(inverseFrequencies), attentionScaling);
    }

    @Override
    public String toString() {
        return "RotaryEmbedding[" + layout + ", " + dimension() + " features, frequencies "
                + inverseFrequencies[0] + " … " + inverseFrequencies[inverseFrequencies.length - 1]
                + ", attentionScaling " + attentionScaling + "]";
    }
}
