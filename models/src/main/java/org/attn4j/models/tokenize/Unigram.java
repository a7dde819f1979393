package org.attn4j.models.tokenize;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Hugging Face's (and SentencePiece's) Unigram model: a word is cut into the tokens whose scores (log
 * probabilities) have the largest sum, found by Viterbi over every way of spelling it with vocabulary tokens. Where
 * no token is exactly a character, the unknown token covers that character with the score {@code min(scores) - 10};
 * consecutive unknown characters are fused into one unknown piece. Where two paths to a position score the same,
 * the one whose last token starts first is kept, as in Hugging Face's; since exact ties are common (runs of one
 * character), the scores must be the doubles Hugging Face reads ({@link HuggingFaceFloat}) for the ids to agree.
 * With {@code byte_fallback} an unknown piece becomes the {@code <0xNN>} tokens of its UTF-8 bytes when the
 * vocabulary has all of them, else the unknown token.
 *
 * <p>Cost: for every character, one vocabulary lookup per length up to the longest token's, in characters.
 */
final class Unigram implements Model {
    private static final double UNKNOWN_PENALTY = 10;

    private final Map<String, Integer> vocab;
    private final double[] scores;
    private final int unknown;
    private final boolean byteFallback;
    private final double unknownScore;
    private final int longest;

    /**
     * @param vocab token → id
     * @param scores each id's score
     * @param unknown the unknown token's id, or -1 when a character outside the vocabulary is an error
     * @param byteFallback whether an unknown piece becomes its {@code <0xNN>} byte tokens
     */
    Unigram(Map<String, Integer> vocab, double[] scores, int unknown, boolean byteFallback) {
        if (unknown >= scores.length) {
            throw new IllegalArgumentException("Unigram: unk_id " + unknown + " is not below the vocabulary size "
                    + scores.length);
        }
        this.vocab = vocab;
        this.scores = scores.clone();
        this.unknown = unknown;
        this.byteFallback = byteFallback;
        double min = Double.POSITIVE_INFINITY;
        for (double s : scores) {
            min = Math.min(min, s);
        }
        this.unknownScore = min - UNKNOWN_PENALTY;
        this.longest = vocab.keySet().stream().mapToInt(String::length).max().orElse(0);
    }

    @Override
    public void encode(String word, List<Integer> ids, List<String> tokens) {
        int n = word.length();
        double[] best = new double[n + 1];
        int[] from = new int[n + 1];
        int[] id = new int[n + 1];
        Arrays.fill(from, -1);
        for (int start = 0; start < n; ) {
            int width = Character.charCount(word.codePointAt(start));
            boolean single = false;
            for (int end = start + 1; end <= Math.min(n, start + longest); end++) {
                if (end < n && Character.isHighSurrogate(word.charAt(end - 1))
                        && Character.isLowSurrogate(word.charAt(end))) {
                    continue;
                }
                Integer t = vocab.get(word.substring(start, end));
                if (t == null) {
                    continue;
                }
                offer(best, from, id, start, end, t, scores[t]);
                single |= end - start == width;
            }
            if (!single) {
                if (unknown < 0) {
                    throw new IllegalArgumentException("Unigram: '" + word.substring(start, start + width)
                            + "' has no token and the model has no unk_id");
                }
                offer(best, from, id, start, start + width, unknown, unknownScore);
            }
            start += width;
        }
        List<int[]> path = new ArrayList<>();
        for (int end = n; end > 0; ) {
            int start = from[end];
            if (id[end] == unknown && !path.isEmpty() && path.get(path.size() - 1)[2] == unknown) {
                path.get(path.size() - 1)[0] = start;
            } else {
                path.add(new int[] {start, end, id[end]});
            }
            end = start;
        }
        for (int i = path.size() - 1; i >= 0; i--) {
            int[] p = path.get(i);
            String piece = word.substring(p[0], p[1]);
            if (p[2] != unknown || vocab.get(piece) != null) {
                ids.add(p[2]);
                tokens.add(piece);
            } else if (!byteFallback || !bytes(piece, ids, tokens)) {
                ids.add(unknown);
                tokens.add(piece);
            }
        }
    }

    private static void offer(double[] best, int[] from, int[] id, int start, int end, int token, double score) {
        double candidate = best[start] + score;
        if (from[end] < 0 || candidate > best[end]) {
            best[end] = candidate;
            from[end] = start;
            id[end] = token;
        }
    }

    /** Appends the piece's {@code <0xNN>} tokens if the vocabulary has every one. */
    private boolean bytes(String piece, List<Integer> ids, List<String> tokens) {
        byte[] utf8 = piece.getBytes(StandardCharsets.UTF_8);
        String[] names = new String[utf8.length];
        int[] found = new int[utf8.length];
        for (int i = 0; i < utf8.length; i++) {
            names[i] = String.format("<0x%02X>", utf8[i] & 0xFF);
            Integer t = vocab.get(names[i]);
            if (t == null) {
                return false;
            }
            found[i] = t;
        }
        for (int i = 0; i < utf8.length; i++) {
            ids.add(found[i]);
            tokens.add(names[i]);
        }
        return true;
    }
}
