package org.attn4j.models.grammar;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Where a text stands in a {@link JsonGrammar}: an immutable state of its pushdown automaton over the text's UTF-8
 * bytes. {@link #advance} reads one more byte into a new state, or refuses it; a text is a valid prefix of the
 * grammar's language as long as every byte was taken, and a whole text of it when {@link #complete()}. The text
 * starts with the value itself and ends with it (or with the literal text {@link JsonGrammar#between} puts around
 * it), with no whitespace before or after; between two tokens inside
 * (brackets, braces, commas, colons, values) a gap is empty, one space, or a newline followed by at most
 * {@value Tasks#MAX_INDENT} spaces and tabs, so that pretty-printed JSON is read and a model cannot write whitespace
 * forever.
 */
public final class JsonRecognizer {
    private final List<Tasks.Stack> configurations;

    JsonRecognizer(List<Tasks.Stack> configurations) {
        this.configurations = configurations;
    }

    /**
     * @param b a byte of the text's UTF-8
     * @return the state after it, or null when no text of the grammar continues so
     */
    public JsonRecognizer advance(byte b) {
        int value = b & 0xFF;
        if (configurations.size() == 1 && configurations.get(0).top() == Tasks.Str.NORMAL && value >= 0x20
                && value < 0x80 && value != '"' && value != '\\') {
            return this;
        }
        List<Tasks.Stack> out = new ArrayList<>(2);
        for (Tasks.Stack s : configurations) {
            Tasks.feed(s, value, out);
        }
        if (out.isEmpty()) {
            return null;
        }
        return new JsonRecognizer(out.size() == 1 ? out : new ArrayList<>(new LinkedHashSet<>(out)));
    }

    /**
     * @param bytes UTF-8 bytes, read in order
     * @return the state after all of them, or null when one is refused
     */
    public JsonRecognizer advance(byte[] bytes) {
        JsonRecognizer s = this;
        for (int i = 0; i < bytes.length && s != null; i++) {
            s = s.advance(bytes[i]);
        }
        return s;
    }

    /**
     * @param text more text
     * @return the state after its UTF-8 bytes, or null when one is refused
     */
    public JsonRecognizer advance(String text) {
        return advance(text.getBytes(StandardCharsets.UTF_8));
    }

    /** @return whether the text read so far is a whole value of the grammar */
    public boolean complete() {
        for (Tasks.Stack s : configurations) {
            if (s.complete()) {
                return true;
            }
        }
        return false;
    }

    /** Two states are equal when they read every further text alike (the same configurations, in order). */
    @Override
    public boolean equals(Object o) {
        return o instanceof JsonRecognizer r && r.configurations.equals(configurations);
    }

    @Override
    public int hashCode() {
        return configurations.hashCode();
    }

    /** @return how many ways the text read so far can still be parsed (1 for most texts) */
    int configurations() {
        return configurations.size();
    }
}
