package org.attn4j.api;

/**
 * Where the causal diagonal sits when the number of queries {@code Lq} and of keys {@code Lk} differ. Query
 * {@code i} sits at position {@code i' = i} (top-left) or {@code i' = i + Lk - Lq} (bottom-right) of the key
 * sequence and may attend to keys {@code j <= i'}. {@code Lk} here is
 * {@link AttentionOptions#keyLength()} when that is set.
 */
public enum CausalAlignment {
    /** {@code j <= i}: PyTorch's {@code is_causal} and {@code causal_upper_left}; a training forward. */
    TOP_LEFT,
    /**
     * {@code j <= i + Lk - Lq}: PyTorch's {@code causal_lower_right}; the queries are the last {@code Lq} tokens of
     * the sequence, as when decoding with a key/value cache.
     */
    BOTTOM_RIGHT
}
