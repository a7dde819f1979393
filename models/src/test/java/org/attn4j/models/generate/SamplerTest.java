package org.attn4j.models.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The sampler's logits processors and warpers as transformers defines them, on hand-made logits: the repetition
 * penalty (divide positive, multiply negative, once per distinct id), stop-token suppression, top-k with ties,
 * top-p, min-p, and draws that follow softmax(logits / temperature).
 */
class SamplerTest {
    private static final int[] NONE = new int[0];

    private static Set<Integer> support(GenerationOptions options, float[] logits, int draws) {
        Sampler s = new Sampler(options.withSeed(11));
        Set<Integer> seen = new TreeSet<>();
        for (int i = 0; i < draws; i++) {
            seen.add(s.pick(logits, NONE, 0, 10));
        }
        return seen;
    }

    @Test
    void theRepetitionPenaltyDividesPositiveAndMultipliesNegativeLogitsOfSeenTokensOnce() {
        GenerationOptions penalized = GenerationOptions.defaults().withRepetitionPenalty(1.2);
        assertEquals(1, new Sampler(penalized).pick(new float[] {2.0f, 1.9f, 0f}, new int[] {0, 0, 0}, 3, 0));
        assertEquals(0, new Sampler(penalized).pick(new float[] {2.0f, 1.9f, 0f}, new int[] {0, 0, 0}, 0, 0),
                "only the first length ids count");
        assertEquals(1, new Sampler(GenerationOptions.defaults().withRepetitionPenalty(1.5))
                .pick(new float[] {-1.0f, -1.1f}, new int[] {0}, 1, 0));
        assertEquals(0, new Sampler(GenerationOptions.defaults().withRepetitionPenalty(0.5))
                .pick(new float[] {1.0f, 1.9f}, new int[] {0}, 1, 0), "a penalty below 1 favours seen tokens");
    }

    @Test
    void stopTokensCannotBePickedBeforeMinNewTokens() {
        GenerationOptions o = GenerationOptions.defaults().withStopTokens(0).withMinNewTokens(2);
        float[] logits = {5f, 1f, 0f};
        assertEquals(1, new Sampler(o).pick(logits, NONE, 0, 1));
        assertEquals(0, new Sampler(o).pick(logits, NONE, 0, 2));
    }

    @Test
    void greedyTakesTheLowestIdAmongEqualMaxima() {
        assertEquals(1, new Sampler(GenerationOptions.defaults()).pick(new float[] {0f, 3f, 3f}, NONE, 0, 0));
    }

    @Test
    void topKKeepsTheKLargestAndTheirTies() {
        GenerationOptions o = GenerationOptions.defaults().withTemperature(1).withTopK(2);
        assertEquals(Set.of(0, 1), support(o, new float[] {2f, 1.5f, 0f, -1f}, 400));
        assertEquals(Set.of(0, 1, 2), support(o, new float[] {2f, 1f, 1f, -1f}, 400));
        assertEquals(Set.of(3), support(GenerationOptions.defaults().withTemperature(5).withTopK(1),
                new float[] {0f, 0.1f, 0.2f, 0.3f}, 100));
    }

    @Test
    void topPKeepsTheSmallestSetOfLikeliestTokensReachingTheMass() {
        float[] logits = {(float) Math.log(0.5), (float) Math.log(0.3), (float) Math.log(0.15),
            (float) Math.log(0.05)};
        GenerationOptions o = GenerationOptions.defaults().withTemperature(1);
        assertEquals(Set.of(0), support(o.withTopP(0.5), logits, 300));
        assertEquals(Set.of(0, 1), support(o.withTopP(0.51), logits, 300));
        assertEquals(Set.of(0, 1, 2), support(o.withTopP(0.9), logits, 600));
        assertEquals(Set.of(0, 1, 2, 3), support(o, logits, 2000));
    }

    @Test
    void minPDropsTokensLessLikelyThanAFractionOfTheLikeliest() {
        float[] logits = {(float) Math.log(0.5), (float) Math.log(0.3), (float) Math.log(0.15),
            (float) Math.log(0.05)};
        GenerationOptions o = GenerationOptions.defaults().withTemperature(1);
        assertEquals(Set.of(0, 1), support(o.withMinP(0.5), logits, 600));
        assertEquals(Set.of(0, 1, 2), support(o.withMinP(0.25), logits, 600));
    }

    @Test
    void drawsFollowTheSoftmaxOfTheTemperedLogits() {
        float[] logits = {1.0f, 0.5f, 0.0f, -2.0f};
        double t = 0.7;
        double[] p = new double[logits.length];
        double sum = 0;
        for (int i = 0; i < p.length; i++) {
            p[i] = Math.exp(logits[i] / t);
            sum += p[i];
        }
        int n = 40_000;
        int[] counts = new int[logits.length];
        Sampler s = new Sampler(GenerationOptions.defaults().withTemperature(t).withSeed(3));
        for (int i = 0; i < n; i++) {
            counts[s.pick(logits, NONE, 0, 5)]++;
        }
        for (int i = 0; i < p.length; i++) {
            double expected = p[i] / sum;
            double sd = Math.sqrt(expected * (1 - expected) / n);
            double got = counts[i] / (double) n;
            assertTrue(Math.abs(got - expected) < 5 * sd, "token " + i + ": expected " + expected + ", drew "
                    + got + " (5 sd = " + 5 * sd + ")");
        }
    }

    @Test
    void theSameSeedDrawsTheSameTokens() {
        float[] logits = {0.3f, 0.1f, 0.2f, 0.25f, 0.15f};
        GenerationOptions o = GenerationOptions.defaults().withTemperature(1).withSeed(42);
        Sampler a = new Sampler(o);
        Sampler b = new Sampler(o);
        for (int i = 0; i < 50; i++) {
            assertEquals(a.pick(logits, NONE, 0, i), b.pick(logits, NONE, 0, i));
        }
    }
}
