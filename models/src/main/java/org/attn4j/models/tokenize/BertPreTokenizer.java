package org.attn4j.models.tokenize;

import java.util.List;

/**
 * BERT's pre-tokenization, as Hugging Face's {@code BertPreTokenizer}: split on white space (dropped) and make
 * each punctuation character a word of its own. Punctuation is ASCII punctuation (which includes symbols such as
 * {@code $ + < = > ^ ` | ~}) and the Unicode categories Pc, Pd, Ps, Pe, Pi, Pf and Po.
 */
final class BertPreTokenizer implements PreTokenizer {

    @Override
    public void split(Split piece, List<Split> out) {
        String text = piece.text();
        int start = -1;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            int next = i + Character.charCount(c);
            if (UnicodeTables.isWhitespace(c) || UnicodeTables.isPunctuation(c)) {
                if (start >= 0) {
                    out.add(new Split(text.substring(start, i), piece.atStart() && start == 0));
                    start = -1;
                }
                if (!UnicodeTables.isWhitespace(c)) {
                    out.add(new Split(text.substring(i, next), piece.atStart() && i == 0));
                }
            } else if (start < 0) {
                start = i;
            }
            i = next;
        }
        if (start >= 0) {
            out.add(new Split(text.substring(start), piece.atStart() && start == 0));
        }
    }
}
