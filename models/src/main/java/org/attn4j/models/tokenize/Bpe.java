package org.attn4j.models.tokenize;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Hugging Face's BPE model. A word starts as its characters, each looked up in the vocabulary; a character that is
 * not there becomes its UTF-8 bytes as {@code <0xNN>} tokens when {@code byte_fallback} is set and all of them exist,
 * else the unknown token (consecutive unknown characters fused into one when {@code fuse_unk} is set). Then the
 * adjacent pair with the lowest merge rank is joined, the leftmost first among equals, until no adjacent pair has a
 * rank (a heap over a linked list, so a long word costs {@code n log n}). With {@code ignore_merges} a word that is
 * itself in the vocabulary is one token without merging (Llama 3).
 *
 * <p>One difference on purpose: a character that is neither in the vocabulary nor covered by byte fallback, in a
 * model without an unknown token, is an error here, where Hugging Face drops it silently.
 */
final class Bpe implements Model {
    private final Map<String, Integer> vocab;
    private final Map<Integer, String> tokens;
    private final Map<Long, Long> merges;
    private final int unknown;
    private final boolean fuseUnknown;
    private final int[] byteIds;
    private final boolean ignoreMerges;

    /**
     * @param vocab token → id
     * @param merges the merges by rank, each two tokens of the vocabulary whose concatenation is in it
     * @param unknown the unknown token, or {@code null}
     * @param fuseUnknown whether consecutive unknown characters become one unknown token
     * @param byteFallback whether a character outside the vocabulary becomes {@code <0xNN>} tokens
     * @param ignoreMerges whether a word found whole in the vocabulary skips merging
     * @throws IllegalArgumentException if a merge or the unknown token is not in the vocabulary
     */
    Bpe(Map<String, Integer> vocab, List<String[]> merges, String unknown, boolean fuseUnknown, boolean byteFallback,
        boolean ignoreMerges) {
        this.vocab = vocab;
        this.tokens = new HashMap<>(vocab.size() * 2);
        vocab.forEach((t, id) -> tokens.put(id, t));
        this.merges = new HashMap<>(merges.size() * 2);
        for (int rank = 0; rank < merges.size(); rank++) {
            String a = merges.get(rank)[0];
            String b = merges.get(rank)[1];
            Integer ia = vocab.get(a);
            Integer ib = vocab.get(b);
            Integer joined = vocab.get(a + b);
            if (ia == null || ib == null || joined == null) {
                String missing = ia == null ? a : ib == null ? b : a + b;
                throw new IllegalArgumentException("model.merges[" + rank + "] '" + a + " " + b + "' uses or makes '"
                        + missing + "', which is not in the vocabulary");
            }
            this.merges.put(pair(ia, ib), (long) rank << 32 | joined);
        }
        if (unknown != null && !vocab.containsKey(unknown)) {
            throw new IllegalArgumentException("model.unk_token '" + unknown + "' is not in the vocabulary");
        }
        this.unknown = unknown == null ? -1 : vocab.get(unknown);
        this.fuseUnknown = fuseUnknown;
        this.byteIds = new int[256];
        Arrays.fill(byteIds, -1);
        if (byteFallback) {
            for (int b = 0; b < 256; b++) {
                Integer id = vocab.get(String.format("<0x%02X>", b));
                byteIds[b] = id == null ? -1 : id;
            }
        }
        this.ignoreMerges = ignoreMerges;
    }

    private static long pair(int a, int b) {
        return (long) a << 32 | (b & 0xFFFFFFFFL);
    }

    @Override
    public void encode(String word, List<Integer> ids, List<String> out) {
        if (word.isEmpty()) {
            return;
        }
        if (ignoreMerges) {
            Integer whole = vocab.get(word);
            if (whole != null) {
                ids.add(whole);
                out.add(word);
                return;
            }
        }
        int[] symbol = new int[word.length() * 4];
        int n = 0;
        int pendingUnknown = 0;
        for (int at = 0; at < word.length(); ) {
            int c = word.codePointAt(at);
            String s = word.substring(at, at + Character.charCount(c));
            at += s.length();
            Integer id = vocab.get(s);
            if (id != null) {
                if (pendingUnknown > 0) {
                    symbol[n++] = unknown;
                    pendingUnknown = 0;
                }
                symbol[n++] = id;
                continue;
            }
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            if (byteIds[bytes[0] & 0xFF] >= 0 && covered(bytes)) {
                for (byte b : bytes) {
                    symbol[n++] = byteIds[b & 0xFF];
                }
                continue;
            }
            if (unknown < 0) {
                throw new IllegalArgumentException("BPE: character '" + s + "' (U+" + Integer.toHexString(c)
                        .toUpperCase() + ") of '" + word + "' is not in the vocabulary and the model has no"
                        + " unk_token or byte fallback for it");
            }
            if (pendingUnknown > 0 && !fuseUnknown) {
                symbol[n++] = unknown;
            }
            pendingUnknown = 1;
        }
        if (pendingUnknown > 0) {
            symbol[n++] = unknown;
        }
        n = merge(symbol, n);
        for (int i = 0; i < n; i++) {
            ids.add(symbol[i]);
            out.add(tokens.get(symbol[i]));
        }
    }

    private boolean covered(byte[] bytes) {
        for (byte b : bytes) {
            if (byteIds[b & 0xFF] < 0) {
                return false;
            }
        }
        return true;
    }

    /** Merges in place; returns the number of symbols left. */
    private int merge(int[] symbol, int n) {
        if (n < 2 || merges.isEmpty()) {
            return n;
        }
        int[] next = new int[n];
        int[] prev = new int[n];
        boolean[] gone = new boolean[n];
        PriorityQueue<long[]> heap = new PriorityQueue<>((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0])
                : Long.compare(x[1], y[1]));
        for (int i = 0; i < n; i++) {
            next[i] = i + 1 < n ? i + 1 : -1;
            prev[i] = i - 1;
            if (i + 1 < n) {
                offer(heap, i, symbol[i], symbol[i + 1]);
            }
        }
        while (!heap.isEmpty()) {
            long[] top = heap.poll();
            int left = (int) top[1];
            int joined = (int) top[2];
            int right = next[left];
            if (gone[left] || right < 0) {
                continue;
            }
            Long m = merges.get(pair(symbol[left], symbol[right]));
            if (m == null || (int) (long) m != joined) {
                continue;
            }
            symbol[left] = joined;
            gone[right] = true;
            next[left] = next[right];
            if (next[right] >= 0) {
                prev[next[right]] = left;
            }
            if (prev[left] >= 0) {
                offer(heap, prev[left], symbol[prev[left]], symbol[left]);
            }
            if (next[left] >= 0) {
                offer(heap, left, symbol[left], symbol[next[left]]);
            }
        }
        int k = 0;
        for (int i = 0; i >= 0; i = next[i]) {
            symbol[k++] = symbol[i];
        }
        return k;
    }

    private void offer(PriorityQueue<long[]> heap, int left, int a, int b) {
        Long m = merges.get(pair(a, b));
        if (m != null) {
            heap.add(new long[] {m >>> 32, left, (int) (long) m});
        }
    }
}
