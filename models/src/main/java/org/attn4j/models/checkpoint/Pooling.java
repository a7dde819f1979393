package org.attn4j.models.checkpoint;

/**
 * How a sentence embedding is made from the encoder's token embeddings {@code h [L, d]} and the pooling mask
 * {@code m [L]} (1 = a real token that pooling reads: the attention mask, with a prompt's tokens set to 0 when the
 * checkpoint's {@code include_prompt} is false), as sentence-transformers' {@code Pooling} module does. A checkpoint
 * states it ({@link Checkpoint#setup()}); {@code org.attn4j.models.embed.SentenceEmbedder} computes it.
 */
public enum Pooling {
    /** {@code Σ_i m_i·h_i / max(Σ_i m_i, 1e-9)}: the mean over the real tokens ({@code pooling_mode_mean_tokens}). */
    MEAN,
    /** {@code h_0}: the first token, {@code [CLS]} or {@code <s>} ({@code pooling_mode_cls_token}). */
    CLS,
    /** {@code max_i h_i} per feature over the real tokens ({@code pooling_mode_max_tokens}). */
    MAX,
    /** {@code Σ_i m_i·h_i / sqrt(Σ_i m_i)} ({@code pooling_mode_mean_sqrt_len_tokens}). */
    MEAN_SQRT_LEN,
    /**
     * {@code Σ_i (i+1)·m_i·h_i / Σ_i (i+1)·m_i}: later tokens weigh more, position {@code i} counted from 0
     * ({@code pooling_mode_weightedmean_tokens}, SGPT).
     */
    WEIGHTED_MEAN,
    /**
     * {@code h_j} for the last {@code j} with {@code m_j = 1}, else {@code h_{L-1}} ({@code pooling_mode_lasttoken};
     * llama.cpp's pooling type 3).
     */
    LAST_TOKEN
}
