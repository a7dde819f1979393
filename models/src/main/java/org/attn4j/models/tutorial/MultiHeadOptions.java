package org.attn4j.models.tutorial;

import java.util.Objects;

/**
 * The options of {@link MultiHeadAttention#forward(org.attn4j.api.Scope, org.attn4j.api.Tensor,
 * org.attn4j.api.Tensor, org.attn4j.api.Tensor, MultiHeadOptions)}, PyTorch's keyword arguments of
 * {@code nn.MultiheadAttention.forward} as an immutable value. Start from {@link #defaults()} (PyTorch's defaults:
 * no masks, {@code need_weights=True}, {@code average_attn_weights=True}, inference) and change what you need with
 * the {@code with…} methods; each returns a new value, so an option added later changes no caller.
 */
public final class MultiHeadOptions {
    private static final MultiHeadOptions DEFAULTS =
            new MultiHeadOptions(AttentionMasks.NONE, true, true, RunMode.INFERENCE);

    private final AttentionMasks masks;
    private final boolean needWeights;
    private final boolean averageAttnWeights;
    private final RunMode mode;

    private MultiHeadOptions(AttentionMasks masks, boolean needWeights, boolean averageAttnWeights, RunMode mode) {
        if (masks == null) {
            throw new IllegalArgumentException("MultiHeadAttention: argument masks is null; use AttentionMasks.NONE");
        }
        if (mode == null) {
            throw new IllegalArgumentException("MultiHeadAttention: argument mode is null; use RunMode.INFERENCE");
        }
        this.masks = masks;
        this.needWeights = needWeights;
        this.averageAttnWeights = averageAttnWeights;
        this.mode = mode;
    }

    /** @return no masks, weights returned and averaged over heads, inference */
    public static MultiHeadOptions defaults() {
        return DEFAULTS;
    }

    /** @return key padding, attention and additive masks and the causal flag */
    public AttentionMasks masks() {
        return masks;
    }

    /** @return whether the attention weights are returned */
    public boolean needWeights() {
        return needWeights;
    }

    /**
     * @return whether returned weights are averaged over heads ({@code [B, L, S]}) rather than kept per head
     *     ({@code [B, H, L, S]})
     */
    public boolean averageAttnWeights() {
        return averageAttnWeights;
    }

    /** @return training (dropout on the weights, seeded) or inference */
    public RunMode mode() {
        return mode;
    }

    /**
     * @param value the masks, in the api's convention ({@code true} = may attend)
     * @return a copy with those masks
     */
    public MultiHeadOptions withMasks(AttentionMasks value) {
        return new MultiHeadOptions(value, needWeights, averageAttnWeights, mode);
    }

    /**
     * @param value whether to return the attention weights
     * @return a copy with {@code needWeights} set
     */
    public MultiHeadOptions withNeedWeights(boolean value) {
        return new MultiHeadOptions(masks, value, averageAttnWeights, mode);
    }

    /**
     * @param value average the returned weights over heads, or keep them per head
     * @return a copy with {@code averageAttnWeights} set
     */
    public MultiHeadOptions withAverageAttnWeights(boolean value) {
        return new MultiHeadOptions(masks, needWeights, value, mode);
    }

    /**
     * @param value training or inference
     * @return a copy with that mode
     */
    public MultiHeadOptions withMode(RunMode value) {
        return new MultiHeadOptions(masks, needWeights, averageAttnWeights, value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MultiHeadOptions m && masks.equals(m.masks) && needWeights == m.needWeights
                && averageAttnWeights == m.averageAttnWeights && mode.equals(m.mode);
    }

    @Override
    public int hashCode() {
        return Objects.hash(masks, needWeights, averageAttnWeights, mode);
    }

    @Override
    public String toString() {
        return "MultiHeadOptions[masks=" + masks + ", needWeights=" + needWeights + ", averageAttnWeights="
                + averageAttnWeights + ", mode=" + mode + "]";
    }
}
