package org.attn4j.models.tokenize;

import java.text.Normalizer;

/**
 * BERT's text normalization, as Hugging Face's {@code BertNormalizer}, applied in this order:
 * <ol>
 *   <li>{@code clean_text}: drop U+0000, U+FFFD and every "other" character (general category Cc, Cf, Co, Cs or
 *       unassigned) except tab, newline and carriage return; turn each white-space character into a space;</li>
 *   <li>{@code handle_chinese_chars}: put a space before and after each CJK ideograph ({@link UnicodeTables#isChinese});</li>
 *   <li>{@code strip_accents} ({@code null} in the file: the same as {@code lowercase}): decompose (NFD) and drop
 *       the non-spacing marks (Mn);</li>
 *   <li>{@code lowercase}: each code point on its own, with the full mapping ({@code İ} → {@code i̇}) and
 *       no context (a final {@code Σ} becomes {@code σ}, not {@code ς}).</li>
 * </ol>
 * Categories are those of Hugging Face's tables ({@link UnicodeTables}).
 */
final class BertNormalizer {
    private final boolean cleanText;
    private final boolean chineseChars;
    private final boolean stripAccents;
    private final boolean lowercase;

    BertNormalizer(boolean cleanText, boolean chineseChars, boolean stripAccents, boolean lowercase) {
        this.cleanText = cleanText;
        this.chineseChars = chineseChars;
        this.stripAccents = stripAccents;
        this.lowercase = lowercase;
    }

    String normalize(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            if (cleanText) {
                if (c == 0 || c == 0xFFFD || UnicodeTables.isControl(c)) {
                    continue;
                }
                if (UnicodeTables.isWhitespace(c)) {
                    c = ' ';
                }
            }
            if (chineseChars && UnicodeTables.isChinese(c)) {
                out.append(' ').appendCodePoint(c).append(' ');
            } else {
                out.appendCodePoint(c);
            }
        }
        String s = out.toString();
        if (stripAccents) {
            s = stripAccents(s);
        }
        return lowercase ? lowercase(s) : s;
    }

    private static String stripAccents(String s) {
        String nfd = Normalizer.normalize(s, Normalizer.Form.NFD);
        StringBuilder out = new StringBuilder(nfd.length());
        for (int i = 0; i < nfd.length(); ) {
            int c = nfd.codePointAt(i);
            i += Character.charCount(c);
            if (!UnicodeTables.isNonSpacingMark(c)) {
                out.appendCodePoint(c);
            }
        }
        return out.toString();
    }

    static String lowercase(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            if (c == 0x130) {
                out.append("i\u0307");
            } else {
                out.appendCodePoint(Character.toLowerCase(c));
            }
        }
        return out.toString();
    }
}
