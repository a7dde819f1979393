package org.attn4j.models.generate;

import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;
import org.attn4j.models.grammar.TokenGrammar;

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
 *
 * <p>With a {@link TokenGrammar} ({@link #withGrammar}), every token whose bytes would take the output out of the
 * grammar has its logit set to −∞ after the repetition penalty and before the temperature, so greedy decoding and
 * sampling choose only among the tokens that keep the output a prefix of a text of the grammar; the stop tokens are
 * allowed only once the output is a whole text. When the grammar allows no token at all (the text is whole and there
 * is no stop token, or no token of the vocabulary continues it), generation ends ({@link StopReason#GRAMMAR}). Each
 * generation keeps its own place in the grammar, so batched generations do not disturb one another.
 */
public final class GenerationOptions {
    private static final GenerationOptions DEFAULTS = new GenerationOptions(new Values());

    /** Every option, in one place: the defaults are its initial values, a copy is one call. */
    private static final class Values implements Cloneable {
        int maxNewTokens = 64;
        double temperature;
        int topK;
        double topP = 1.0;
        double minP;
        double repetitionPenalty = 1.0;
        int maxLength;
        int minNewTokens;
        long seed;
        int[] stopTokens = new int[0];
        TokenGrammar grammar;

        Values copy() {
            try {
                Values c = (Values) clone();
                c.stopTokens = stopTokens.clone();
                return c;
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private final Values v;

    private GenerationOptions(Values v) {
        if (v.maxNewTokens < 0) {
            throw new IllegalArgumentException("generate: argument maxNewTokens is " + v.maxNewTokens
                    + "; it must be at least 0");
        }
        if (!(v.temperature >= 0) || Double.isInfinite(v.temperature)) {
            throw new IllegalArgumentException("generate: argument temperature is " + v.temperature
                    + "; it must be finite and at least 0");
        }
        if (v.topK < 0) {
            throw new IllegalArgumentException("generate: argument topK is " + v.topK + "; it must be at least 0");
        }
        if (!(v.topP > 0 && v.topP <= 1)) {
            throw new IllegalArgumentException("generate: argument topP is " + v.topP + "; it must lie in (0, 1]");
        }
        if (!(v.minP >= 0 && v.minP <= 1)) {
            throw new IllegalArgumentException("generate: argument minP is " + v.minP + "; it must lie in [0, 1]");
        }
        if (!(v.repetitionPenalty > 0) || Double.isInfinite(v.repetitionPenalty)) {
            throw new IllegalArgumentException("generate: argument repetitionPenalty is " + v.repetitionPenalty
                    + "; it must be finite and above 0 (1 for none)");
        }
        if (v.maxLength < 0 || v.minNewTokens < 0) {
            throw new IllegalArgumentException("generate: argument " + (v.maxLength < 0
                    ? "maxLength is " + v.maxLength : "minNewTokens is " + v.minNewTokens) + "; it must be at least 0");
        }
        this.v = v;
    }

    private GenerationOptions with(Consumer<Values> change) {
        Values next = v.copy();
        change.accept(next);
        return new GenerationOptions(next);
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
        return with(o -> o.maxNewTokens = value);
    }

    /**
     * @param value 0 for greedy decoding, else the softmax v.temperature
     * @return a copy with that temperature
     */
    public GenerationOptions withTemperature(double value) {
        return with(o -> o.temperature = value);
    }

    /**
     * @param value how many most likely tokens to sample from; 0 for all
     * @return a copy with top-k filtering
     */
    public GenerationOptions withTopK(int value) {
        return with(o -> o.topK = value);
    }

    /**
     * @param value the probability mass of the most likely tokens to sample from, in {@code (0, 1]}
     * @return a copy with nucleus (top-p) filtering
     */
    public GenerationOptions withTopP(double value) {
        return with(o -> o.topP = value);
    }

    /**
     * @param value the least probability, relative to the most likely token's, a token needs to be sampled, in
     *     {@code [0, 1]}; 0 for none
     * @return a copy with min-p filtering
     */
    public GenerationOptions withMinP(double value) {
        return with(o -> o.minP = value);
    }

    /**
     * @param value the repetition penalty (transformers' {@code repetition_penalty}); 1 for none
     * @return a copy with that penalty
     */
    public GenerationOptions withRepetitionPenalty(double value) {
        return with(o -> o.repetitionPenalty = value);
    }

    /**
     * @param value the most tokens of the whole sequence, prompt included (transformers' {@code max_length}); 0 for
     *     no such limit
     * @return a copy with that limit
     */
    public GenerationOptions withMaxLength(int value) {
        return with(o -> o.maxLength = value);
    }

    /**
     * @param value how many tokens must be generated before a stop token may be picked
     * @return a copy with that floor
     */
    public GenerationOptions withMinNewTokens(int value) {
        return with(o -> o.minNewTokens = value);
    }

    /**
     * @param value the seed of the sampler
     * @return a copy with that seed
     */
    public GenerationOptions withSeed(long value) {
        return with(o -> o.seed = value);
    }

    /**
     * @param values token ids that end generation (the stop token itself is neither streamed nor returned)
     * @return a copy with those stop tokens
     */
    public GenerationOptions withStopTokens(int... values) {
        return with(o -> o.stopTokens = values.clone());
    }

    /**
     * @param value the grammar the output is held to, or null for none
     * @return a copy with that grammar
     */
    public GenerationOptions withGrammar(TokenGrammar value) {
        return with(o -> o.grammar = value);
    }

    /** @return the grammar the output is held to, if any */
    public Optional<TokenGrammar> grammar() {
        return Optional.ofNullable(v.grammar);
    }

    /** @return the most tokens to generate */
    public int maxNewTokens() {
        return v.maxNewTokens;
    }

    /** @return the temperature, 0 for greedy */
    public double temperature() {
        return v.temperature;
    }

    /** @return the top-k limit, 0 for none */
    public int topK() {
        return v.topK;
    }

    /** @return the top-p mass, 1 for none */
    public double topP() {
        return v.topP;
    }

    /** @return the min-p ratio, 0 for none */
    public double minP() {
        return v.minP;
    }

    /** @return the repetition penalty, 1 for none */
    public double repetitionPenalty() {
        return v.repetitionPenalty;
    }

    /** @return the most tokens of the whole sequence, 0 for no such limit */
    public int maxLength() {
        return v.maxLength;
    }

    /** @return how many tokens come before a stop token may */
    public int minNewTokens() {
        return v.minNewTokens;
    }

    /** @return the sampler's seed */
    public long seed() {
        return v.seed;
    }

    /** @return the stop tokens (a copy) */
    public int[] stopTokens() {
        return v.stopTokens.clone();
    }

    /**
     * @param token a token id
     * @return whether it ends generation
     */
    boolean stops(int token) {
        for (int s : v.stopTokens) {
            if (s == token) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "GenerationOptions[maxNewTokens=" + v.maxNewTokens + ", temperature=" + v.temperature + ", topK="
                + v.topK + ", topP=" + v.topP + ", minP=" + v.minP + ", repetitionPenalty=" + v.repetitionPenalty
                + ", maxLength=" + v.maxLength + ", minNewTokens=" + v.minNewTokens + ", seed=" + v.seed + ", stopTokens="
                + Arrays.toString(v.stopTokens) + (v.grammar != null ? ", grammar" : "")
                + "]";
    }
}
