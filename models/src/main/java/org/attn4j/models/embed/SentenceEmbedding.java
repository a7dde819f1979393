package org.attn4j.models.embed;

import java.util.Arrays;

/**
 * One text's sentence embedding.
 *
 * @param text the text as given
 * @param ids the token ids the encoder saw, {@code [CLS]} and {@code [SEP]} included, after truncation
 * @param vector the pooled (and, unless switched off, L2-normalised) embedding, {@code d} floats
 */
public record SentenceEmbedding(String text, int[] ids, float[] vector) {
    /** Copies the arrays. */
    public SentenceEmbedding {
        ids = ids.clone();
        vector = vector.clone();
    }

    @Override
    public int[] ids() {
        return ids.clone();
    }

    @Override
    public float[] vector() {
        return vector.clone();
    }

    /**
     * @param other an embedding of the same dimension
     * @return {@code a·b / (|a|·|b|)}; 0 when either vector is zero
     */
    public double cosine(SentenceEmbedding other) {
        if (other.vector.length != vector.length) {
            throw new IllegalArgumentException("SentenceEmbedding.cosine: dimensions " + vector.length + " and "
                    + other.vector.length + " differ");
        }
        double dot = 0;
        double a = 0;
        double b = 0;
        for (int i = 0; i < vector.length; i++) {
            dot += (double) vector[i] * other.vector[i];
            a += (double) vector[i] * vector[i];
            b += (double) other.vector[i] * other.vector[i];
        }
        return a == 0 || b == 0 ? 0 : dot / Math.sqrt(a * b);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SentenceEmbedding e && text.equals(e.text) && Arrays.equals(ids, e.ids)
                && Arrays.equals(vector, e.vector);
    }

    @Override
    public int hashCode() {
        return 31 * text.hashCode() + Arrays.hashCode(vector);
    }

    @Override
    public String toString() {
        return "SentenceEmbedding[" + ids.length + " tokens, " + vector.length + " dims]";
    }
}
