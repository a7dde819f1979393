package org.attn4j.models.generate;

import java.util.Arrays;

/**
 * How {@link Generator} picks tokens and when it stops. Start from {@link #defaults()} (greedy, 64 new tokens, no
 * stop token), or from what a checkpoint intends ({@link GenerationConfig#options()}), and change what you need with
 * the {@code with…} methods; each returns a new value.
 *
 * <p>Each step, as transformers' logits processors in their order: the repetition penalty divides the logit of every
 * token already in the sequence (prompt included) by {@code repetitionPenalty} when it is positive, multiplies it
 * when negative; with temperature 0 the arg max is taken (the lowest id among ties). Otherwise the logits are divided
 * by the temperature; only the {@code topK} largest are kept (0 keeps all); after a softmax, only the smallest set of
 * most likely tokens whose probabilities reach {@code topP} (1 keeps all); then only those at least {@code minP} times
 * as likely as the most likely one (0 keeps all); one draw from a {@link java.util.SplittableRandom} seeded with
 * {@code seed} picks among the rest, in proportion. Until {@code minNewTokens} tokens exist, the stop tokens cannot be
 * picked. Generation stops at a stop token (not returned), after {@code maxNewTokens} tokens, or when the sequence,
 * prompt included, reaches {@code maxLength} (0: no such limit).
 */
public final class GenerationOptions {
    private static final GenerationOptions DEFAULTS = new GenerationOptions(64, 0.0, 0, 1.0, 0.0, 1.0, 0, 0, 0L,
            new int[0]);

    private final int maxNewTokens;
    private final double temperature;
    private final int topK;
    private final double topP;
    private final double minP;
    private final double repetitionPenalty;
    private final int maxLength;
    private final int minNewTokens;
    private final long seed;
    private final int[] stopTokens;

    private GenerationOptions(int maxNewTokens, double temperature, int topK, double topP, double minP,
                              double repetitionPenalty, int maxLength, int minNewTokens, long seed,
                              int[] stopTokens) {
        if (maxNewTokens < 0) {
            throw new IllegalArgumentException("generate: argument maxNewTokens is " + maxNewTokens
                    + "; it must be at least 0");
        }
        if (!(temperature >= 0) || Double.isInfinite(temperature)) {
            throw new IllegalArgumentException("generate: argument temperature is " + temperature
                    + "; it must be finite and at least 0");
        }
        if (topK < 0) {
            throw new IllegalArgumentException("generate: argument topK is " + topK + "; it must be at least 0");
        }
        if (!(topP > 0 && topP <= 1)) {
            throw new IllegalArgumentException("generate: argument topP is " + topP + "; it must lie in (0, 1]");
        }
        if (!(minP >= 0 && minP <= 1)) {
            throw new IllegalArgumentException("generate: argument minP is " + minP + "; it must lie in [0, 1]");
        }
        if (!(repetitionPenalty > 0) || Double.isInfinite(repetitionPenalty)) {
            throw new IllegalArgumentException("generate: argument repetitionPenalty is " + repetitionPenalty
                    + "; it must be finite and above 0 (1 for none)");
        }
        if (maxLength < 0 || minNewTokens < 0) {
            throw new IllegalArgumentException("generate: argument " + (maxLength < 0 ? "maxLength is " + maxLength
                    : "minNewTokens is " + minNewTokens) + "; it must be at least 0");
        }
        this.maxNewTokens = maxNewTokens;
        this.temperature = temperature;
        this.topK = topK;
        this.topP = topP;
        this.minP = minP;
        this.repetitionPenalty = repetitionPenalty;
        this.maxLength = maxLength;
        this.minNewTokens = minNewTokens;
        this.seed = seed;
        this.stopTokens = stopTokens.clone();
    }

    /** @return greedy decoding of at most 64 new tokens without stop tokens */
    public static GenerationOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param value the most tokens to generate
     * @return a copy with that limit
     */
    public GenerationOptions withMaxNewTokens(int value) {
        return new GenerationOptions(value, temperature, topK, topP, minP, repetitionPenalty, maxLength, minNewTokens,
                seed, stopTokens);
    }

    /**
     * @param value 0 for greedy decoding, else the softmax temperature
     * @return a copy with that temperature
     */
    public GenerationOptions withTemperature(double value) {
        return new GenerationOptions(maxNewTokens, value, topK, topP, minP, repetitionPenalty, maxLength, minNewTokens,
                seed, stopTokens);
    }

