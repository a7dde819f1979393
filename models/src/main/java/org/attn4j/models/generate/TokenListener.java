package org.attn4j.models.generate;

/** Receives each token {@link Generator#stream} picks, as soon as it exists, and may stop the generation. */
@FunctionalInterface
public interface TokenListener {

    /**
     * @param token the new token id (never a stop token)
     * @return {@code true} to go on, {@code false} to stop now (the generation ends {@link StopReason#CANCELLED})
     */
    boolean onToken(int token);

    /**
     * Receives a new token with the logits it was chosen from; {@link Generator#stream} calls this one. The default
     * passes the token alone to {@link #onToken(int)}; a listener that reports probabilities (a server's
     * {@code logprobs}) overrides it.
     *
     * @param token the new token id (never a stop token)
     * @param logits the model's logits at this position, {@code [vocabSize]}, as the model gave them: before the
     *     repetition penalty, temperature, top-k, top-p or min-p; a fresh array the listener may keep
     * @return {@code true} to go on, {@code false} to stop now
     */
    default boolean onToken(int token, float[] logits) {
        return onToken(token);
    }
}
