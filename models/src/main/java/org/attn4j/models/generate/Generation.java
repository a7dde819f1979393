package org.attn4j.models.generate;

import java.util.Arrays;

/**
 * What one generation produced: the new tokens (no stop token), why it ended, the stop token when that was the
 * reason, and how many tokens the model read as prompt.
 *
 * @param tokens the generated ids, in order
 * @param stopReason why generation ended
 * @param stopToken the stop token picked, or -1 unless {@code stopReason} is {@link StopReason#STOP_TOKEN}
 * @param promptTokens the prompt's length in tokens (all of the sequence before the new tokens)
 */
public record Generation(int[] tokens, StopReason stopReason, int stopToken, int promptTokens) {

    /** Copies the tokens. */
    public Generation {
        tokens = tokens.clone();
    }

    /** @return the generated ids (a copy) */
    @Override
    public int[] tokens() {
        return tokens.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Generation g && Arrays.equals(g.tokens, tokens) && g.stopReason == stopReason
                && g.stopToken == stopToken && g.promptTokens == promptTokens;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(tokens) * 31 + stopReason.hashCode() + stopToken + promptTokens;
    }

    @Override
    public String toString() {
        return "Generation" + Arrays.toString(tokens) + " " + stopReason + (stopToken >= 0 ? " " + stopToken : "")
                + ", prompt " + promptTokens;
    }
}
