package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The {@code added_tokens} of a tokenizer.json ({@code [CLS]}, {@code <|endoftext|>}, …): found in the text
 * before the model runs, leftmost first and the longest at a position, each becoming its id. Tokens with
 * {@code normalized: false} are found in the raw text, the others in the normalized text. {@code lstrip} and
 * {@code rstrip} let a match swallow the white space on that side; {@code single_word} accepts a match only
 * where no word character (letter, digit, {@code _}) touches it.
 */
final class AddedTokens {

    record Token(String content, int id, boolean lstrip, boolean rstrip, boolean singleWord, boolean normalized,
                 boolean special) {
    }

    /** A piece of text: an added token ({@code id ≥ 0}) or text for the model ({@code id = -1}). */
    record Piece(String text, int id) {
    }

    private final List<Token> raw;
    private final List<Token> normalized;
    private final List<Token> all;

    AddedTokens(List<Token> tokens) {
        this.all = List.copyOf(tokens);
        Comparator<Token> longestFirst = Comparator.comparingInt((Token t) -> -t.content().length());
        this.raw = tokens.stream().filter(t -> !t.normalized()).sorted(longestFirst).toList();
        this.normalized = tokens.stream().filter(Token::normalized).sorted(longestFirst).toList();
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

    private static List<Piece> split(String text, List<Token> tokens) {
        List<Piece> out = new ArrayList<>();
        if (tokens.isEmpty()) {
            out.add(new Piece(text, -1));
            return out;
        }
        int from = 0;
        int i = 0;
        while (i < text.length()) {
            Token hit = match(text, i, tokens);
            if (hit == null) {
                i++;
                continue;
            }
            int start = i;
            int end = i + hit.content().length();
            if (hit.lstrip()) {
                while (start > from && UnicodeTables.isWhitespace(text.charAt(start - 1))) {
                    start--;
                }
            }
            if (hit.rstrip()) {
                while (end < text.length() && UnicodeTables.isWhitespace(text.charAt(end))) {
                    end++;
                }
            }
            if (start > from) {
                out.add(new Piece(text.substring(from, start), -1));
            }
            out.add(new Piece(hit.content(), hit.id()));
            from = end;
            i = end;
        }
        if (from < text.length()) {
            out.add(new Piece(text.substring(from), -1));
        }
        return out;
    }

    private static Token match(String text, int at, List<Token> tokens) {
        for (Token t : tokens) {
            if (!t.content().isEmpty() && text.startsWith(t.content(), at)
                    && (!t.singleWord() || (!wordCharBefore(text, at) && !wordCharAt(text, at + t.content().length())))) {
                return t;
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
        return Character.isLetterOrDigit(c) || c == '_';
    }
}
