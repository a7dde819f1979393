package org.attn4j.models.bert;

import java.util.Arrays;
import java.util.List;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;

/**
 * A padded batch of token ids for a BERT encoder, the three tensors a Hugging Face tokenizer returns, each
 * {@code [batch, length]} row-major.
 *
 * @param batch {@code B}
 * @param length {@code L}, the longest sequence
 * @param inputIds token ids; padding positions hold 0
 * @param tokenTypeIds segment ids (0 for a single text)
 * @param attentionMask 1 for a real token, 0 for padding
 */
public record BertInput(int batch, int length, int[] inputIds, int[] tokenTypeIds, int[] attentionMask) {
    /** Checks the lengths and copies the arrays. */
    public BertInput {
        if (batch < 1 || length < 1) {
            throw new IllegalArgumentException("BertInput: batch " + batch + " and length " + length
                    + " must be at least 1");
        }
        long n = (long) batch * length;
        if (inputIds.length != n || tokenTypeIds.length != n || attentionMask.length != n) {
            throw new IllegalArgumentException("BertInput: input_ids " + inputIds.length + ", token_type_ids "
                    + tokenTypeIds.length + ", attention_mask " + attentionMask.length + " values; [" + batch + ", "
                    + length + "] needs " + n + " each");
        }
        inputIds = inputIds.clone();
        tokenTypeIds = tokenTypeIds.clone();
        attentionMask = attentionMask.clone();
        for (int m : attentionMask) {
            if (m != 0 && m != 1) {
                throw new IllegalArgumentException("BertInput: attention_mask holds " + m + "; only 0 and 1 are valid");
            }
        }
    }

    /**
     * Pads sequences of ids on the right to the longest one.
     *
     * @param sequences token ids of each text, including {@code [CLS]} and {@code [SEP]}; not modified
     * @return the batch, token types 0, mask 1 on the real tokens
     */
    public static BertInput pad(List<int[]> sequences) {
        return pad(sequences, null);
    }

    /**
     * Pads sequences of ids and their token type ids (a pair's segments, 0 then 1) on the right to the longest one.
     *
     * @param sequences token ids of each text or pair, special tokens included; not modified
     * @param typeIds each sequence's token type ids, of the same lengths, or null for all 0; not modified
     * @return the batch, padding with id 0, type 0, mask 0
     */
    public static BertInput pad(List<int[]> sequences, List<int[]> typeIds) {
        if (sequences.isEmpty()) {
            throw new IllegalArgumentException("BertInput.pad: argument sequences is empty");
        }
        if (typeIds != null && typeIds.size() != sequences.size()) {
            throw new IllegalArgumentException("BertInput.pad: " + sequences.size() + " sequences but "
                    + typeIds.size() + " type id arrays");
        }
        int length = 0;
        for (int i = 0; i < sequences.size(); i++) {
            int[] s = sequences.get(i);
            if (s.length == 0) {
                throw new IllegalArgumentException("BertInput.pad: a sequence is empty");
            }
            if (typeIds != null && typeIds.get(i).length != s.length) {
                throw new IllegalArgumentException("BertInput.pad: sequence " + i + " has " + s.length
                        + " ids but " + typeIds.get(i).length + " type ids");
            }
            length = Math.max(length, s.length);
        }
        int batch = sequences.size();
        int[] ids = new int[batch * length];
        int[] types = new int[batch * length];
        int[] mask = new int[batch * length];
        for (int b = 0; b < batch; b++) {
            int[] s = sequences.get(b);
            System.arraycopy(s, 0, ids, b * length, s.length);
            if (typeIds != null) {
                System.arraycopy(typeIds.get(b), 0, types, b * length, s.length);
            }
            Arrays.fill(mask, b * length, b * length + s.length, 1);
        }
        return new BertInput(batch, length, ids, types, mask);
    }

    /** @return whether some position is padding */
    public boolean padded() {
        for (int m : attentionMask) {
            if (m == 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the key padding mask {@code [B, 1, 1, L]}, true on real tokens, or null when nothing is padded
     */
    public Mask keyPadding() {
        if (!padded()) {
            return null;
        }
        boolean[] allowed = new boolean[attentionMask.length];
        for (int i = 0; i < allowed.length; i++) {
            allowed[i] = attentionMask[i] == 1;
        }
        return Mask.of(Shape.of(batch, 1, 1, length), allowed);
    }

    @Override
    public int[] inputIds() {
        return inputIds.clone();
    }

    @Override
    public int[] tokenTypeIds() {
        return tokenTypeIds.clone();
    }

    @Override
    public int[] attentionMask() {
        return attentionMask.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BertInput b && batch == b.batch && length == b.length
                && Arrays.equals(inputIds, b.inputIds) && Arrays.equals(tokenTypeIds, b.tokenTypeIds)
                && Arrays.equals(attentionMask, b.attentionMask);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(inputIds) + Arrays.hashCode(attentionMask);
    }

    @Override
    public String toString() {
        return "BertInput[" + batch + ", " + length + "]";
    }
}
