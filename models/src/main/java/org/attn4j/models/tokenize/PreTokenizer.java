package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.List;

/**
 * A pre-tokenizer: cuts the normalized text into the pieces the model encodes one by one, as Hugging Face's
 * pre-tokenizers do (empty pieces are dropped). A piece remembers whether it starts the original text, which
 * {@code Metaspace} with {@code prepend_scheme: first} needs.
 */
interface PreTokenizer {

    /** A piece of text and whether it starts at offset 0 of the original text. */
    record Split(String text, boolean atStart) {
    }

    /**
     * @param piece one piece, never empty
     * @param out receives its pieces, in order, none empty
     */
    void split(Split piece, List<Split> out);

    /** The pre-tokenizer that keeps each piece whole. */
    PreTokenizer WHOLE = (piece, out) -> out.add(piece);

    /** Hugging Face's {@code WhitespaceSplit}: the runs between white space (Unicode White_Space), which goes. */
    PreTokenizer WHITESPACE_SPLIT = (piece, out) -> {
        String text = piece.text();
        int start = -1;
        for (int at = 0; at <= text.length(); ) {
            int c = at < text.length() ? text.codePointAt(at) : ' ';
            boolean space = UnicodeTables.isWhitespace(c);
            if (!space && start < 0) {
                start = at;
            } else if (space && start >= 0) {
                out.add(new Split(text.substring(start, at), piece.atStart() && start == 0));
                start = -1;
            }
            at += at < text.length() ? Character.charCount(c) : 1;
        }
    };

    /**
     * @param stages pre-tokenizers applied one after the other, each to every piece of the one before
     * @return Hugging Face's {@code Sequence} pre-tokenizer
     */
    static PreTokenizer sequence(List<PreTokenizer> stages) {
        List<PreTokenizer> all = List.copyOf(stages);
        return (piece, out) -> {
            List<Split> current = List.of(piece);
            for (PreTokenizer stage : all) {
                List<Split> next = new ArrayList<>();
                for (Split s : current) {
                    stage.split(s, next);
                }
                current = next;
            }
            out.addAll(current);
        };
    }
}
