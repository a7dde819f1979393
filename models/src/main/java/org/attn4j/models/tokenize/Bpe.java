package org.attn4j.models.tokenize;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The BPE model: a word starts as its characters; the adjacent pair with the lowest merge rank is joined, the
 * leftmost first among equals, until no adjacent pair has a rank; each symbol is then looked up. This is the
 * classic "merge the best bigram everywhere, repeat", run with a heap over a linked list so a long word costs
 * {@code n log n}, not {@code n²}.
 */
final class Bpe implements Model {
    private final Map<String, Integer> vocab;
    private final Map<String, Map<String, Integer>> ranks;
    private final String unknown;
    private final boolean ignoreMerges;

    /**
     * @param ranks first symbol → second symbol → rank (0 merges first)
     * @param unknown the unknown token, or {@code null} when a symbol outside the vocabulary is an error
     */
    Bpe(Map<String, Integer> vocab, Map<String, Map<String, Integer>> ranks, String unknown, boolean ignoreMerges) {
        this.vocab = vocab;
        this.ranks = ranks;
        this.unknown = unknown;
        this.ignoreMerges = ignoreMerges;
    }

    private record Candidate(int rank, int left, String a, String b) {
    }

    @Override
    public void encode(String word, List<Integer> ids, List<String> tokens) {
        if (ignoreMerges && vocab.containsKey(word)) {
            ids.add(vocab.get(word));
            tokens.add(word);
            return;
        }
        int n = word.codePointCount(0, word.length());
        String[] symbol = new String[n];
        int[] next = new int[n];
        int[] prev = new int[n];
        for (int i = 0, at = 0; i < n; i++) {
            int c = word.codePointAt(at);
            symbol[i] = new String(Character.toChars(c));
            at += Character.charCount(c);
            next[i] = i + 1 < n ? i + 1 : -1;
            prev[i] = i - 1;
        }
        PriorityQueue<Candidate> heap = new PriorityQueue<>((x, y) -> x.rank != y.rank
                ? Integer.compare(x.rank, y.rank) : Integer.compare(x.left, y.left));
        for (int i = 0; i + 1 < n; i++) {
            offer(heap, i, symbol[i], symbol[i + 1]);
        }
        while (!heap.isEmpty()) {
            Candidate c = heap.poll();
            int l = c.left;
            int r = next[l];
            if (symbol[l] == null || r < 0 || !symbol[l].equals(c.a) || !symbol[r].equals(c.b)) {
                continue;
            }
            symbol[l] = c.a + c.b;
            symbol[r] = null;
            next[l] = next[r];
            if (next[r] >= 0) {
                prev[next[r]] = l;
                offer(heap, l, symbol[l], symbol[next[l]]);
            }
            if (prev[l] >= 0) {
                offer(heap, prev[l], symbol[prev[l]], symbol[l]);
            }
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i >= 0 && n > 0; i = next[i]) {
            out.add(symbol[i]);
        }
        for (String s : out) {
            Integer id = vocab.get(s);
            if (id == null) {
                if (unknown == null) {
                    throw new IllegalArgumentException("BPE: symbol '" + s + "' of '" + word
                            + "' is not in the vocabulary and the model has no unk_token");
                }
                id = vocab.get(unknown);
                s = unknown;
            }
            ids.add(id);
            tokens.add(s);
        }
    }

    private void offer(PriorityQueue<Candidate> heap, int left, String a, String b) {
        Map<String, Integer> row = ranks.get(a);
        Integer rank = row == null ? null : row.get(b);
        if (rank != null) {
            heap.add(new Candidate(rank, left, a, b));
        }
    }
}
