package org.attn4j.api;

/** Which GELU formula {@link Ops#gelu(Tensor, GeluApproximation)} computes, as PyTorch's {@code approximate}. */
public enum GeluApproximation {
    /** {@code x · Φ(x) = x/2 · (1 + erf(x/√2))}. */
    NONE,
    /** {@code x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))}, as GPT-2 uses. */
    TANH
}
