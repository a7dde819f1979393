package org.attn4j.models.generate;

import java.util.Arrays;
import java.util.BitSet;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.attn4j.models.grammar.TokenGrammar;

/**
 * Picks the next token from one row of logits, as {@link GenerationOptions} describes and in transformers' order:
 * repetition penalty and stop-token suppression (greedy and sampling), then temperature, top-k (ties at the k-th
 * logit kept, as {@code TopKLogitsWarper}), top-p, min-p, and a draw; with a grammar, the tokens it refuses are set
 * to −∞ before the temperature. One sampler per generation: it owns the random stream and the place in the grammar.
 */
final class Sampler {
    private final GenerationOptions options;
    private final SplittableRandom random;
    private final TokenGrammar.State grammar;

    Sampler(GenerationOptions options) {
        this.options = options;
        this.random = new SplittableRandom(options.seed());
        this.grammar = options.grammar().map(TokenGrammar::start).orElse(null);
    }

    /**
     * @param logits {@code [V]}; not modified
     * @param sequence the ids so far, prompt included (the repetition penalty's input); only the first
     *     {@code length} count
     * @param length how many of {@code sequence} are set
     * @param generated how many tokens this generation has produced
     * @return the chosen token id, or -1 when the grammar allows none
     */
    int pick(float[] logits, int[] sequence, int length, int generated) {
        int token = choose(logits, sequence, length, generated);
        if (grammar != null && token >= 0 && !options.stops(token)) {
            grammar.accept(token);
        }
        return token;
    }

    private int choose(float[] logits, int[] sequence, int length, int generated) {
        float[] scores = logits.clone();
        if (options.repetitionPenalty() != 1) {
            penalize(scores, sequence, length, (float) options.repetitionPenalty());
        }
        if (generated < options.minNewTokens()) {
            for (int s : options.stopTokens()) {
                if (s >= 0 && s < scores.length) {
                    scores[s] = Float.NEGATIVE_INFINITY;
                }
            }
        }
        if (grammar != null && !mask(scores)) {
            return -1;
        }
        if (options.temperature() == 0) {
            return argMax(scores);
        }
        float t = (float) options.temperature();
        for (int i = 0; i < scores.length; i++) {
            scores[i] /= t;
        }
        int[] order = ordered(scores, options.topK());
        int n = order.length;
        if (n == 0) {
            return argMax(scores);
        }
        double max = scores[order[0]];
        double[] p = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            p[i] = Math.exp(scores[order[i]] - max);
            sum += p[i];
        }
        int kept = n;
        if (options.topP() < 1) {
            double mass = 0;
            for (int i = 0; i < n; i++) {
                if (mass >= options.topP() * sum) {
                    kept = i;
                    break;
                }
                mass += p[i];
            }
        }
        if (options.minP() > 0) {
            double floor = options.minP() * p[0];
            int i = 1;
            while (i < kept && p[i] >= floor) {
                i++;
            }
            kept = i;
        }
        double total = 0;
        for (int i = 0; i < kept; i++) {
            total += p[i];
        }
        double u = random.nextDouble() * total;
        for (int i = 0; i < kept; i++) {
            u -= p[i];
            if (u < 0) {
                return order[i];
            }
        }
        return order[kept - 1];
    }

    /** @return whether a token is left once those the grammar refuses are set to −∞ */
    private boolean mask(float[] scores) {
        BitSet allowed = grammar.allowed(scores.length, options.stopTokens());
        boolean any = false;
        for (int i = 0; i < scores.length; i++) {
            if (!allowed.get(i)) {
                scores[i] = Float.NEGATIVE_INFINITY;
            } else if (scores[i] > Float.NEGATIVE_INFINITY) {
                any = true;
            }
        }
        return any;
    }

    /** transformers' RepetitionPenaltyLogitsProcessor: once per distinct id of the sequence. */
    private static void penalize(float[] scores, int[] sequence, int length, float penalty) {
        boolean[] seen = new boolean[scores.length];
        for (int i = 0; i < length; i++) {
            int id = sequence[i];
            if (id >= 0 && id < scores.length && !seen[id]) {
                seen[id] = true;
                scores[id] = scores[id] < 0 ? scores[id] * penalty : scores[id] / penalty;
            }
        }
    }

    /**
     * @return the indices of the finite scores, largest first (lowest index first among equals); with
     *     {@code 0 < topK < V} only those at least as large as the k-th largest
     */
    private static int[] ordered(float[] scores, int topK) {
        int v = scores.length;
        float threshold = Float.NEGATIVE_INFINITY;
        if (topK > 0 && topK < v) {
            PriorityQueue<Float> heap = new PriorityQueue<>(topK);
            for (float s : scores) {
                if (heap.size() < topK) {
                    heap.add(s);
                } else if (s > heap.peek()) {
                    heap.poll();
                    heap.add(s);
                }
            }
            threshold = heap.peek();
        }
        long[] keys = new long[v];
        int n = 0;
        for (int i = 0; i < v; i++) {
            float s = scores[i];
            if (s > Float.NEGATIVE_INFINITY && s >= threshold && !Float.isNaN(s)) {
                int bits = Float.floatToIntBits(s);
                int sortable = bits ^ ((bits >> 31) & 0x7FFFFFFF);
                keys[n++] = ((long) ~sortable << 32) | i;
            }
        }
        Arrays.sort(keys, 0, n);
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = (int) keys[i];
        }
        return order;
    }

    /**
     * @param logits one row
     * @return the index of the largest value, the lowest index among ties
     */
    static int argMax(float[] logits) {
        int best = 0;
        for (int i = 1; i < logits.length; i++) {
            if (logits[i] > logits[best]) {
                best = i;
            }
        }
        return best;
    }
}
