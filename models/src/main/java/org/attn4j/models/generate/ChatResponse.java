package org.attn4j.models.generate;

import java.util.Arrays;

/**
 * A chat reply: its text (the generated tokens decoded without special tokens), the tokens, why generation ended,
 * the stop token when that was the reason, and the usage counts a server reports.
 *
 * @param text the reply
 * @param tokens the generated ids, without the stop token
 * @param stopReason why generation ended
 * @param stopToken the stop token picked, or -1
 * @param promptTokens how many tokens the rendered conversation had
 */
public record ChatResponse(String text, int[] tokens, StopReason stopReason, int stopToken, int promptTokens) {

    /** Copies the tokens. */
    public ChatResponse {
        tokens = tokens.clone();
    }

    /** @return the generated ids (a copy) */
    @Override
    public int[] tokens() {
        return tokens.clone();
    }

    /** @return how many tokens were generated */
    public int completionTokens() {
        return tokens.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChatResponse r && r.text.equals(text) && Arrays.equals(r.tokens, tokens)
                && r.stopReason == stopReason && r.stopToken == stopToken && r.promptTokens == promptTokens;
    }

    @Override
    public int hashCode() {
        return text.hashCode() * 31 + Arrays.hashCode(tokens);
    }

    @Override
    public String toString() {
        return "ChatResponse[" + stopReason + ", " + promptTokens + " + " + tokens.length + " tokens: " + text + "]";
    }
}
