package org.attn4j.models.tokenize;

import java.util.Arrays;

/**
 * Character classes as Hugging Face's tokenizers see them. Its BERT normalizer and pre-tokenizer take general
 * categories from Unicode tables older than Java 17's Unicode 13: a code point that Unicode 9 to 13 added as a
 * non-spacing mark, format character or punctuation is an ordinary letter there, and two characters whose
 * category changed (U+166D, U+111C9) are still punctuation. {@link #category} is Java's category with those
 * differences put back. The list was found by running every code point through both tokenizers; the corpus test
 * checks it.
 */
final class UnicodeTables {
    /** Inclusive ranges, first and last code point, that Hugging Face treats as letters. */
    private static final int[] OLDER_LETTERS = {
        0x7FD, 0x7FD, 0x8D3, 0x8E2, 0x9FD, 0x9FE, 0xA76, 0xA76, 0xAFA, 0xAFF, 0xB55, 0xB55, 0xC04, 0xC04,
        0xC77, 0xC77, 0xC84, 0xC84, 0xD00, 0xD00, 0xD3B, 0xD3C, 0xD81, 0xD81, 0xEBA, 0xEBA, 0x1885, 0x1886,
        0x1ABF, 0x1AC0, 0x1DF6, 0x1DF9, 0x1DFB, 0x1DFB, 0x2E43, 0x2E4F, 0x2E52, 0x2E52, 0xA82C, 0xA82C,
        0xA8C5, 0xA8C5, 0xA8FF, 0xA8FF, 0xA9BD, 0xA9BD, 0x10D24, 0x10D27, 0x10EAB, 0x10EAD, 0x10F46, 0x10F50,
        0x10F55, 0x10F59, 0x110CD, 0x110CD, 0x111CF, 0x111CF, 0x1123E, 0x1123E, 0x1133B, 0x1133B, 0x11438, 0x1143F,
        0x11442, 0x11444, 0x11446, 0x11446, 0x1144B, 0x1144F, 0x1145A, 0x1145B, 0x1145D, 0x1145E, 0x11660, 0x1166C,
        0x1182F, 0x11837, 0x11839, 0x1183B, 0x1193B, 0x1193C, 0x1193E, 0x1193E, 0x11943, 0x11946, 0x119D4, 0x119D7,
        0x119DA, 0x119DB, 0x119E0, 0x119E0, 0x119E2, 0x119E2, 0x11A01, 0x11A0A, 0x11A33, 0x11A38, 0x11A3B, 0x11A47,
        0x11A51, 0x11A56, 0x11A59, 0x11A5B, 0x11A8A, 0x11A96, 0x11A98, 0x11A9C, 0x11A9E, 0x11AA2, 0x11C30, 0x11C36,
        0x11C38, 0x11C3D, 0x11C3F, 0x11C3F, 0x11C41, 0x11C45, 0x11C70, 0x11C71, 0x11C92, 0x11CA7, 0x11CAA, 0x11CB0,
        0x11CB2, 0x11CB3, 0x11CB5, 0x11CB6, 0x11D31, 0x11D36, 0x11D3A, 0x11D3A, 0x11D3C, 0x11D3D, 0x11D3F, 0x11D45,
        0x11D47, 0x11D47, 0x11D90, 0x11D91, 0x11D95, 0x11D95, 0x11D97, 0x11D97, 0x11EF3, 0x11EF4, 0x11EF7, 0x11EF8,
        0x11FFF, 0x11FFF, 0x13430, 0x13438, 0x16E97, 0x16E9A, 0x16F4F, 0x16F4F, 0x16FE2, 0x16FE2, 0x16FE4, 0x16FE4,
        0x1E000, 0x1E006, 0x1E008, 0x1E018, 0x1E01B, 0x1E021, 0x1E023, 0x1E024, 0x1E026, 0x1E02A, 0x1E130, 0x1E136,
        0x1E2EC, 0x1E2EF, 0x1E944, 0x1E94A, 0x1E95E, 0x1E95F
    };

    private UnicodeTables() {
    }

    /** @return the code point's general category ({@link Character#getType(int)}) as Hugging Face's tables give it */
    static int category(int c) {
        if (c == 0x166D || c == 0x111C9) {
            return Character.OTHER_PUNCTUATION;
        }
        if (c >= 0x7FD && c <= 0x1E95F) {
            int i = Arrays.binarySearch(OLDER_LETTERS, c);
            if (i >= 0 || (-i - 1) % 2 == 1) {
                return Character.OTHER_LETTER;
            }
        }
        return Character.getType(c);
    }

    /** Unicode White_Space, as Rust's {@code char::is_whitespace}. */
    static boolean isWhitespace(int c) {
        return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680
                || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F
                || c == 0x3000;
    }

    /** General category Cc, Cf, Co or Cs, tab, newline and CR excepted; unassigned code points are not. */
    static boolean isControl(int c) {
        if (c == '\t' || c == '\n' || c == '\r') {
            return false;
        }
        int type = category(c);
        return type == Character.CONTROL || type == Character.FORMAT || type == Character.PRIVATE_USE
                || type == Character.SURROGATE;
    }

    /** @return whether the code point is a non-spacing mark (Mn), which accent stripping drops */
    static boolean isNonSpacingMark(int c) {
        return category(c) == Character.NON_SPACING_MARK;
    }

    /** ASCII punctuation (which includes {@code $ + < = > ^ ` | ~}) and the Unicode categories Pc, Pd, Ps, Pe, Pi, Pf, Po. */
    static boolean isPunctuation(int c) {
        if (c < 128) {
            return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
        }
        return switch (category(c)) {
            case Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION, Character.START_PUNCTUATION,
                    Character.END_PUNCTUATION, Character.INITIAL_QUOTE_PUNCTUATION,
                    Character.FINAL_QUOTE_PUNCTUATION, Character.OTHER_PUNCTUATION -> true;
            default -> false;
        };
    }

    /** The CJK Unified Ideographs blocks and their extensions and compatibility forms, as BERT defines them. */
    static boolean isChinese(int c) {
        return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF)
                || (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F)
                || (c >= 0x2B920 && c <= 0x2CEAF) || (c >= 0xF900 && c <= 0xFAFF)
                || (c >= 0x2F800 && c <= 0x2FA1F);
    }
}
