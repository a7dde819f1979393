package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The {@code added_tokens} of a tokenizer.json ({@code [CLS]}, {@code <|eot_id|>}, {@code <s>} …), found in the text
 * before the model runs, as Hugging Face's added vocabulary finds them: matches are leftmost-longest and do not
 * overlap; tokens with {@code normalized: false} are found in the raw text, the others in the normalized text (their
 * content normalized too). {@code lstrip} and {@code rstrip} let a match swallow the white space on that side (not
 * past an earlier match); a {@code single_word} match touching a word character is dropped, and the search goes on
 * after it. A word character is what Rust's regex calls {@code \w}: Alphabetic (letters, Nl, and the circled and
 * squared Latin letters), marks, Nd, Pc and the join controls ZWNJ and ZWJ, by the Unicode 16 categories of
 * {@link UnicodeCategories}, the same on every JDK.
 */
final class AddedTokens {

    record Token(String content, int id, boolean lstrip, boolean rstrip, boolean singleWord, boolean normalized,
                 boolean special) {
    }

    /**
     * A piece of text: an added token ({@code id ≥ 0}) or text for the model ({@code id = -1}); {@code start} is its
     * offset in the text that was split.
     */
    record Piece(String text, int id, int start) {
    }

    private record Pattern(String text, Token token) {
    }

    private final List<Token> all;
    private final List<Pattern> raw;
    private final List<Pattern> normalized;

    /**
     * @param tokens the added tokens
     * @param normalizer the tokenizer's normalizer, applied to the content of tokens with {@code normalized: true}
     */
    AddedTokens(List<Token> tokens, UnaryOperator<String> normalizer) {
        this.all = List.copyOf(tokens);
        Comparator<Pattern> longestFirst = Comparator.comparingInt((Pattern p) -> -p.text().length());
        this.raw = tokens.stream().filter(t -> !t.normalized()).map(t -> new Pattern(t.content(), t))
                .sorted(longestFirst).toList();
        this.normalized = tokens.stream().filter(Token::normalized)
                .map(t -> new Pattern(normalizer.apply(t.content()), t)).filter(p -> !p.text().isEmpty())
                .sorted(longestFirst).toList();
    }

    List<Token> all() {
        return all;
    }

    List<Piece> splitRaw(String text) {
        return split(text, raw);
    }

    List<Piece> splitNormalized(String text) {
        return split(text, normalized);
    }

    private static List<Piece> split(String text, List<Pattern> patterns) {
        List<Piece> out = new ArrayList<>();
        int from = 0;
        int i = 0;
        while (!patterns.isEmpty() && i < text.length()) {
            Pattern hit = match(text, i, patterns);
            if (hit == null) {
                i++;
                continue;
            }
            int start = i;
            int end = i + hit.text().length();
            i = end;
            Token t = hit.token();
            if (t.singleWord() && (wordCharBefore(text, start) || wordCharAt(text, end))) {
                continue;
            }
            if (t.lstrip()) {
                while (start > from && UnicodeTables.isWhitespace(text.codePointBefore(start))) {
                    start -= Character.charCount(text.codePointBefore(start));
                }
            }
            if (t.rstrip()) {
                while (end < text.length() && UnicodeTables.isWhitespace(text.codePointAt(end))) {
                    end += Character.charCount(text.codePointAt(end));
                }
            }
            if (start > from) {
                out.add(new Piece(text.substring(from, start), -1, from));
            }
            out.add(new Piece(text.substring(start, end), t.id(), start));
            from = end;
            i = end;
        }
        if (from < text.length() || out.isEmpty()) {
            out.add(new Piece(text.substring(from), -1, from));
        }
        return out;
    }

    private static Pattern match(String text, int at, List<Pattern> patterns) {
        for (Pattern p : patterns) {
            if (text.startsWith(p.text(), at)) {
                return p;
            }
        }
        return null;
    }

    private static boolean wordCharBefore(String text, int at) {
        return at > 0 && isWordChar(text.codePointBefore(at));
    }

    private static boolean wordCharAt(String text, int at) {
        return at < text.length() && isWordChar(text.codePointAt(at));
    }

    private static boolean isWordChar(int c) {
        return switch (UnicodeCategories.type(c)) {
            case Character.UPPERCASE_LETTER, Character.LOWERCASE_LETTER, Character.TITLECASE_LETTER,
                    Character.MODIFIER_LETTER, Character.OTHER_LETTER, Character.LETTER_NUMBER,
                    Character.NON_SPACING_MARK, Character.COMBINING_SPACING_MARK, Character.ENCLOSING_MARK,
                    Character.DECIMAL_DIGIT_NUMBER, Character.CONNECTOR_PUNCTUATION -> true;
            default -> c == 0x200C || c == 0x200D || (c >= 0x24B6 && c <= 0x24E9) || (c >= 0x1F130 && c <= 0x1F149)
                    || (c >= 0x1F150 && c <= 0x1F169) || (c >= 0x1F170 && c <= 0x1F189);
        };
    }
}
