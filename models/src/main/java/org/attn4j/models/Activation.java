package org.attn4j.models;

import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Ops;
import org.attn4j.api.Tensor;

/**
 * The nonlinearity of a transformer's feed-forward network. Hugging Face's {@code hidden_act} names:
 * {@code relu}; {@code gelu}; {@code gelu_new}, {@code gelu_pytorch_tanh} (the same tanh form); {@code silu},
 * {@code swish}.
 */
public enum Activation {
    /** {@code max(x, 0)}: the original transformer, Bloem, PyTorch's default. */
    RELU,
    /** {@code x·Φ(x)} with the exact erf, PyTorch's {@code "gelu"}. */
    GELU,
    /** GELU's tanh approximation, as GPT-2 and Gemma use it. */
    GELU_TANH,
    /** {@code x·σ(x)} (swish), the gate of Llama-style MLPs. */
    SILU;

    /**
     * @param name a Hugging Face activation name ({@code hidden_act}, {@code activation_function})
     * @return the activation, or null if attn4j does not compute it
     */
    public static Activation ofHuggingFace(String name) {
        return switch (name) {
            case "relu" -> RELU;
            case "gelu" -> GELU;
            case "gelu_new", "gelu_pytorch_tanh" -> GELU_TANH;
            case "silu", "swish" -> SILU;
            default -> null;
        };
    }

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
            case SILU -> ops.silu(x);
        };
    }
}
