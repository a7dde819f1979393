package org.attn4j.models;

import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Ops;
import org.attn4j.api.Tensor;

/** The nonlinearity of a transformer's feed-forward network. */
public enum Activation {
    /** {@code max(x, 0)}: the original transformer, Bloem, PyTorch's default. */
    RELU,
    /** {@code x·Φ(x)} with the exact erf, PyTorch's {@code "gelu"}. */
    GELU,
    /** GELU's tanh approximation, as GPT-2 uses it. */
    GELU_TANH;

    /**
     * @param ops the ops whose scope receives the result
     * @param x any shape
     * @return the activation applied elementwise, same shape
     */
    public Tensor apply(Ops ops, Tensor x) {
        return switch (this) {
            case RELU -> ops.relu(x);
            case GELU -> ops.gelu(x, GeluApproximation.NONE);
            case GELU_TANH -> ops.gelu(x, GeluApproximation.TANH);
        };
    }
}
