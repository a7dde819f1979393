package org.attn4j.models.tokenize;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GPT-2's byte-level pre-tokenization and decoding. A text is cut by GPT-2's pattern
 * <pre>
 *   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * </pre>
 * with {@code \s} as JavaScript's (Unicode White_Space and U+FEFF), then each piece's UTF-8 bytes (a lone
 * surrogate as U+FFFD's) are spelled with one printable character each: the bytes {@code !}–{@code ~},
 * {@code ¡}–{@code ¬} and {@code ®}–{@code ÿ} as themselves, the other 68 as U+0100, U+0101, … in byte order.
 * Decoding maps the characters back to bytes and reads them as UTF-8 (invalid sequences become U+FFFD).
 */
final class ByteLevel {
    private static final String WS = "\\t\\n\\u000B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F"
            + "\\u205F\\u3000\\uFEFF";
    private static final Pattern GPT2 = Pattern.compile("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+"
            + "| ?[^" + WS + "\\p{L}\\p{N}]+|[" + WS + "]+(?![^" + WS + "])|[" + WS + "]+");
    private static final char[] BYTE_TO_CHAR = new char[256];
    private static final int[] CHAR_TO_BYTE = new int[324];

    static {
        int extra = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            BYTE_TO_CHAR[b] = (char) (printable ? b : 256 + extra++);
        }
        java.util.Arrays.fill(CHAR_TO_BYTE, -1);
        for (int b = 0; b < 256; b++) {
            CHAR_TO_BYTE[BYTE_TO_CHAR[b]] = b;
        }
    }

    private final boolean addPrefixSpace;
    private final boolean useRegex;

    ByteLevel(boolean addPrefixSpace, boolean useRegex) {
        this.addPrefixSpace = addPrefixSpace;
        this.useRegex = useRegex;
    }

    void split(String text, List<String> words) {
        String s = addPrefixSpace && !text.startsWith(" ") ? " " + text : text;
        if (!useRegex) {
            if (!s.isEmpty()) {
                words.add(spell(s));
            }
            return;
        }
        Matcher m = GPT2.matcher(s);
        while (m.find()) {
            words.add(spell(m.group()));
        }
    }

    /** @return the piece's UTF-8 bytes, one character each */
    static String spell(String piece) {
        StringBuilder out = new StringBuilder(piece.length() * 2);
        for (int i = 0; i < piece.length(); ) {
            int c = piece.codePointAt(i);
            i += Character.charCount(c);
            if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
                c = 0xFFFD;
            }
            if (c < 0x80) {
                out.append(BYTE_TO_CHAR[c]);
            } else if (c < 0x800) {
                out.append(BYTE_TO_CHAR[0xC0 | c >> 6]).append(BYTE_TO_CHAR[0x80 | c & 0x3F]);
            } else if (c < 0x10000) {
                out.append(BYTE_TO_CHAR[0xE0 | c >> 12]).append(BYTE_TO_CHAR[0x80 | c >> 6 & 0x3F])
                        .append(BYTE_TO_CHAR[0x80 | c & 0x3F]);
            } else {
                out.append(BYTE_TO_CHAR[0xF0 | c >> 18]).append(BYTE_TO_CHAR[0x80 | c >> 12 & 0x3F])
                        .append(BYTE_TO_CHAR[0x80 | c >> 6 & 0x3F]).append(BYTE_TO_CHAR[0x80 | c & 0x3F]);
            }
        }
        return out.toString();
    }

    /** @return the text that byte-level tokens spell */
    static String decode(List<String> tokens) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (String t : tokens) {
            for (int i = 0; i < t.length(); i++) {
                char c = t.charAt(i);
                int b = c < CHAR_TO_BYTE.length ? CHAR_TO_BYTE[c] : -1;
                if (b >= 0) {
                    bytes.write(b);
                } else {
                    byte[] raw = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                    bytes.write(raw, 0, raw.length);
                }
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
