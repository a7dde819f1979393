package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Turns generated token ids into text as they come, for streaming. Decoding one token alone is wrong for most
 * tokenizers (a byte-level or {@code <0xNN>} token can end inside a UTF-8 sequence; SentencePiece decoders drop the
 * space of the first token), so, as Hugging Face's {@code DecodeStream}, each step decodes a short window of recent
 * ids and passes on what the new id added beyond the window's text before it; text ending in U+FFFD (an unfinished
 * UTF-8 sequence) is held back until a later id completes it, or {@link #finish()}. The pieces joined equal
 * {@code tokenizer.decode(allIds, skipSpecialTokens)} whenever a token's text depends on no token further back than
 * the window: always for byte-level BPE, and for SentencePiece's {@code <0xNN>} tokens when their bytes are valid
 * UTF-8 as a model writes them. Two decoders can reach further back, and then the stream keeps what it passed on:
 * {@code ByteFallback} turns a whole run of byte tokens into U+FFFD when the run ends invalid (so a valid byte passed
 * on before stays), and transformers' {@code clean_up_tokenization} can join a token to one already passed on. Not
 * thread-safe: one stream per generation.
 */
public final class DecodeStream {
    private final Tokenizer tokenizer;
    private final boolean skipSpecialTokens;
    private final List<Integer> window = new ArrayList<>();
    private int read;
    private String prefix = "";

    /**
     * @param tokenizer decodes the ids
     * @param skipSpecialTokens whether special tokens are left out of the text
     */
    public DecodeStream(Tokenizer tokenizer, boolean skipSpecialTokens) {
        this(tokenizer, skipSpecialTokens, new int[0]);
    }

    /**
     * A stream that continues after some ids: they are decoded with the first streamed ids but their own text is
     * never passed on, so the first new token reads as it does after them. A continuation of a prompt passes the
     * prompt's last id: SentencePiece's decoder drops the space of a text's first word, which a continuation's first
     * word keeps. (A chat reply streams without context, as transformers decodes a reply on its own.)
     *
     * @param tokenizer decodes the ids
     * @param skipSpecialTokens whether special tokens are left out of the text
     * @param context the ids before the first streamed one, usually one or a few
     * @throws IllegalArgumentException if a context id is not in the vocabulary
     */
    public DecodeStream(Tokenizer tokenizer, boolean skipSpecialTokens, int[] context) {
        this.tokenizer = Objects.requireNonNull(tokenizer, "DecodeStream: argument tokenizer is null");
        this.skipSpecialTokens = skipSpecialTokens;
        for (int id : Objects.requireNonNull(context, "DecodeStream: argument context is null")) {
            window.add(id);
        }
        read = window.size();
        prefix = read == 0 ? "" : decode();
    }

    /**
     * @param id the next token id
     * @return the text it completes; empty while it ends inside a character or adds no text
     * @throws IllegalArgumentException if the id is not in the vocabulary
     */
    public String next(int id) {
        window.add(id);
        String text = decode();
        if (text.length() <= prefix.length() || text.endsWith("\uFFFD")) {
            return "";
        }
        String added = text.substring(common(text, prefix));
        window.subList(0, read).clear();
        read = window.size();
        prefix = decode();
        return added;
    }

    /** @return what is left: the text of ids that ended inside a character, with U+FFFD for the unfinished bytes */
    public String finish() {
        if (read == window.size()) {
            return "";
        }
        String text = decode();
        String added = text.substring(Math.min(common(text, prefix), text.length()));
        window.clear();
        read = 0;
        prefix = "";
        return added;
    }

    private String decode() {
        int[] ids = new int[window.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = window.get(i);
        }
        return tokenizer.decode(ids, skipSpecialTokens);
    }

    private static int common(String text, String prefix) {
        if (text.startsWith(prefix)) {
            return prefix.length();
        }
        int n = 0;
        while (n < Math.min(text.length(), prefix.length()) && text.charAt(n) == prefix.charAt(n)) {
            n++;
        }
        return n;
    }
}
