package org.attn4j.models.grammar;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.WeakHashMap;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * The bytes each token of a tokenizer adds to a text, found once per tokenizer, and a trie of them, so that which
 * tokens keep a text inside a grammar is found by walking the trie beside the grammar's automaton: a prefix shared by
 * many tokens is read once, and a subtree is left as soon as its prefix is refused.
 *
 * <p>A token's bytes: none for a special token (it adds no text); the byte of a SentencePiece {@code <0xNN>} token;
 * else the UTF-8 of what the token adds after a plain anchor token ({@code a}, so that a SentencePiece decoder does not
 * drop its leading space), or of what it decodes to alone without one; and when that text ends inside a character
 * (U+FFFD), the byte-level BPE bytes its spelling maps to, or none when it is not byte-level. A token with no bytes is
 * never allowed by a grammar.
 */
public final class TokenVocabulary {
    private static final Map<Tokenizer, TokenVocabulary> CACHE = new WeakHashMap<>();
    private static final int[] CHAR_TO_BYTE = byteLevelAlphabet();

    private final byte[][] bytes;
    private final Trie root;

    private TokenVocabulary(byte[][] bytes) {
        this.bytes = bytes;
        this.root = new Trie();
        for (int id = 0; id < bytes.length; id++) {
            if (bytes[id] != null && bytes[id].length > 0) {
                root.insert(bytes[id], 0, id);
            }
        }
        root.freeze();
    }

    /**
     * @param tokenizer a tokenizer
     * @return its vocabulary's bytes, computed on the first call for that tokenizer and kept while it lives
     */
    public static TokenVocabulary of(Tokenizer tokenizer) {
        Objects.requireNonNull(tokenizer, "TokenVocabulary.of: argument tokenizer is null");
        synchronized (CACHE) {
            return CACHE.computeIfAbsent(tokenizer, TokenVocabulary::read);
        }
    }

    /**
     * @param bytes each token's bytes, by id; null or empty for a token that adds no text
     * @return the vocabulary of those tokens
     */
    static TokenVocabulary of(byte[][] bytes) {
        return new TokenVocabulary(bytes.clone());
    }

    private static TokenVocabulary read(Tokenizer t) {
        int size = t.vocabSize();
        byte[][] out = new byte[size][];
        OptionalInt anchor = t.id("a");
        String anchorText = anchor.isPresent() ? t.decode(new int[] {anchor.getAsInt()}, false) : "";
        if (!anchorText.equals("a")) {
            anchor = OptionalInt.empty();
        }
        for (int id = 0; id < size; id++) {
            if (t.isSpecial(id) || t.token(id).isEmpty()) {
                continue;
            }
            String spelling = t.token(id).get();
            if (spelling.length() == 6 && spelling.startsWith("<0x") && spelling.endsWith(">")) {
                try {
                    out[id] = new byte[] {(byte) Integer.parseInt(spelling.substring(3, 5), 16)};
                    continue;
                } catch (NumberFormatException e) {
                    // not a byte token: read as text below
                }
            }
            String text = anchor.isPresent() ? t.decode(new int[] {anchor.getAsInt(), id}, false) : "";
            text = text.startsWith("a") ? text.substring(1) : t.decode(new int[] {id}, false);
            if (text.indexOf('\uFFFD') < 0) {
                out[id] = text.getBytes(StandardCharsets.UTF_8);
            } else {
                out[id] = byteLevel(spelling);
            }
        }
        return new TokenVocabulary(out);
    }

    /** @return how many token ids this vocabulary has */
    public int size() {
        return bytes.length;
    }

    /**
     * @param id a token id
     * @return the bytes it adds to a text (a copy), empty when it adds none or is out of range
     */
    public byte[] bytes(int id) {
        return id < 0 || id >= bytes.length || bytes[id] == null ? new byte[0] : bytes[id].clone();
    }

    byte[] bytesShared(int id) {
        return id < 0 || id >= bytes.length ? null : bytes[id];
    }

    Trie trie() {
        return root;
    }

    /** @return the bytes a byte-level BPE spelling stands for, or null when a character is outside its alphabet */
    private static byte[] byteLevel(String spelling) {
        byte[] out = new byte[spelling.length()];
        for (int i = 0; i < out.length; i++) {
            char c = spelling.charAt(i);
            if (c >= CHAR_TO_BYTE.length || CHAR_TO_BYTE[c] < 0) {
                return null;
            }
            out[i] = (byte) CHAR_TO_BYTE[c];
        }
        return out;
    }

    /**
     * GPT-2's byte-level alphabet: the printable bytes {@code !}..{@code ~}, {@code ¡}..{@code ¬} and
     * {@code ®}..{@code ÿ} stand for themselves, and the other bytes, in order, for U+0100 onwards.
     */
    private static int[] byteLevelAlphabet() {
        int[] map = new int[0x144];
        Arrays.fill(map, -1);
        int extra = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            map[printable ? b : 0x100 + extra++] = b;
        }
        return map;
    }

    /** A node of the token trie: the next bytes, the subtries they lead to, and the tokens that end here. */
    static final class Trie {
        private TreeMap<Integer, Trie> building = new TreeMap<>();
        private int[] endingIds = new int[0];
        int[] next;
        Trie[] children;

        private void insert(byte[] b, int at, int id) {
            if (at == b.length) {
                endingIds = Arrays.copyOf(endingIds, endingIds.length + 1);
                endingIds[endingIds.length - 1] = id;
                return;
            }
            building.computeIfAbsent(b[at] & 0xFF, k -> new Trie()).insert(b, at + 1, id);
        }

        private void freeze() {
            next = new int[building.size()];
            children = new Trie[building.size()];
            int i = 0;
            for (Map.Entry<Integer, Trie> e : building.entrySet()) {
                next[i] = e.getKey();
                children[i++] = e.getValue();
                e.getValue().freeze();
            }
            building = null;
        }

        /** @return the ids of the tokens whose bytes end at this node */
        int[] ending() {
            return endingIds;
        }
    }
}
