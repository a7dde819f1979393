package org.attn4j.server;

/**
 * Which of the two generation endpoints a request came to, and the names OpenAI's API gives its answers there:
 * {@code POST /v1/completions} answers a {@code text_completion} (streamed as {@code text_completion} chunks),
 * {@code POST /v1/chat/completions} a {@code chat.completion} (streamed as {@code chat.completion.chunk}s).
 */
enum GenerationKind {
    COMPLETION("text_completion", "text_completion", "cmpl-"),
    CHAT("chat.completion", "chat.completion.chunk", "chatcmpl-");

    /** The {@code object} of a whole answer. */
    final String object;
    /** The {@code object} of each streamed chunk. */
    final String chunkObject;
    /** What an answer's {@code id} starts with. */
    final String idPrefix;

    GenerationKind(String object, String chunkObject, String idPrefix) {
        this.object = object;
        this.chunkObject = chunkObject;
        this.idPrefix = idPrefix;
    }
}
