package org.attn4j.models.generate;

/**
 * Receives a chat reply as it is generated: each token with the text it completes (empty while a character's bytes
 * are still coming, or for a token without text), so that a caller can stream text to a user or a socket, and may
 * stop the generation.
 */
@FunctionalInterface
public interface ChatListener {

    /**
     * @param token the new token id, or -1 for the text still held back when generation ends (the bytes of an
     *     unfinished character, as U+FFFD)
     * @param text the text this token completes, possibly empty
     * @return {@code true} to go on, {@code false} to stop now (the reply ends {@link StopReason#CANCELLED})
     */
    boolean onToken(int token, String text);
}
