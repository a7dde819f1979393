package org.attn4j.server;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.concurrent.ThreadLocalRandom;
import org.attn4j.models.generate.Generation;

/**
 * The JSON OpenAI's API answers a generation with. A whole answer:
 * <pre>
 *   {"id", "object": "text_completion" | "chat.completion", "created", "model", "system_fingerprint": null,
 *    "choices": [{"index": 0, "text": "…" | "message": {"role": "assistant", "content": "…", "refusal": null},
 *                 "logprobs": null, "finish_reason": "stop" | "length"[, "prompt_token_ids", "token_ids"]}],
 *    "usage": {"prompt_tokens", "completion_tokens", "total_tokens"}}
 * </pre>
 * A streamed chunk has the same head with the chunk object, and one choice whose {@code text} (chat: {@code delta},
 * with the {@code role} in the first) carries the next piece; the last carries the {@code finish_reason}; a usage
 * chunk has no choice and the usage.
 */
final class GenerationJson {
    private GenerationJson() {
    }

    /** @return a new answer id: the endpoint's prefix and 63 random bits in hex */
    static String id(GenerationKind kind) {
        return kind.idPrefix + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    /**
     * @param id the answer's id
     * @param kind which endpoint
     * @param request the request
     * @param text the reply's text
     * @param finishReason {@code stop} or {@code length}
     * @param g the generation (its ids, for {@code token_ids} and the usage)
     * @return the whole answer
     */
    static byte[] whole(String id, GenerationKind kind, GenerationRequest request, String text, String finishReason,
                        Generation g) {
        return JsonBody.object(w -> {
            head(w, id, kind.object, request);
            w.writeArrayFieldStart("choices");
            w.writeStartObject();
            w.writeNumberField("index", 0);
            if (kind == GenerationKind.CHAT) {
                w.writeObjectFieldStart("message");
                w.writeStringField("role", "assistant");
                w.writeStringField("content", text);
                w.writeNullField("refusal");
                w.writeEndObject();
            } else {
                w.writeStringField("text", text);
            }
            w.writeNullField("logprobs");
            w.writeStringField("finish_reason", finishReason);
            if (request.tokenIds()) {
                w.writeFieldName("prompt_token_ids");
                w.writeArray(request.prompt(), 0, request.prompt().length);
                w.writeFieldName("token_ids");
                int[] t = g.tokens();
                w.writeArray(t, 0, t.length);
            }
            w.writeEndObject();
            w.writeEndArray();
            usage(w, request, g.tokens().length);
        });
    }

    /**
     * @param id the answer's id
     * @param kind which endpoint
     * @param request the request
     * @param text the next piece of the reply ({@code ""} in the first chat chunk and the last)
     * @param first whether this is a chat stream's first chunk, which names the role
     * @param finishReason null, or {@code stop} or {@code length} in the last chunk
     * @return one streamed chunk
     */
    static byte[] chunk(String id, GenerationKind kind, GenerationRequest request, String text, boolean first,
                        String finishReason) {
        return JsonBody.object(w -> {
            head(w, id, kind.chunkObject, request);
            w.writeArrayFieldStart("choices");
            w.writeStartObject();
            w.writeNumberField("index", 0);
            if (kind == GenerationKind.CHAT) {
                w.writeObjectFieldStart("delta");
                if (first) {
                    w.writeStringField("role", "assistant");
                }
                if (finishReason == null) {
                    w.writeStringField("content", text);
                }
                w.writeEndObject();
            } else {
                w.writeStringField("text", text);
            }
            w.writeNullField("logprobs");
            w.writeStringField("finish_reason", finishReason);
            w.writeEndObject();
            w.writeEndArray();
            if (request.usageChunk()) {
                w.writeNullField("usage");
            }
        });
    }

    /**
     * @param id the answer's id
     * @param kind which endpoint
     * @param request the request
     * @param completionTokens how many tokens the reply has
     * @return the usage chunk that ends a stream asked for with {@code stream_options.include_usage}
     */
    static byte[] usageChunk(String id, GenerationKind kind, GenerationRequest request, int completionTokens) {
        return JsonBody.object(w -> {
            head(w, id, kind.chunkObject, request);
            w.writeArrayFieldStart("choices");
            w.writeEndArray();
            usage(w, request, completionTokens);
        });
    }

    private static void head(JsonGenerator w, String id, String object, GenerationRequest request)
            throws IOException {
        w.writeStringField("id", id);
        w.writeStringField("object", object);
        w.writeNumberField("created", request.created());
        w.writeStringField("model", request.decoder().name());
        w.writeNullField("system_fingerprint");
    }

    private static void usage(JsonGenerator w, GenerationRequest request, int completion) throws IOException {
        w.writeObjectFieldStart("usage");
        w.writeNumberField("prompt_tokens", request.prompt().length);
        w.writeNumberField("completion_tokens", completion);
        w.writeNumberField("total_tokens", request.prompt().length + completion);
        w.writeEndObject();
    }
}
