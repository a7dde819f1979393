package org.attn4j.models.tokenize;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hugging Face's {@code ByteLevel} pre-tokenizer and decoder (GPT-2's byte-level scheme). As pre-tokenizer: a space
 * is prepended to a piece that does not start with one when {@code add_prefix_space} is set; with {@code use_regex}
 * the piece is cut by GPT-2's pattern
 * <pre>
 *   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * </pre>
 * with Oniguruma's {@code \s} (see {@link OnigRegex}); then each piece's UTF-8 bytes (a lone surrogate as U+FFFD's)
 * are spelled with one printable character each: the bytes {@code !}–{@code ~}, {@code ¡}–{@code ¬} and
 * {@code ®}–{@code ÿ} as themselves, the other 68 as U+0100, U+0101, … in byte order. As decoder: each token's
 * characters map back to bytes (a token with a character outside the map, such as an added token, gives its own
 * UTF-8 bytes instead), and all bytes are read as UTF-8, invalid sequences becoming U+FFFD.
 */
final class ByteLevel implements PreTokenizer, Decoder {
    private static final Pattern GPT2 = OnigRegex.compile(
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+");
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

    @Override
    public void split(Split piece, List<Split> out) {
        String s = addPrefixSpace && !piece.text().startsWith(" ") ? " " + piece.text() : piece.text();
        if (!useRegex) {
            out.add(new Split(spell(s), piece.atStart()));
            return;
        }
        Matcher m = GPT2.matcher(s);
        while (m.find()) {
            if (m.end() > m.start()) {
                out.add(new Split(spell(m.group()), piece.atStart() && m.start() == 0));
            }
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

    @Override
    public List<String> decode(List<String> tokens) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (String t : tokens) {
            byte[] mapped = new byte[t.length()];
            boolean all = true;
            for (int i = 0; i < t.length() && all; i++) {
                char c = t.charAt(i);
                int b = c < CHAR_TO_BYTE.length ? CHAR_TO_BYTE[c] : -1;
                all = b >= 0;
                mapped[i] = (byte) b;
            }
            byte[] raw = all ? mapped : t.getBytes(StandardCharsets.UTF_8);
            bytes.write(raw, 0, raw.length);
        }
        return List.of(bytes.toString(StandardCharsets.UTF_8));
    }
}
