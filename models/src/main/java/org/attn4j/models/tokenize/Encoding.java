package org.attn4j.models.tokenize;

import java.util.Arrays;
import java.util.List;

/**
 * One encoded text (or text pair): token ids with the special tokens of the tokenizer's template, their type ids
 * (0 for the first text, 1 for the second of a pair, as BERT's {@code token_type_ids}), an attention mask of ones
 * and the tokens as strings. All four have the same length. Immutable: the accessors copy.
 */
public final class Encoding {
    private final int[] ids;
    private final int[] typeIds;
    private final List<String> tokens;

    Encoding(int[] ids, int[] typeIds, List<String> tokens) {
        if (ids.length != typeIds.length || ids.length != tokens.size()) {
            throw new IllegalArgumentException("Encoding: " + ids.length + " ids, " + typeIds.length
                    + " type ids and " + tokens.size() + " tokens differ in length");
        }
        this.ids = ids;
        this.typeIds = typeIds;
        this.tokens = List.copyOf(tokens);
    }

    /** @return the number of tokens */
    public int length() {
        return ids.length;
    }

    /** @return the token ids ({@code input_ids}) */
    public int[] ids() {
        return ids.clone();
    }

    /** @return the type id of each token ({@code token_type_ids}) */
    public int[] typeIds() {
        return typeIds.clone();
    }

    /** @return ones, one per token ({@code attention_mask}; padding happens in a {@link Batch}) */
    public int[] attentionMask() {
        int[] mask = new int[ids.length];
        Arrays.fill(mask, 1);
        return mask;
    }

    /** @return the tokens as the vocabulary spells them ({@code [CLS]}, {@code hello}, {@code ##lo}, …) */
    public List<String> tokens() {
        return tokens;
    }

    int id(int i) {
        return ids[i];
    }

    int typeId(int i) {
        return typeIds[i];
    }

    @Override
    public String toString() {
        return "Encoding" + tokens + Arrays.toString(ids);
    }
}
