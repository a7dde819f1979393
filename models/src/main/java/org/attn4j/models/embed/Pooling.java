package org.attn4j.models.embed;

/**
 * How a sentence embedding is made from the encoder's token embeddings {@code h [L, d]} and the attention mask
 * {@code m [L]} (1 = real token), as sentence-transformers' {@code Pooling} module does.
 */
public enum Pooling {
    /** {@code Σ_i m_i·h_i / Σ_i m_i}: the mean over the real tokens ({@code pooling_mode_mean_tokens}). */
    MEAN,
    /** {@code h_0}: the {@code [CLS]} token ({@code pooling_mode_cls_token}). */
    CLS,
    /** {@code max_i h_i} per feature over the real tokens ({@code pooling_mode_max_tokens}). */
    MAX,
    /**
     * {@code h_t} with {@code t = max{i : m_i = 1}}: the last real token ({@code pooling_mode_lasttoken}), which
     * in a decoder has read every token before it; with left padding, the row's last position.
     */
    LAST_TOKEN;

    /**
     * @param hidden {@code [B, L, d]} row-major; not modified
     * @param mask {@code [B, L]}, 1 on real tokens; not modified
     * @param row {@code b}
     * @param length {@code L}
     * @param dim {@code d}
     * @return the pooled vector of row {@code b}
     */
    float[] pool(float[] hidden, int[] mask, int row, int length, int dim) {
        float[] out = new float[dim];
        int base = row * length;
        switch (this) {
            case CLS -> System.arraycopy(hidden, base * dim, out, 0, dim);
            case MEAN -> {
                double[] sum = new double[dim];
                int count = 0;
                for (int i = 0; i < length; i++) {
                    if (mask[base + i] == 1) {
                        count++;
                        for (int j = 0; j < dim; j++) {
                            sum[j] += hidden[(base + i) * dim + j];
                        }
                    }
                }
                for (int j = 0; j < dim; j++) {
                    out[j] = (float) (sum[j] / Math.max(count, 1));
                }
            }
            case MAX -> {
                java.util.Arrays.fill(out, Float.NEGATIVE_INFINITY);
                for (int i = 0; i < length; i++) {
                    if (mask[base + i] == 1) {
                        for (int j = 0; j < dim; j++) {
                            out[j] = Math.max(out[j], hidden[(base + i) * dim + j]);
                        }
                    }
                }
            }
            case LAST_TOKEN -> {
                int last = length - 1;
                while (last > 0 && mask[base + last] != 1) {
                    last--;
                }
                System.arraycopy(hidden, (base + last) * dim, out, 0, dim);
            }
            default -> throw new IllegalStateException(name());
        }
        return out;
    }
}
