package org.attn4j.server;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.attn4j.models.chat.ToolCall;
import org.attn4j.models.generate.Generation;

/**
 * The JSON OpenAI's API answers a generation with. A whole answer:
 * <pre>
 *   {"id", "object": "text_completion" | "chat.completion", "created", "model", "system_fingerprint": null,
 *    "choices": [{"index": 0, "text": "…" | "message": {"role": "assistant", "content": "…" | null,
 *                                                       ["reasoning_content": "…",] ["tool_calls": [CALL, …],]
 *                                                       "refusal": null},
 *                 "logprobs": null, "finish_reason": "stop" | "length" | "tool_calls"
 *                 [, "prompt_token_ids", "token_ids"]}],
 *    "usage": {"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details": {"cached_tokens"}}}
 * </pre>
 * where a CALL is {@code {"id", "type": "function", "function": {"name", "arguments": "<JSON object's text>"}}} and
 * {@code content} is null when the reply is only calls ({@link ChatReply}). A streamed chunk has the same head with the
 * chunk object, and one choice whose {@code text} (chat: {@code delta}, with the {@code role} in the first) carries
 * the next piece: a chat delta's {@code reasoning_content}, {@code content} or {@code tool_calls} (each CALL with its
 * {@code index}); the last carries the {@code finish_reason}; a usage chunk has no choice and the usage.
 *
 * <p>When the request asks for log-probabilities ({@link GenerationRequest#logprobs()}), a choice's {@code logprobs}
 * holds those of its tokens ({@link TokenLogprob}; in a stream, of the tokens generated since the previous chunk,
 * whose text the chunk carries or holds back); chat:
 * <pre>
 *   {"content": [{"token", "logprob", "bytes": [UTF-8], "top_logprobs": [{"token", "logprob", "bytes"}, …]}, …],
 *    "refusal": null}
 * </pre>
 * legacy completions:
 * <pre>
 *   {"tokens": [..], "token_logprobs": [..], "top_logprobs": [{TEXT: LOGPROB, …}, ..], "text_offset": [..]}
 * </pre>
 * where a {@code top_logprobs} object keeps, of tokens with the same text, the most likely.
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
     * @param reply the reply: a completion's text is its content; a chat's reasoning and calls are written too
     * @param finishReason {@code stop}, {@code length} or {@code tool_calls}
     * @param g the generation (its ids, for {@code token_ids} and the usage)
     * @param logprobs every token's log-probability, when the request asks for them
     * @param cachedTokens how many prompt tokens came from the prompt cache
     * @return the whole answer
     */
    static byte[] whole(String id, GenerationKind kind, GenerationRequest request, ChatReply.Delta reply,
                        String finishReason, Generation g, List<TokenLogprob> logprobs, int cachedTokens) {
        return JsonBody.object(w -> {
            head(w, id, kind.object, request);
            w.writeArrayFieldStart("choices");
            w.writeStartObject();
            w.writeNumberField("index", 0);
            if (kind == GenerationKind.CHAT) {
                w.writeObjectFieldStart("message");
                w.writeStringField("role", "assistant");
                if (reply.content().isEmpty() && !reply.calls().isEmpty()) {
                    w.writeNullField("content");
                } else {
                    w.writeStringField("content", reply.content());
                }
                if (!reply.reasoning().isEmpty()) {
                    w.writeStringField("reasoning_content", reply.reasoning());
                }
                toolCalls(w, reply.calls(), false);
                w.writeNullField("refusal");
                w.writeEndObject();
            } else {
                w.writeStringField("text", reply.content());
            }
            logprobs(w, kind, request, logprobs);
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
            usage(w, request, g.tokens().length, cachedTokens);
        });
    }

    /**
     * @param id the answer's id
     * @param kind which endpoint
     * @param request the request
     * @param delta the next piece of the reply (empty in the first chat chunk and the last): a completion's text is
     *     its content; a chat chunk carries the reasoning, content and calls it has
     * @param first whether this is a chat stream's first chunk, which names the role
     * @param finishReason null, or {@code stop}, {@code length} or {@code tool_calls} in the last chunk
     * @param logprobs the log-probabilities of the tokens generated since the previous chunk (when the request asks
     *     for them), or null
     * @return one streamed chunk
     */
    static byte[] chunk(String id, GenerationKind kind, GenerationRequest request, ChatReply.Delta delta,
                        boolean first, String finishReason, List<TokenLogprob> logprobs) {
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
                if (!delta.reasoning().isEmpty()) {
                    w.writeStringField("reasoning_content", delta.reasoning());
                }
                if (finishReason == null && (!delta.content().isEmpty() || delta.reasoning().isEmpty()
                        && delta.calls().isEmpty())) {
                    w.writeStringField("content", delta.content());
                }
                toolCalls(w, delta.calls(), true);
                w.writeEndObject();
            } else {
                w.writeStringField("text", delta.content());
            }
            logprobs(w, kind, request, logprobs);
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
     * @param cachedTokens how many prompt tokens came from the prompt cache
     * @return the usage chunk that ends a stream asked for with {@code stream_options.include_usage}
     */
    static byte[] usageChunk(String id, GenerationKind kind, GenerationRequest request, int completionTokens,
                             int cachedTokens) {
        return JsonBody.object(w -> {
            head(w, id, kind.chunkObject, request);
            w.writeArrayFieldStart("choices");
            w.writeEndArray();
            usage(w, request, completionTokens, cachedTokens);
        });
    }

    /** @return a new tool call id: 9 random letters and digits (the length Mistral's templates require) */
    static String callId() {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder out = new StringBuilder(9);
        for (int i = 0; i < 9; i++) {
            out.append(alphabet.charAt(ThreadLocalRandom.current().nextInt(alphabet.length())));
        }
        return out.toString();
    }

    /** Writes {@code tool_calls} (a stream's with each call's {@code index}), nothing when there are no calls. */
    private static void toolCalls(JsonGenerator w, List<ToolCall> calls, boolean indexed) throws IOException {
        if (calls.isEmpty()) {
            return;
        }
        w.writeArrayFieldStart("tool_calls");
        for (int i = 0; i < calls.size(); i++) {
            w.writeStartObject();
            if (indexed) {
                w.writeNumberField("index", i);
            }
            w.writeStringField("id", callId());
            w.writeStringField("type", "function");
            w.writeObjectFieldStart("function");
            w.writeStringField("name", calls.get(i).name());
            w.writeStringField("arguments", calls.get(i).arguments());
            w.writeEndObject();
            w.writeEndObject();
        }
        w.writeEndArray();
    }

    private static void logprobs(JsonGenerator w, GenerationKind kind, GenerationRequest request,
                                 List<TokenLogprob> tokens) throws IOException {
        if (request.logprobs() < 0 || tokens == null) {
            w.writeNullField("logprobs");
            return;
        }
        w.writeObjectFieldStart("logprobs");
        if (kind == GenerationKind.CHAT) {
            w.writeArrayFieldStart("content");
            for (TokenLogprob t : tokens) {
                w.writeStartObject();
                w.writeStringField("token", t.text());
                w.writeNumberField("logprob", t.logprob());
                bytes(w, t.bytes());
                w.writeArrayFieldStart("top_logprobs");
                for (TokenLogprob.Alternative a : t.top()) {
                    w.writeStartObject();
                    w.writeStringField("token", a.text());
                    w.writeNumberField("logprob", a.logprob());
                    bytes(w, a.bytes());
                    w.writeEndObject();
                }
                w.writeEndArray();
                w.writeEndObject();
            }
            w.writeEndArray();
            w.writeNullField("refusal");
        } else {
            w.writeArrayFieldStart("tokens");
            for (TokenLogprob t : tokens) {
                w.writeString(t.text());
            }
            w.writeEndArray();
            w.writeArrayFieldStart("token_logprobs");
            for (TokenLogprob t : tokens) {
                w.writeNumber(t.logprob());
            }
            w.writeEndArray();
            w.writeArrayFieldStart("top_logprobs");
            for (TokenLogprob t : tokens) {
                w.writeStartObject();
                Set<String> written = new HashSet<>();
                for (TokenLogprob.Alternative a : t.top()) {
                    if (written.add(a.text())) {
                        w.writeNumberField(a.text(), a.logprob());
                    }
                }
                w.writeEndObject();
            }
            w.writeEndArray();
            w.writeArrayFieldStart("text_offset");
            for (TokenLogprob t : tokens) {
                w.writeNumber(t.offset());
            }
            w.writeEndArray();
        }
        w.writeEndObject();
    }

    private static void bytes(JsonGenerator w, byte[] bytes) throws IOException {
        w.writeArrayFieldStart("bytes");
        for (byte b : bytes) {
            w.writeNumber(b & 0xff);
        }
        w.writeEndArray();
    }

    private static void head(JsonGenerator w, String id, String object, GenerationRequest request)
            throws IOException {
        w.writeStringField("id", id);
        w.writeStringField("object", object);
        w.writeNumberField("created", request.created());
        w.writeStringField("model", request.decoder().name());
        w.writeNullField("system_fingerprint");
    }

    /** Writes OpenAI's usage; {@code cached_tokens} counts the prompt tokens the prompt cache held. */
    private static void usage(JsonGenerator w, GenerationRequest request, int completion, int cached)
            throws IOException {
        w.writeObjectFieldStart("usage");
        w.writeNumberField("prompt_tokens", request.prompt().length);
        w.writeNumberField("completion_tokens", completion);
        w.writeNumberField("total_tokens", request.prompt().length + completion);
        w.writeObjectFieldStart("prompt_tokens_details");
        w.writeNumberField("cached_tokens", cached);
        w.writeEndObject();
        w.writeEndObject();
    }
}
