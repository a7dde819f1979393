package org.attn4j.models.generate;

/** Why a generation ended. */
public enum StopReason {
    /** A stop token was picked (an end-of-sequence or end-of-turn id of the checkpoint); it is not in the output. */
    STOP_TOKEN,
    /** {@link GenerationOptions#maxNewTokens()} tokens were generated, or the sequence reached its maximum length. */
    LENGTH,
    /** The listener asked to stop. */
    CANCELLED,
    /**
     * The output's grammar ({@link GenerationOptions#grammar()}) allows no further token: the text is whole and no
     * stop token is set, or no token of the vocabulary continues it.
     */
    GRAMMAR
}
