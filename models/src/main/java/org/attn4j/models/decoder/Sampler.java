package org.attn4j.models.decoder;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Picks the next token from one row of logits, as {@link GenerationOptions} describes. */
final class Sampler {
    private final GenerationOptions options;
    private final SplittableRandom random;

    Sampler(GenerationOptions options) {
        this.options = options;
        this.random = new SplittableRandom(options.seed());
    }

    /**
     * @param logits {@code [V]}; not modified
     * @return the chosen token id
     */
    int pick(float[] logits) {
        if (options.temperature() == 0) {
            return argMax(logits);
        }
        int v = logits.length;
        Integer[] order = new Integer[v];
        for (int i = 0; i < v; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Float.compare(logits[b], logits[a]) != 0
                ? Float.compare(logits[b], logits[a]) : Integer.compare(a, b));
        int kept = options.topK() == 0 ? v : Math.min(v, options.topK());
        double max = logits[order[0]];
        double[] p = new double[kept];
        double sum = 0;
        for (int i = 0; i < kept; i++) {
            p[i] = Math.exp((logits[order[i]] - max) / options.temperature());
            sum += p[i];
        }
        double mass = 0;
        int nucleus = kept;
        for (int i = 0; i < kept; i++) {
            mass += p[i] / sum;
            if (mass >= options.topP()) {
                nucleus = i + 1;
                break;
            }
        }
        double total = 0;
        for (int i = 0; i < nucleus; i++) {
            total += p[i];
        }
        double u = random.nextDouble() * total;
        for (int i = 0; i < nucleus; i++) {
            u -= p[i];
            if (u < 0) {
                return order[i];
            }
        }
        return order[nucleus - 1];
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
