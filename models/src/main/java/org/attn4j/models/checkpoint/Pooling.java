package org.attn4j.models.checkpoint;

/**
 * How a sentence embedding is made from the encoder's token embeddings {@code h [L, d]} and the attention mask
 * {@code m [L]} (1 = real token), as sentence-transformers' {@code Pooling} module does. A checkpoint states it
 * ({@link Checkpoint#setup()}); {@code org.attn4j.models.embed.SentenceEmbedder} computes it.
 */
public enum Pooling {
    /** {@code Σ_i m_i·h_i / Σ_i m_i}: the mean over the real tokens ({@code pooling_mode_mean_tokens}). */
    MEAN,
    /** {@code h_0}: the {@code [CLS]} token ({@code pooling_mode_cls_token}). */
    CLS,
    /** {@code max_i h_i} per feature over the real tokens ({@code pooling_mode_max_tokens}). */
    MAX,
    /** {@code h_last}: the last real token ({@code pooling_mode_lasttoken}; llama.cpp's pooling type 3). */
    LAST
}