    /**
     * @param value how many most likely tokens to sample from; 0 for all
     * @return a copy with top-k filtering
     */
    public GenerationOptions withTopK(int value) {
        return new GenerationOptions(maxNewTokens, temperature, value, topP, minP, repetitionPenalty, maxLength,
                minNewTokens, seed, stopTokens);
    }

    /**
     * @param value the probability mass of the most likely tokens to sample from, in {@code (0, 1]}
     * @return a copy with nucleus (top-p) filtering
     */
    public GenerationOptions withTopP(double value) {
        return new GenerationOptions(maxNewTokens, temperature, topK, value, minP, repetitionPenalty, maxLength,
                minNewTokens, seed, stopTokens);
    }

    /**
     * @param value the least probability, relative to the most likely token's, a token needs to be sampled, in
     *     {@code [0, 1]}; 0 for none
     * @return a copy with min-p filtering
     */
    public GenerationOptions withMinP(double value) {
        return new GenerationOptions(maxNewTokens, temperature, topK, topP, value, repetitionPenalty, maxLength,
                minNewTokens, seed, stopTokens);
    }

    /**
     * @param value the repetition penalty (transformers' {@code repetition_penalty}); 1 for none
     * @return a copy with that penalty
     */
    public GenerationOptions withRepetitionPenalty(double value) {
        return new GenerationOptions(maxNewTokens, temperature, topK, topP, minP, value, maxLength, minNewTokens,
                seed, stopTokens);
    }

    /**
     * @param value the most tokens of the whole sequence, prompt included (transformers' {@code max_length}); 0 for
     *     no such limit
     * @return a copy with that limit
     */
    public GenerationOptions withMaxLength(int value) {
        return new GenerationOptions(maxNewTokens, temperature, topK, topP, minP, repetitionPenalty, value,
                minNewTokens, seed, stopTokens);
    }

    /**
     * @param value how many tokens must be generated before a stop token may be picked
     * @return a copy with that floor
     */
    public GenerationOptions withMinNewTokens(int value) {
        return new GenerationOptions(maxNewTokens, temperature, topK, topP, minP, repetitionPenalty, maxLength, value,
                seed, stopTokens);
    }

    /**
     * @param value the seed of the sampler
     * @return a copy with that seed
     */
    public GenerationOptions withSeed(long value) {
        return new GenerationOptions(maxNewTokens, temperature, topK, topP, minP, repetitionPenalty, maxLength,
                minNewTokens, value, stopTokens);
    }

    /**
     * @param values token ids that end generation (the stop token itself is neither streamed nor returned)
     * @return a copy with those stop tokens
     */
    public GenerationOptions withStopTokens(int... values) {
        return new GenerationOptions(maxNewTokens, temperature, topK, topP, minP, repetitionPenalty, maxLength,
                minNewTokens, seed, values);
    }

    /** @return the most tokens to generate */
    public int maxNewTokens() {
        return maxNewTokens;
    }

    /** @return the temperature, 0 for greedy */
    public double temperature() {
        return temperature;
    }

    /** @return the top-k limit, 0 for none */
    public int topK() {
        return topK;
    }

    /** @return the top-p mass, 1 for none */
    public double topP() {
        return topP;
    }

    /** @return the min-p ratio, 0 for none */
    public double minP() {
        return minP;
    }

    /** @return the repetition penalty, 1 for none */
    public double repetitionPenalty() {
        return repetitionPenalty;
    }

    /** @return the most tokens of the whole sequence, 0 for no such limit */
    public int maxLength() {
        return maxLength;
    }

    /** @return how many tokens come before a stop token may */
    public int minNewTokens() {
        return minNewTokens;
    }

    /** @return the sampler's seed */
    public long seed() {
        return seed;
    }

    /** @return the stop tokens (a copy) */
    public int[] stopTokens() {
        return stopTokens.clone();
    }

    /**
     * @param token a token id
     * @return whether it ends generation
     */
    boolean stops(int token) {
        for (int s : stopTokens) {
            if (s == token) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "GenerationOptions[maxNewTokens=" + maxNewTokens + ", temperature=" + temperature + ", topK=" + topK
                + ", topP=" + topP + ", minP=" + minP + ", repetitionPenalty=" + repetitionPenalty + ", maxLength="
                + maxLength + ", minNewTokens=" + minNewTokens + ", seed=" + seed + ", stopTokens="
                + Arrays.toString(stopTokens) + "]";
    }
}
