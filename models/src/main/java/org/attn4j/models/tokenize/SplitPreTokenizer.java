package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hugging Face's {@code Split} pre-tokenizer: a pattern (a literal string, or an Oniguruma regex read by
 * {@link OnigRegex}) cuts a piece into matches and the text between them, then {@code behavior} decides what becomes
 * of the matches: {@code Isolated} (pieces of their own), {@code Removed} (dropped), {@code MergedWithPrevious}
 * (appended to the piece before), {@code MergedWithNext} (prepended to the piece after) or {@code Contiguous}
 * (consecutive matches, and consecutive non-matches, joined). {@code invert} swaps matches and non-matches first.
 * Llama 3 and Qwen2 cut their text with it before the byte-level step; Gemma's splits on a space.
 */
final class SplitPreTokenizer implements PreTokenizer {

    /** What becomes of the matches. */
    enum Behavior { ISOLATED, REMOVED, MERGED_WITH_PREVIOUS, MERGED_WITH_NEXT, CONTIGUOUS }

    private record Span(int start, int end, boolean match) {
    }

    private final String literal;
    private final Pattern regex;
    private final Behavior behavior;
    private final boolean invert;

    /**
     * @param literal the literal pattern, or {@code null} when {@code regex} is given
     * @param regex the compiled regex, or {@code null}
     * @param behavior what becomes of the matches
     * @param invert whether matches and non-matches swap
     */
    SplitPreTokenizer(String literal, Pattern regex, Behavior behavior, boolean invert) {
        this.literal = literal;
        this.regex = regex;
        this.behavior = behavior;
        this.invert = invert;
    }

    @Override
    public void split(Split piece, List<Split> out) {
        String text = piece.text();
        List<Span> spans = matches(text);
        List<int[]> kept = new ArrayList<>();
        switch (behavior) {
            case ISOLATED -> spans.forEach(s -> kept.add(new int[] {s.start(), s.end()}));
            case REMOVED -> spans.stream().filter(s -> !s.match()).forEach(s -> kept.add(new int[] {s.start(), s.end()}));
            case CONTIGUOUS -> {
                boolean previous = false;
                for (Span s : spans) {
                    if (!kept.isEmpty() && s.match() == previous) {
                        kept.get(kept.size() - 1)[1] = s.end();
                    } else {
                        kept.add(new int[] {s.start(), s.end()});
                    }
                    previous = s.match();
                }
            }
            case MERGED_WITH_PREVIOUS -> {
                boolean previous = false;
                for (Span s : spans) {
                    if (s.match() && !previous && !kept.isEmpty()) {
                        kept.get(kept.size() - 1)[1] = s.end();
                    } else {
                        kept.add(new int[] {s.start(), s.end()});
                    }
                    previous = s.match();
                }
            }
            case MERGED_WITH_NEXT -> {
                boolean previous = false;
                List<int[]> reversed = new ArrayList<>();
                for (int i = spans.size() - 1; i >= 0; i--) {
                    Span s = spans.get(i);
                    if (s.match() && !previous && !reversed.isEmpty()) {
                        reversed.get(reversed.size() - 1)[0] = s.start();
                    } else {
                        reversed.add(new int[] {s.start(), s.end()});
                    }
                    previous = s.match();
                }
                for (int i = reversed.size() - 1; i >= 0; i--) {
                    kept.add(reversed.get(i));
                }
            }
            default -> throw new IllegalStateException(behavior.toString());
        }
        for (int[] k : kept) {
            if (k[1] > k[0]) {
                out.add(new Split(text.substring(k[0], k[1]), piece.atStart() && k[0] == 0));
            }
        }
    }

    /** @return the text cut into matches and the text between them, covering it whole */
    private List<Span> matches(String text) {
        List<Span> spans = new ArrayList<>();
        int previous = 0;
        if (literal != null) {
            for (int at = text.indexOf(literal); at >= 0 && !literal.isEmpty(); at = text.indexOf(literal, at)) {
                if (at > previous) {
                    spans.add(new Span(previous, at, invert));
                }
                spans.add(new Span(at, at + literal.length(), !invert));
                at += literal.length();
                previous = at;
            }
        } else {
            Matcher m = regex.matcher(text);
            while (m.find()) {
                if (m.start() > previous) {
                    spans.add(new Span(previous, m.start(), invert));
                }
                spans.add(new Span(m.start(), m.end(), !invert));
                previous = m.end();
            }
        }
        if (previous < text.length()) {
            spans.add(new Span(previous, text.length(), invert));
        }
        return spans;
    }
}
