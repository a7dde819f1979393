package org.attn4j.api;

/** An elementwise function applied to the result of a product, in an {@link Epilogue}. */
public enum Activation {
    /** {@code y = x}. */
    IDENTITY,
    /** {@code max(x, 0)}, as {@link Ops#relu}. */
    RELU,
    /** {@code x·Φ(x) = x/2·(1 + erf(x/√2))}, as {@link Ops#gelu} with {@link GeluApproximation#NONE}. */
    GELU,
    /** GPT-2's {@code x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³)))}, as {@link Ops#gelu} with {@link GeluApproximation#TANH}. */
    GELU_TANH,
    /** {@code x·σ(x)}, as {@link Ops#silu}. */
    SILU
}
