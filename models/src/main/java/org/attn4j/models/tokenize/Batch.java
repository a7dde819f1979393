package org.attn4j.models.tokenize;

import java.util.Arrays;
import java.util.List;

/**
 * Encodings padded to one length, as a model's {@code [batch, length]} inputs: {@code ids}, {@code typeIds} and
 * {@code attentionMask} ({@code 1} for a real token, {@code 0} for padding), padding on the right with the
 * tokenizer's pad id and type id 0. Immutable: the accessors copy.
 */
public final class Batch {
    private final List<Encoding> encodings;
    private final int length;
    private final int padId;

    Batch(List<Encoding> encodings, int padId) {
        this.encodings = List.copyOf(encodings);
        this.length = this.encodings.stream().mapToInt(Encoding::length).max().orElse(0);
        this.padId = padId;
    }

    /** @return the number of texts */
    public int size() {
        return encodings.size();
    }

    /** @return the padded length, the longest encoding's length */
    public int length() {
        return length;
    }

    /** @return each text's encoding, unpadded */
    public List<Encoding> encodings() {
        return encodings;
    }

    /** @return each text's count of real tokens */
    public int[] lengths() {
        return encodings.stream().mapToInt(Encoding::length).toArray();
    }

    /** @return {@code [size][length]} token ids, padded with the pad id */
    public int[][] ids() {
        return fill(padId, Encoding::id);
    }

    /** @return {@code [size][length]} type ids, padded with 0 */
    public int[][] typeIds() {
        return fill(0, Encoding::typeId);
    }

    /** @return {@code [size][length]}: 1 for each real token, 0 for padding */
    public int[][] attentionMask() {
        return fill(0, (e, i) -> 1);
    }

    private interface Cell {
        int at(Encoding e, int i);
    }

    private int[][] fill(int pad, Cell cell) {
        int[][] out = new int[encodings.size()][length];
        for (int b = 0; b < out.length; b++) {
            Encoding e = encodings.get(b);
            Arrays.fill(out[b], pad);
            for (int i = 0; i < e.length(); i++) {
                out[b][i] = cell.at(e, i);
            }
        }
        return out;
    }
}
