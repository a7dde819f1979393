package org.attn4j.models.tokenize;

import java.util.List;

/**
 * BERT's pre-tokenization, as Hugging Face's {@code BertPreTokenizer}: split on white space (dropped) and make
 * each punctuation character a word of its own. Punctuation is ASCII punctuation (which includes symbols such as
 * {@code $ + < = > ^ ` | ~}) and the Unicode categories Pc, Pd, Ps, Pe, Pi, Pf and Po.
 */
final class BertPreTokenizer {

    private BertPreTokenizer() {
    }

    static void split(String text, List<String> words) {
        int start = -1;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            int next = i + Character.charCount(c);
            if (UnicodeTables.isWhitespace(c) || UnicodeTables.isPunctuation(c)) {
                if (start >= 0) {
                    words.add(text.substring(start, i));
                    start = -1;
                }
                if (!UnicodeTables.isWhitespace(c)) {
                    words.add(text.substring(i, next));
                }
            } else if (start < 0) {
                start = i;
            }
            i = next;
        }
        if (start >= 0) {
            words.add(text.substring(start));
        }
    }
}
