package org.attn4j.models.decoder;

import java.util.Arrays;

/**
 * How {@link Generator} picks tokens. Start from {@link #defaults()} (greedy, 64 new tokens, no stop token) and
 * change what you need with the {@code with…} methods; each returns a new value.
 *
 * <p>Sampling, when the temperature is above 0: logits divided by the temperature; only the {@code topK} largest
 * kept (0 keeps all); softmax; only the smallest set of most likely tokens whose probabilities reach {@code topP}
 * kept (1 keeps all); renormalised; one draw from a {@link java.util.SplittableRandom} seeded with {@code seed}.
 * Temperature 0 takes the arg max (the lowest id among ties).
 */
public final class GenerationOptions {
    private static final GenerationOptions DEFAULTS = new GenerationOptions(64, 0.0, 0, 1.0, 0L, new int[0]);

    private final int maxNewTokens;
    private final double temperature;
    private final int topK;
    private final double topP;
    private final long seed;
    private final int[] stopTokens;

    private GenerationOptions(int maxNewTokens, double temperature, int topK, double topP, long seed,
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
        this.maxNewTokens = maxNewTokens;
        this.temperature = temperature;
        this.topK = topK;
        this.topP = topP;
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
        return new GenerationOptions(value, temperature, topK, topP, seed, stopTokens);
    }

    /**
     * @param value 0 for greedy decoding, else the softmax temperature
     * @return a copy with that temperature
     */
    public GenerationOptions withTemperature(double value) {
        return new GenerationOptions(maxNewTokens, value, topK, topP, seed, stopTokens);
    }

    /**
     * @param value how many most likely tokens to sample from; 0 for all
     * @return a copy with top-k filtering
     */
    public GenerationOptions withTopK(int value) {
        return new GenerationOptions(maxNewTokens, temperature, value, topP, seed, stopTokens);
    }

    /**
     * @param value the probability mass of the most likely tokens to sample from, in {@code (0, 1]}
     * @return a copy with nucleus (top-p) filtering
     */
    public GenerationOptions withTopP(double value) {
        return new GenerationOptions(maxNewTokens, temperature, topK, value, seed, stopTokens);
    }

    /**
     * @param value the seed of the sampler
     * @return a copy with that seed
     */
    public GenerationOptions withSeed(long value) {
        return new GenerationOptions(maxNewTokens, temperature, topK, topP, value, stopTokens);
    }

    /**
     * @param values token ids that end generation (the stop token itself is neither streamed nor returned)
     * @return a copy with those stop tokens
     */
    public GenerationOptions withStopTokens(int... values) {
        return new GenerationOptions(maxNewTokens, temperature, topK, topP, seed, values);
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
                + ", topP=" + topP + ", seed=" + seed + ", stopTokens=" + Arrays.toString(stopTokens) + "]";
    }
}
