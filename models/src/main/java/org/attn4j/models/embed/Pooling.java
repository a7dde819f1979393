package org.attn4j.models.embed;

/**
 * How a sentence embedding is made from the encoder's token embeddings {@code h [L, d]} and the pooling mask
 * {@code m [L]} (1 = a real token that pooling reads: the attention mask, with a prompt's tokens set to 0 when the
 * folder's {@code include_prompt} is false), as sentence-transformers' {@code Pooling} module does.
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
    /** {@code h_j} for the last {@code j} with {@code m_j = 1}, else {@code h_{L-1}} ({@code pooling_mode_lasttoken}). */
    LAST_TOKEN;

    /**
     * @param hidden {@code [B, L, d]} row-major; not modified
     * @param mask {@code [B, L]}, 1 on the tokens pooling reads; not modified
     * @param row {@code b}
     * @param length {@code L}
     * @param dim {@code d}
     * @return the pooled vector of row {@code b}
     */
    double[] pool(float[] hidden, int[] mask, int row, int length, int dim) {
        double[] out = new double[dim];
        int base = row * length;
        switch (this) {
            case CLS -> {
                for (int j = 0; j < dim; j++) {
                    out[j] = hidden[base * dim + j];
                }
            }
            case LAST_TOKEN -> {
                int last = length - 1;
                for (int i = length - 1; i >= 0; i--) {
                    if (mask[base + i] == 1) {
                        last = i;
                        break;
                    }
                }
                for (int j = 0; j < dim; j++) {
                    out[j] = hidden[(base + last) * dim + j];
                }
            }
            case MEAN, MEAN_SQRT_LEN, WEIGHTED_MEAN -> {
                double count = 0;
                for (int i = 0; i < length; i++) {
                    if (mask[base + i] == 1) {
                        double w = this == WEIGHTED_MEAN ? i + 1 : 1;
                        count += w;
                        for (int j = 0; j < dim; j++) {
                            out[j] += w * hidden[(base + i) * dim + j];
                        }
                    }
                }
                double divisor = this == MEAN_SQRT_LEN ? Math.sqrt(Math.max(count, 1e-9)) : Math.max(count, 1e-9);
                for (int j = 0; j < dim; j++) {
                    out[j] /= divisor;
                }
            }
            case MAX -> {
                java.util.Arrays.fill(out, Double.NEGATIVE_INFINITY);
                for (int i = 0; i < length; i++) {
                    if (mask[base + i] == 1) {
                        for (int j = 0; j < dim; j++) {
                            out[j] = Math.max(out[j], hidden[(base + i) * dim + j]);
                        }
                    }
                }
            }
            default -> throw new IllegalStateException(name());
        }
        return out;
    }
}
