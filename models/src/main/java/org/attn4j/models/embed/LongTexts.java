package org.attn4j.models.embed;

/**
 * What a {@link SentenceEmbedder} does with a text longer than its maximum number of tokens.
 */
public enum LongTexts {
    /** Keep the first tokens that fit, as sentence-transformers does; the rest of the text is not read. */
    TRUNCATE,
    /**
     * Read the whole text in windows, as langchain4j's in-process models do: the text's tokens are cut into runs
     * that fit (never inside a word, see {@code Tokenizer.encodeWindows}), each run is encoded and pooled on its
     * own, and the text's vector is the average of the runs' pooled vectors weighted by their numbers of tokens
     * (special tokens not counted), then normalised as usual. A text that fits is one window, so its vector is the
     * same as with {@link #TRUNCATE}.
     */
    SPLIT
}
