package org.attn4j.models.tokenize;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * SentencePiece's BPE as llama.cpp runs a GGUF {@code llama} vocabulary: a word (spaces already spelled
 * {@code ▁}) starts as its characters; the adjacent pair whose concatenation is a token with the highest score is
 * joined (the leftmost among equal scores), until no adjacent pair forms a token. Each symbol is then its token;
 * a character with no token of its own becomes the tokens {@code <0xNN>} of its UTF-8 bytes (byte fallback), or the
 * unknown token where the vocabulary lacks a byte. Merges come from the scores alone, not from a merge list.
 */
final class SentencePiece implements Model {
    private final Map<String, Integer> vocab;
    private final float[] scores;
    private final int[] byteIds;
    private final int unknown;
    private final List<String> tokens;

    /**
     * @param vocab token → id
     * @param tokens id → token
     * @param scores each id's score
     * @param byteIds the id of {@code <0xNN>} for each byte, or -1
     * @param unknown the unknown token's id, or -1 when a byte without a token is an error
     */
    SentencePiece(Map<String, Integer> vocab, List<String> tokens, float[] scores, int[] byteIds, int unknown) {
        this.vocab = vocab;
        this.tokens = tokens;
        this.scores = scores;
        this.byteIds = byteIds;
        this.unknown = unknown;
    }

    private record Bigram(float score, int left, int size) {
    }

    @Override
    public void encode(String word, List<Integer> ids, List<String> out) {
        int n = word.codePointCount(0, word.length());
        int[] start = new int[n];
        int[] end = new int[n];
        int[] next = new int[n];
        int[] prev = new int[n];
        for (int i = 0, at = 0; i < n; i++) {
            start[i] = at;
            at += Character.charCount(word.codePointAt(at));
            end[i] = at;
            next[i] = i + 1 < n ? i + 1 : -1;
            prev[i] = i - 1;
        }
        PriorityQueue<Bigram> queue = new PriorityQueue<>((x, y) -> x.score != y.score
                ? Float.compare(y.score, x.score) : Integer.compare(x.left, y.left));
        for (int i = 0; i + 1 < n; i++) {
            offer(queue, word, start, end, i, i + 1);
        }
        while (!queue.isEmpty()) {
            Bigram b = queue.poll();
            int l = b.left;
            int r = next[l];
            if (start[l] < 0 || r < 0 || end[r] - start[l] != b.size) {
                continue;
            }
            end[l] = end[r];
            start[r] = -1;
            next[l] = next[r];
            if (next[r] >= 0) {
                prev[next[r]] = l;
            }
            if (prev[l] >= 0) {
                offer(queue, word, start, end, prev[l], l);
            }
            if (next[l] >= 0) {
                offer(queue, word, start, end, l, next[l]);
            }
        }
        for (int i = 0; i >= 0 && n > 0; i = next[i]) {
            String symbol = word.substring(start[i], end[i]);
            Integer id = vocab.get(symbol);
            if (id != null) {
                ids.add(id);
                out.add(symbol);
                continue;
            }
            for (byte b : symbol.getBytes(StandardCharsets.UTF_8)) {
                int byteId = byteIds[b & 0xff];
                if (byteId < 0 && unknown < 0) {
                    throw new IllegalArgumentException("SentencePiece: '" + symbol + "' has no token, the vocabulary"
                            + " has no <0x" + String.format("%02X", b & 0xff) + "> and no unknown token");
                }
                int chosen = byteId >= 0 ? byteId : unknown;
                ids.add(chosen);
                out.add(tokens.get(chosen));
            }
        }
    }

    private void offer(PriorityQueue<Bigram> queue, String word, int[] start, int[] end, int left, int right) {
        Integer id = vocab.get(word.substring(start[left], end[right]));
        if (id != null) {
            queue.add(new Bigram(scores[id], left, end[right] - start[left]));
        }
    }
}
