package org.attn4j.models.generate;

/** Receives each token {@link Generator#stream} picks, as soon as it exists, and may stop the generation. */
@FunctionalInterface
public interface TokenListener {

    /**
     * @param token the new token id (never a stop token)
     * @return {@code true} to go on, {@code false} to stop now (the generation ends {@link StopReason#CANCELLED})
     */
    boolean onToken(int token);
}
