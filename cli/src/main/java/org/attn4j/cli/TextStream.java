package org.attn4j.cli;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * Turns generated token ids into text as they come. A byte-level token may end inside a UTF-8 sequence, so the ids
 * since the last complete character are kept and decoded together: the text up to the trailing replacement
 * characters (an unfinished sequence) is passed on once, the rest when a later token completes it or at
 * {@link #finish()}. The ids are decoded after one id of context (the token before them, at first the prompt's
 * last), and the context's own text is cut off, so that a token's leading space survives where a tokenizer drops
 * the first one (SentencePiece's {@code ▁}). For byte-level BPE the pieces joined equal
 * {@code tokenizer.decode(allIds)}.
 */
final class TextStream {
    private static final char REPLACEMENT = '\uFFFD';

    private final Tokenizer tokenizer;
    private final Consumer<String> sink;
    private int[] pending = new int[8];
    private int size;
    private int emitted;
    private int[] context;

    /**
     * @param tokenizer decodes the ids
     * @param sink receives each new piece of text, never an empty one
     */
    TextStream(Tokenizer tokenizer, Consumer<String> sink) {
        this(tokenizer, sink, new int[0]);
    }

    /**
     * @param tokenizer decodes the ids
     * @param sink receives each new piece of text, never an empty one
     * @param before the ids before the first one streamed (the prompt); only the last is used, as context
     */
    TextStream(Tokenizer tokenizer, Consumer<String> sink, int[] before) {
        this.tokenizer = Objects.requireNonNull(tokenizer, "TextStream: argument tokenizer is null");
        this.sink = Objects.requireNonNull(sink, "TextStream: argument sink is null");
        this.context = before.length == 0 ? new int[0] : new int[] {before[before.length - 1]};
    }

    /** @return the pending ids decoded after the context, without the context's own text */
    private String decodePending() {
        int[] ids = Arrays.copyOf(context, context.length + size);
        System.arraycopy(pending, 0, ids, context.length, size);
        String base = tokenizer.decode(context);
        String text = tokenizer.decode(ids);
        return text.startsWith(base) ? text.substring(base.length()) : tokenizer.decode(Arrays.copyOf(pending, size));
    }

    /** @param id the next token id */
    void accept(int id) {
        if (size == pending.length) {
            pending = Arrays.copyOf(pending, 2 * size);
        }
        pending[size++] = id;
        String text = decodePending();
        int complete = text.length();
        while (complete > emitted && text.charAt(complete - 1) == REPLACEMENT) {
            complete--;
        }
        emit(text, complete);
        if (complete == text.length()) {
            context = new int[] {id};
            size = 0;
            emitted = 0;
        }
    }

    /** Passes on what is left, unfinished sequences as replacement characters. */
    void finish() {
        if (size > 0) {
            String text = decodePending();
            emit(text, text.length());
            context = new int[] {pending[size - 1]};
            size = 0;
            emitted = 0;
        }
    }

    private void emit(String text, int end) {
        if (end > emitted) {
            sink.accept(text.substring(emitted, end));
            emitted = end;
        }
    }
}
