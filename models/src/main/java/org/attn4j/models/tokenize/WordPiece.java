package org.attn4j.models.tokenize;

import java.util.List;
import java.util.Map;

/**
 * The WordPiece model: a word longer than {@code max_input_chars_per_word} code points is the unknown token;
 * otherwise it is cut greedily into the longest vocabulary entries from the left, every piece after the first
 * looked up with the continuation prefix ({@code ##}); a word with a part no entry covers is the unknown token as a
 * whole.
 */
final class WordPiece implements Model {
    private final Map<String, Integer> vocab;
    private final String unknown;
    private final int unknownId;
    private final String prefix;
    private final int maxChars;

    WordPiece(Map<String, Integer> vocab, String unknown, String prefix, int maxChars) {
        this.vocab = vocab;
        this.unknown = unknown;
        this.unknownId = vocab.get(unknown);
        this.prefix = prefix;
        this.maxChars = maxChars;
    }

    @Override
    public void encode(String word, List<Integer> ids, List<String> tokens) {
        int[] cps = word.codePoints().toArray();
        if (cps.length > maxChars) {
            ids.add(unknownId);
            tokens.add(unknown);
            return;
        }
        int mark = ids.size();
        int start = 0;
        while (start < cps.length) {
            int end = cps.length;
            String found = null;
            Integer id = null;
            while (start < end) {
                String piece = new String(cps, start, end - start);
                if (start > 0) {
                    piece = prefix + piece;
                }
                id = vocab.get(piece);
                if (id != null) {
                    found = piece;
                    break;
                }
                end--;
            }
            if (found == null) {
                ids.subList(mark, ids.size()).clear();
                tokens.subList(mark, tokens.size()).clear();
                ids.add(unknownId);
                tokens.add(unknown);
                return;
            }
            ids.add(id);
            tokens.add(found);
            start = end;
        }
    }

    /**
     * Hugging Face's WordPiece decoder: each token after the first gets a space before it, except a continuation,
     * which loses its prefix instead; with {@code cleanup}, each token so spaced is then cleaned on its own
     * ({@code " ."} → {@code "."}, {@code " ,"} → {@code ","}, and the other replacements of Hugging Face's
     * {@code cleanup}, which can only match within one token), and the tokens are joined.
     */
    static String decode(List<String> tokens, String prefix, boolean cleanup) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i);
            if (i > 0 && t.startsWith(prefix)) {
                t = t.substring(prefix.length());
            } else if (i > 0) {
                t = " " + t;
            }
            if (cleanup) {
                t = t.replace(" .", ".").replace(" ?", "?").replace(" !", "!").replace(" ,", ",")
                        .replace(" ' ", "'").replace(" n't", "n't").replace(" 'm", "'m")
                        .replace(" do not", " don't").replace(" 's", "'s").replace(" 've", "'ve")
                        .replace(" 're", "'re");
            }
            out.append(t);
        }
        return out.toString();
    }
}
