package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.List;

/**
 * Hugging Face's {@code Metaspace}, the SentencePiece convention for white space, as pre-tokenizer and as decoder.
 * As pre-tokenizer: every space becomes the replacement character ({@code ▁}), one is prepended when the piece does
 * not start with it ({@code prepend_scheme} {@code always}; {@code first}: only to the piece that starts the
 * original text, so not after a special token; {@code never}), and with {@code split} the piece is cut before each
 * replacement character. As decoder: the replacement character becomes a space, except in the first token, where it
 * is dropped unless the scheme is {@code never}.
 */
final class Metaspace implements PreTokenizer, Decoder {

    /** When a replacement character is prepended. */
    enum Prepend { ALWAYS, FIRST, NEVER }

    private final String replacement;
    private final Prepend prepend;
    private final boolean split;

    Metaspace(String replacement, Prepend prepend, boolean split) {
        this.replacement = replacement;
        this.prepend = prepend;
        this.split = split;
    }

    @Override
    public void split(Split piece, List<Split> out) {
        String text = piece.text().replace(" ", replacement);
        boolean add = switch (prepend) {
            case ALWAYS -> true;
            case FIRST -> piece.atStart();
            case NEVER -> false;
        };
        if (add && !text.startsWith(replacement)) {
            text = replacement + text;
        }
        if (!split) {
            out.add(new Split(text, piece.atStart()));
            return;
        }
        int start = 0;
        for (int at = text.indexOf(replacement, 1); at >= 0; at = text.indexOf(replacement, at + 1)) {
            out.add(new Split(text.substring(start, at), piece.atStart() && start == 0));
            start = at;
        }
        out.add(new Split(text.substring(start), piece.atStart() && start == 0));
    }

    @Override
    public List<String> decode(List<String> tokens) {
        List<String> out = new ArrayList<>(tokens.size());
        for (int i = 0; i < tokens.size(); i++) {
            out.add(tokens.get(i).replace(replacement, i == 0 && prepend != Prepend.NEVER ? "" : " "));
        }
        return out;
    }
}
