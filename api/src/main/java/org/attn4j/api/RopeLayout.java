package org.attn4j.api;

/**
 * Which pairs of features {@link Ops#rope(Tensor, RopeLayout, double, int)} rotates together. Pair {@code i} of a
 * head of {@code d} features (for {@code i < d/2}) turns by the angle {@code position · base^(-2i/d)}.
 */
public enum RopeLayout {
    /** Pair {@code i} is {@code (x[i], x[i + d/2])}: GPT-NeoX and Llama ({@code rotate_half}). */
    HALF_SPLIT,
    /** Pair {@code i} is {@code (x[2i], x[2i + 1])}: GPT-J ({@code rotate_every_two}). */
    INTERLEAVED
}
