package org.attn4j.models.tokenize;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Hugging Face's {@code Precompiled} normalizer: the normalization rules a SentencePiece model carries
 * ({@code precompiled_charsmap}, for example {@code nmt_nfkc}'s), applied as Hugging Face's tokenizers applies them.
 *
 * <p>The charsmap is a little-endian {@code uint32} byte size {@code t}, then a double-array trie of {@code t / 4}
 * {@code uint32} units over UTF-8 bytes (darts-clone's layout: a unit holds a label, an offset to its children and
 * a has-leaf bit; a leaf holds a value), then the replacement strings, each ended by a zero byte; a key's value is
 * the offset of its replacement in that block. A zero byte in the text ends the lookup, as in Hugging Face's.
 *
 * <p>The text is cut into extended grapheme clusters (see {@link #graphemeEnd}). A cluster of fewer than 6 UTF-8
 * bytes whose bytes start with a key becomes the replacement of the shortest such key (the rest of the cluster is
 * dropped, as Hugging Face does); any other cluster is rewritten character by character, each character that starts
 * with a key becoming the replacement of the shortest one and every other character staying as it is.
 */
final class Precompiled {
    private final int[] trie;
    private final byte[] replacements;

    /**
     * @param charsmap the decoded {@code precompiled_charsmap}
     * @throws IllegalArgumentException if its sizes do not fit
     */
    Precompiled(byte[] charsmap) {
        if (charsmap.length < 4) {
            throw new IllegalArgumentException("Precompiled: precompiled_charsmap has " + charsmap.length
                    + " bytes, fewer than its 4-byte trie size");
        }
        ByteBuffer b = ByteBuffer.wrap(charsmap).order(ByteOrder.LITTLE_ENDIAN);
        long size = Integer.toUnsignedLong(b.getInt());
        if (size % 4 != 0 || size > charsmap.length - 4 || size == 0) {
            throw new IllegalArgumentException("Precompiled: precompiled_charsmap's trie size " + size + " is not a "
                    + "positive multiple of 4 within its " + (charsmap.length - 4) + " bytes");
        }
        trie = new int[(int) (size / 4)];
        b.asIntBuffer().get(trie);
        replacements = java.util.Arrays.copyOfRange(charsmap, 4 + (int) size, charsmap.length);
    }

    /** @return the text normalized */
    String normalize(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int start = 0; start < text.length(); ) {
            int end = graphemeEnd(text, start);
            byte[] cluster = text.substring(start, end).getBytes(StandardCharsets.UTF_8);
            String whole = cluster.length < 6 ? replacement(cluster) : null;
            if (whole != null) {
                out.append(whole);
            } else {
                for (int at = start; at < end; ) {
                    int next = at + Character.charCount(text.codePointAt(at));
                    String one = replacement(text.substring(at, next).getBytes(StandardCharsets.UTF_8));
                    out.append(one != null ? one : text.substring(at, next));
                    at = next;
                }
            }
            start = end;
        }
        return out.toString();
    }

    /** @return the replacement of the shortest key that the bytes start with, or null when none does */
    private String replacement(byte[] key) {
        int node = offset(trie[0]);
        for (byte k : key) {
            int label = k & 0xFF;
            if (label == 0) {
                return null;
            }
            node ^= label;
            if (node < 0 || node >= trie.length) {
                return null;
            }
            int unit = trie[node];
            if ((unit & (0x80000000 | 0xFF)) != label) {
                return null;
            }
            node ^= offset(unit);
            if (((unit >>> 8) & 1) == 1) {
                if (node < 0 || node >= trie.length) {
                    return null;
                }
                int value = trie[node] & 0x7FFFFFFF;
                if (value > replacements.length) {
                    throw new IllegalStateException("Precompiled: a replacement starts at " + value
                            + ", past the charsmap's " + replacements.length + " bytes of replacements");
                }
                int end = value;
                while (end < replacements.length && replacements[end] != 0) {
                    end++;
                }
                return new String(replacements, value, end - value, StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    private static int offset(int unit) {
        return (unit >>> 10) << ((unit & (1 << 9)) >>> 6);
    }

    /**
     * The end of the extended grapheme cluster (Unicode 16, UAX #29) that starts at {@code start}: CR LF stays
     * together, a control character (Cc, Zl, Zp, Cf but for ZWNJ and ZWJ) stands alone, marks (Mn, Mc, Me), ZWNJ,
     * ZWJ, emoji modifiers, tag characters and the halfwidth sound marks join the character before them, a
     * prepended concatenation mark joins the one after it, and Hangul jamo join as syllables do. The rules that only
     * join clusters of 6 UTF-8 bytes or more (emoji ZWJ sequences, regional indicator pairs, Indic conjuncts) are
     * left out: such a cluster is rewritten character by character either way.
     */
    static int graphemeEnd(String text, int start) {
        int previous = text.codePointAt(start);
        int at = start + Character.charCount(previous);
        if (previous == '\r') {
            return at < text.length() && text.charAt(at) == '\n' ? at + 1 : at;
        }
        if (isControl(previous) || previous == '\n') {
            return at;
        }
        while (at < text.length()) {
            int c = text.codePointAt(at);
            boolean join = isExtend(c) || isPrepend(previous) && !isControl(c) && c != '\r' && c != '\n'
                    || hangulJoins(previous, c);
            if (!join) {
                return at;
            }
            previous = c;
            at += Character.charCount(c);
        }
        return at;
    }

    private static boolean isControl(int c) {
        if (c == 0x200C || c == 0x200D || isPrepend(c)) {
            return false;
        }
        int t = UnicodeCategories.type(c);
        return t == Character.CONTROL || t == Character.LINE_SEPARATOR || t == Character.PARAGRAPH_SEPARATOR
                || t == Character.FORMAT;
    }

    private static boolean isExtend(int c) {
        int t = UnicodeCategories.type(c);
        return t == Character.NON_SPACING_MARK || t == Character.COMBINING_SPACING_MARK
                || t == Character.ENCLOSING_MARK || c == 0x200C || c == 0x200D || c == 0x0E33 || c == 0x0EB3
                || (c >= 0xFF9E && c <= 0xFF9F) || (c >= 0x1F3FB && c <= 0x1F3FF) || (c >= 0xE0020 && c <= 0xE007F);
    }

    /** Grapheme_Cluster_Break=Prepend: the prepended concatenation marks and the Indic prefixed letters. */
    private static boolean isPrepend(int c) {
        return (c >= 0x0600 && c <= 0x0605) || c == 0x06DD || c == 0x070F || c == 0x0890 || c == 0x0891
                || c == 0x08E2 || c == 0x0D4E || c == 0x110BD || c == 0x110CD || c == 0x111C2 || c == 0x111C3
                || c == 0x1193F || c == 0x11941 || c == 0x11A3A || (c >= 0x11A84 && c <= 0x11A89) || c == 0x11D46
                || c == 0x11F02;
    }

    private static boolean hangulJoins(int a, int b) {
        int x = hangul(a);
        int y = hangul(b);
        return (x == 'L' && (y == 'L' || y == 'V' || y == 'S' || y == 'X'))
                || ((x == 'S' || x == 'V') && (y == 'V' || y == 'T'))
                || ((x == 'X' || x == 'T') && y == 'T');
    }

    /** @return L, V, T, S (an LV syllable), X (an LVT syllable) or 0 */
    private static int hangul(int c) {
        if ((c >= 0x1100 && c <= 0x115F) || (c >= 0xA960 && c <= 0xA97C)) {
            return 'L';
        }
        if ((c >= 0x1160 && c <= 0x11A7) || (c >= 0xD7B0 && c <= 0xD7C6)) {
            return 'V';
        }
        if ((c >= 0x11A8 && c <= 0x11FF) || (c >= 0xD7CB && c <= 0xD7FB)) {
            return 'T';
        }
        if (c >= 0xAC00 && c <= 0xD7A3) {
            return (c - 0xAC00) % 28 == 0 ? 'S' : 'X';
        }
        return 0;
    }
}
