package org.attn4j.models.tutorial;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * The options of {@link MultiHeadAttention#forward(org.attn4j.api.Scope, org.attn4j.api.Tensor,
 * org.attn4j.api.Tensor, org.attn4j.api.Tensor, MultiHeadOptions)}, PyTorch's keyword arguments of
 * {@code nn.MultiheadAttention.forward} as an immutable value. Start from {@link #defaults()} (PyTorch's defaults:
 * no masks, {@code need_weights=True}, {@code average_attn_weights=True}, inference) and change what you need with
 * the {@code with…} methods; each returns a new value, so an option added later changes no caller.
 */
public final class MultiHeadOptions {
    private static final MultiHeadOptions DEFAULTS = new MultiHeadOptions(new Values());

    /** Every option, in one place: the defaults are its initial values, a copy is one call. */
    private static final class Values implements Cloneable {
        AttentionMasks masks = AttentionMasks.NONE;
        boolean needWeights = true;
        boolean averageAttnWeights = true;
        RunMode mode = RunMode.INFERENCE;

        Values copy() {
            try {
                return (Values) clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private final Values v;

    private MultiHeadOptions(Values v) {
        if (v.masks == null) {
            throw new IllegalArgumentException("MultiHeadAttention: argument masks is null; use AttentionMasks.NONE");
        }
        if (v.mode == null) {
            throw new IllegalArgumentException("MultiHeadAttention: argument mode is null; use RunMode.INFERENCE");
        }
        this.v = v;
    }

    private MultiHeadOptions with(Consumer<Values> change) {
        Values next = v.copy();
        change.accept(next);
        return new MultiHeadOptions(next);
    }

    /** @return no masks, weights returned and averaged over heads, inference */
    public static MultiHeadOptions defaults() {
        return DEFAULTS;
    }

    /** @return key padding, attention and additive masks and the causal flag */
    public AttentionMasks masks() {
        return v.masks;
    }

    /** @return whether the attention weights are returned */
    public boolean needWeights() {
        return v.needWeights;
    }

    /**
     * @return whether returned weights are averaged over heads ({@code [B, L, S]}) rather than kept per head
     *     ({@code [B, H, L, S]})
     */
    public boolean averageAttnWeights() {
        return v.averageAttnWeights;
    }

    /** @return training (dropout on the weights, seeded) or inference */
    public RunMode mode() {
        return v.mode;
    }

    /**
     * @param value the masks, in the api's convention ({@code true} = may attend)
     * @return a copy with those masks
     */
    public MultiHeadOptions withMasks(AttentionMasks value) {
        return with(o -> o.masks = value);
    }

    /**
     * @param value whether to return the attention weights
     * @return a copy with {@code needWeights} set
     */
    public MultiHeadOptions withNeedWeights(boolean value) {
        return with(o -> o.needWeights = value);
    }

    /**
     * @param value average the returned weights over heads, or keep them per head
     * @return a copy with {@code averageAttnWeights} set
     */
    public MultiHeadOptions withAverageAttnWeights(boolean value) {
        return with(o -> o.averageAttnWeights = value);
    }

    /**
     * @param value training or inference
     * @return a copy with that mode
     */
    public MultiHeadOptions withMode(RunMode value) {
        return with(o -> o.mode = value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MultiHeadOptions m && v.masks.equals(m.v.masks) && v.needWeights == m.v.needWeights
                && v.averageAttnWeights == m.v.averageAttnWeights && v.mode.equals(m.v.mode);
    }

    @Override
    public int hashCode() {
        return Objects.hash(v.masks, v.needWeights, v.averageAttnWeights, v.mode);
    }

    @Override
    public String toString() {
        return "MultiHeadOptions[masks=" + v.masks + ", needWeights=" + v.needWeights + ", averageAttnWeights="
                + v.averageAttnWeights + ", mode=" + v.mode + "]";
    }
}
