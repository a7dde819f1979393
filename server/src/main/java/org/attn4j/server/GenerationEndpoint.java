package org.attn4j.server;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.attn4j.models.chat.ChatTemplateException;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.KvCache;
import org.attn4j.models.generate.Generation;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.Generator;
import org.attn4j.models.generate.StopReason;
import org.attn4j.models.tokenize.DecodeStream;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * {@code POST /v1/completions} and {@code POST /v1/chat/completions}, as OpenAI's API defines them, answered whole or
 * streamed as server-sent events ({@code data: {chunk}} per piece of text, then {@code data: [DONE]}).
 *
 * <p>What a request leaves out follows the checkpoint ({@code generation_config.json}: greedy unless it samples, its
 * temperature, top-k, top-p, min-p, repetition penalty; its stop ids always apply); {@code temperature},
 * {@code top_p}, {@code seed}, {@code max_tokens} ({@code max_completion_tokens}), {@code stop} (up to 4 strings) and
 * the extensions {@code top_k}, {@code min_p}, {@code repetition_penalty} override it. Sampling without a
 * {@code seed} draws one at random. {@code max_tokens} defaults to 16 for completions (as OpenAI's) and to the room
 * left in the context, at most {@link ServerOptions#maxTokens()}, for chat; a prompt that leaves no room, or a
 * {@code max_tokens} past the context, is refused ({@code context_length_exceeded}). {@code "return_token_ids": true}
 * (an extension, not streamed) adds the prompt's and the reply's token ids to the choice. {@code n} must be 1;
 * {@code logprobs}, {@code echo}, {@code suffix}, penalties other than 0, tools and response formats other than text
 * are refused by name.
 *
 * <p>A streamed reply whose client goes away stops at its next token; one that runs past the per-request timeout
 * ends with an error event. A chat request's messages are rendered by the checkpoint's chat template with a
 * generation prompt ({@code developer} messages as {@code system}); a completion's prompt is a string or token ids.
 */
final class GenerationEndpoint {
    /** Which of the two endpoints. */
    enum Kind {
        COMPLETION("text_completion", "text_completion", "cmpl-"),
        CHAT("chat.completion", "chat.completion.chunk", "chatcmpl-");

        final String object;
        final String chunkObject;
        final String idPrefix;

        Kind(String object, String chunkObject, String idPrefix) {
            this.object = object;
            this.chunkObject = chunkObject;
            this.idPrefix = idPrefix;
        }
    }

    private static final Set<String> COMMON = Set.of("model", "max_tokens", "temperature", "top_p", "n", "stream",
            "stream_options", "stop", "seed", "user", "presence_penalty", "frequency_penalty", "logit_bias",
            "top_k", "min_p", "repetition_penalty", "return_token_ids");
    private static final Set<String> COMPLETION_ONLY = Set.of("prompt", "echo", "best_of", "logprobs", "suffix");
    private static final Set<String> CHAT_ONLY = Set.of("messages", "max_completion_tokens", "logprobs",
            "top_logprobs", "response_format", "store", "metadata", "parallel_tool_calls");
    private static final Set<String> CHAT_UNSUPPORTED = Set.of("tools", "tool_choice", "functions",
            "function_call", "audio", "modalities", "prediction", "web_search_options", "reasoning_effort");

    private final Map<String, ServedModels.Decoder> decoders;
    private final GenerationScheduler scheduler;
    private final ServerOptions options;
    private final java.util.concurrent.atomic.AtomicLong abandoned = new java.util.concurrent.atomic.AtomicLong();

    GenerationEndpoint(Map<String, ServedModels.Decoder> decoders, GenerationScheduler scheduler,
                       ServerOptions options) {
        this.decoders = decoders;
        this.scheduler = scheduler;
        this.options = options;
    }

    /** @return how many streamed generations stopped early because their client went away */
    long abandoned() {
        return abandoned.get();
    }

    /** A checked request: what to run and how to answer. */
    private record Plan(ServedModels.Decoder decoder, int[] prompt, int[] context, GenerationOptions options,
                        List<String> stops, boolean stream, boolean usageChunk, boolean tokenIds, long created) {
    }

    /**
     * Answers one request on the calling (server) thread.
     *
     * @param ctx the exchange
     * @param request the body
     * @param kind which endpoint
     * @param deadlineNanos when the request stops being wanted
     */
    void handle(Context ctx, JsonRequest request, Kind kind, long deadlineNanos) throws InterruptedException {
        Plan plan = plan(request, kind);
        try (GenerationScheduler.Ticket ticket = scheduler.admit()) {
            ticket.start(deadlineNanos);
            if (plan.stream()) {
                stream(ctx, plan, kind, ticket, deadlineNanos);
            } else {
                whole(ctx, plan, kind, ticket, deadlineNanos);
            }
        }
    }

    private Plan plan(JsonRequest r, Kind kind) {
        Set<String> known = new HashSet<>(COMMON);
        known.addAll(kind == Kind.CHAT ? CHAT_ONLY : COMPLETION_ONLY);
        r.refuseUnknown(known, kind == Kind.CHAT ? CHAT_UNSUPPORTED : Set.of());
        String model = r.requiredString("model");
        ServedModels.Decoder d = decoders.get(model);
        if (d == null || (kind == Kind.CHAT && d.chat() == null)) {
            List<String> served = decoders.values().stream().filter(x -> kind != Kind.CHAT || x.chat() != null)
                    .map(ServedModels.Decoder::name).collect(Collectors.toList());
            throw ApiException.modelNotFound(model, kind == Kind.CHAT ? "chat completions" : "completions",
                    served.isEmpty() ? "this server serves no such model"
                    : (kind == Kind.CHAT ? "chat models here: " : "decoders here: ") + String.join(", ", served));
        }
        refuseUnsupported(r, kind);
        int[] prompt;
        int[] context;
        if (kind == Kind.CHAT) {
            prompt = render(d, messages(r.get("messages")));
            context = new int[0];
        } else {
            prompt = prompt(d, r.get("prompt"));
            int last = prompt[prompt.length - 1];
            context = d.tokenizer().token(last).isPresent() ? new int[] {last} : new int[0];
        }
        int positions = d.model().config().maxPositions();
        if (prompt.length >= positions) {
            throw ApiException.invalid(kind == Kind.CHAT ? "messages" : "prompt", "context_length_exceeded",
                    "The prompt has " + prompt.length + " tokens; model '" + model + "' reads at most " + positions
                    + " tokens, the reply included");
        }
        int room = positions - prompt.length;
        long asked = r.integer("max_tokens", -1, 1, Integer.MAX_VALUE);
        String askedName = "max_tokens";
        if (kind == Kind.CHAT && r.get("max_completion_tokens") != null) {
            if (asked > 0) {
                throw ApiException.invalid("max_completion_tokens", "Give 'max_tokens' or 'max_completion_tokens',"
                        + " not both");
            }
            asked = r.integer("max_completion_tokens", -1, 1, Integer.MAX_VALUE);
            askedName = "max_completion_tokens";
        }
        int maxNew;
        if (asked > 0) {
            if (asked > options.maxTokens()) {
                throw ApiException.invalid(askedName, "'" + askedName + "' is " + asked + "; this server generates "
                        + "at most " + options.maxTokens() + " tokens per request");
            }
            if (asked > room) {
                throw ApiException.invalid(askedName, "context_length_exceeded", "The prompt has " + prompt.length
                        + " tokens and '" + askedName + "' asks for " + asked + " more, but model '" + model
                        + "' reads at most " + positions + " tokens");
            }
            maxNew = (int) asked;
        } else {
            maxNew = Math.min(room, kind == Kind.CHAT ? options.maxTokens() : 16);
        }
        GenerationOptions o = sampling(r, d.defaults()).withMaxNewTokens(maxNew);
        boolean stream = r.bool("stream", false);
        boolean usage = false;
        JsonNode so = r.get("stream_options");
        if (so != null) {
            if (!stream) {
                throw ApiException.invalid("stream_options", "'stream_options' is only allowed with \"stream\": true");
            }
            if (!so.isObject()) {
                throw ApiException.invalid("stream_options", "'stream_options' must be an object, not "
                        + JsonRequest.kind(so));
            }
            for (var it = so.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!f.equals("include_usage")) {
                    throw ApiException.invalid("stream_options", "Unrecognized stream option: " + f);
                }
            }
            JsonNode iu = so.get("include_usage");
            if (iu != null && !iu.isNull() && !iu.isBoolean()) {
                throw ApiException.invalid("stream_options", "'stream_options.include_usage' must be true or false");
            }
            usage = iu != null && iu.asBoolean();
        }
        boolean ids = r.bool("return_token_ids", false);
        if (ids && stream) {
            throw ApiException.invalid("return_token_ids", "'return_token_ids' is only given without streaming");
        }
        r.string("user", null);
        return new Plan(d, prompt, context, o, stops(r.get("stop")), stream, usage, ids,
                System.currentTimeMillis() / 1000);
    }

    private static void refuseUnsupported(JsonRequest r, Kind kind) {
        long n = r.integer("n", 1, 1, 128);
        if (n != 1) {
            throw ApiException.invalid("n", "'n' is " + n + "; this server gives one choice per request");
        }
        for (String penalty : List.of("presence_penalty", "frequency_penalty")) {
            if (r.number(penalty, 0, -2, 2) != 0) {
                throw ApiException.invalid(penalty, "'" + penalty + "' is not supported by this server (only 0); "
                        + "'repetition_penalty' divides repeated tokens' logits instead");
            }
        }
        JsonNode bias = r.get("logit_bias");
        if (bias != null && !(bias.isObject() && bias.isEmpty())) {
            throw ApiException.invalid("logit_bias", "'logit_bias' is not supported by this server");
        }
        if (kind == Kind.COMPLETION) {
            if (r.bool("echo", false)) {
                throw ApiException.invalid("echo", "'echo' is not supported by this server");
            }
            if (r.integer("best_of", 1, 1, 128) != 1) {
                throw ApiException.invalid("best_of", "'best_of' must be 1 on this server");
            }
            if (r.get("logprobs") != null) {
                throw ApiException.invalid("logprobs", "'logprobs' is not supported by this server");
            }
            if (r.get("suffix") != null) {
                throw ApiException.invalid("suffix", "'suffix' is not supported by this server");
            }
        } else {
            if (r.bool("logprobs", false) || r.get("top_logprobs") != null) {
                throw ApiException.invalid(r.get("top_logprobs") != null ? "top_logprobs" : "logprobs",
                        "log probabilities are not supported by this server");
            }
            JsonNode format = r.get("response_format");
            if (format != null && !(format.isObject() && format.size() == 1 && format.path("type").isTextual()
                    && format.get("type").textValue().equals("text"))) {
                throw ApiException.invalid("response_format", "'response_format' may only be {\"type\": \"text\"} "
                        + "on this server");
            }
            if (r.get("parallel_tool_calls") != null && !r.get("parallel_tool_calls").isBoolean()) {
                throw ApiException.invalid("parallel_tool_calls", "'parallel_tool_calls' must be true or false");
            }
            r.bool("store", false);
        }
    }

    private static GenerationOptions sampling(JsonRequest r, GenerationOptions defaults) {
        GenerationOptions o = defaults;
        if (r.get("temperature") != null) {
            o = o.withTemperature(r.number("temperature", 0, 0, 2));
        }
        if (r.get("top_p") != null) {
            double p = r.number("top_p", 1, 0, 1);
            if (p == 0) {
                throw ApiException.invalid("top_p", "'top_p' is 0; it must lie in (0, 1]");
            }
            o = o.withTopP(p);
        }
        if (r.get("top_k") != null) {
            o = o.withTopK((int) r.integer("top_k", 0, 0, Integer.MAX_VALUE));
        }
        if (r.get("min_p") != null) {
            o = o.withMinP(r.number("min_p", 0, 0, 1));
        }
        if (r.get("repetition_penalty") != null) {
            double penalty = r.number("repetition_penalty", 1, 0, 1e6);
            if (penalty == 0) {
                throw ApiException.invalid("repetition_penalty", "'repetition_penalty' is 0; it must be above 0");
            }
            o = o.withRepetitionPenalty(penalty);
        }
        long seed = r.get("seed") != null ? r.integer("seed", 0, Long.MIN_VALUE, Long.MAX_VALUE)
                : ThreadLocalRandom.current().nextLong();
        return o.withSeed(seed);
    }

    private static List<String> stops(JsonNode stop) {
        List<String> out = new ArrayList<>();
        if (stop == null) {
            return out;
        }
        if (stop.isTextual()) {
            out.add(stop.textValue());
        } else if (stop.isArray()) {
            if (stop.size() > 4) {
                throw ApiException.invalid("stop", "'stop' holds " + stop.size() + " strings; at most 4 are allowed");
            }
            for (int i = 0; i < stop.size(); i++) {
                if (!stop.get(i).isTextual()) {
                    throw ApiException.invalid("stop", "stop[" + i + "] must be a string, not "
                            + JsonRequest.kind(stop.get(i)));
                }
                out.add(stop.get(i).textValue());
            }
        } else {
            throw ApiException.invalid("stop", "'stop' must be a string or an array of strings, not "
                    + JsonRequest.kind(stop));
        }
        if (out.stream().anyMatch(String::isEmpty)) {
            throw ApiException.invalid("stop", "'stop' holds an empty string");
        }
        return out;
    }

    private static int[] prompt(ServedModels.Decoder d, JsonNode prompt) {
        if (prompt == null) {
            throw ApiException.invalid("prompt", "'prompt' is required: a string or an array of token ids");
        }
        JsonNode p = prompt;
        if (p.isArray() && p.size() == 1 && (p.get(0).isTextual() || p.get(0).isArray())) {
            p = p.get(0);
        }
        int[] ids;
        if (p.isTextual()) {
            try {
                ids = d.tokenizer().encode(p.textValue()).ids();
            } catch (IllegalArgumentException e) {
                throw ApiException.invalid("prompt", "The prompt cannot be encoded: " + e.getMessage());
            }
        } else if (p.isArray() && !p.isEmpty() && p.get(0).isNumber()) {
            int vocab = d.model().config().vocabSize();
            ids = new int[p.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = (int) JsonRequest.integer("prompt", "prompt[" + i + "]", p.get(i), 0, vocab - 1);
            }
        } else if (p.isArray() && p.size() > 1) {
            throw ApiException.invalid("prompt", "'prompt' holds " + p.size() + " prompts; send one per request");
        } else {
            throw ApiException.invalid("prompt", "'prompt' must be a string or an array of token ids, not "
                    + (p.isArray() ? "an empty array" : JsonRequest.kind(p)));
        }
        if (ids.length == 0) {
            throw ApiException.invalid("prompt", "The prompt encodes to no tokens; give some text");
        }
        return ids;
    }

    private static List<Message> messages(JsonNode messages) {
        if (messages == null) {
            throw ApiException.invalid("messages", "'messages' is required: an array of messages");
        }
        if (!messages.isArray() || messages.isEmpty()) {
            throw ApiException.invalid("messages", "'messages' must be a non-empty array, not "
                    + (messages.isArray() ? "an empty one" : JsonRequest.kind(messages)));
        }
        List<Message> out = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            String where = "messages[" + i + "]";
            JsonNode m = messages.get(i);
            if (!m.isObject()) {
                throw ApiException.invalid("messages", where + " must be an object, not " + JsonRequest.kind(m));
            }
            for (var it = m.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!Set.of("role", "content", "name").contains(f)) {
                    throw ApiException.invalid("messages", where + "." + f + " is not supported by this server"
                            + (f.equals("tool_calls") || f.equals("tool_call_id") ? " (no tools)" : ""));
                }
            }
            JsonNode role = m.get("role");
            if (role == null || !role.isTextual()) {
                throw ApiException.invalid("messages", where + ".role must be a string, not " + JsonRequest.kind(role));
            }
            String r = role.textValue();
            if (!Set.of("system", "developer", "user", "assistant").contains(r)) {
                throw ApiException.invalid("messages", where + ".role is '" + r + "'; it must be system, developer,"
                        + " user or assistant");
            }
            Message message = Message.of(r.equals("developer") ? "system" : r, content(m.get("content"), where));
            JsonNode name = m.get("name");
            if (name != null && !name.isNull()) {
                if (!name.isTextual()) {
                    throw ApiException.invalid("messages", where + ".name must be a string");
                }
                message = message.with("name", name.textValue());
            }
            out.add(message);
        }
        return out;
    }

    private static String content(JsonNode c, String where) {
        if (c == null || c.isNull()) {
            throw ApiException.invalid("messages", where + ".content is required");
        }
        if (c.isTextual()) {
            return c.textValue();
        }
        if (!c.isArray()) {
            throw ApiException.invalid("messages", where + ".content must be a string or an array of text parts, not "
                    + JsonRequest.kind(c));
        }
        StringBuilder text = new StringBuilder();
        for (int j = 0; j < c.size(); j++) {
            JsonNode part = c.get(j);
            if (!part.isObject() || !"text".equals(part.path("type").asText(null)) || !part.path("text").isTextual()) {
                throw ApiException.invalid("messages", where + ".content[" + j + "] must be {\"type\": \"text\", "
                        + "\"text\": \"...\"}; this server reads text only");
            }
            text.append(part.get("text").textValue());
        }
        return text.toString();
    }

    private static int[] render(ServedModels.Decoder d, List<Message> messages) {
        int[] ids;
        try {
            ids = d.chat().encode(messages, ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
        } catch (ChatTemplateException e) {
            throw ApiException.invalid("messages", "The model's chat template refused the conversation: "
                    + e.getMessage());
        }
        if (ids.length == 0) {
            throw ApiException.invalid("messages", "The conversation renders to no tokens");
        }
        return ids;
    }

    /** One generation's progress: text decoded, stop strings applied, and why it ended. */
    private static final class Run {
        final DecodeStream decode;
        final Tokenizer tokenizer;
        final StopStrings stops;
        final List<Integer> tokens = new ArrayList<>();
        boolean timedOut;
        boolean gone;

        Run(Plan plan) {
            this.tokenizer = plan.decoder().tokenizer();
            this.decode = new DecodeStream(tokenizer, true, plan.context());
            this.stops = new StopStrings(plan.stops());
        }

        /** @return the text this token lets through */
        String next(int token) {
            tokens.add(token);
            return stops.next(tokenizer.token(token).isEmpty() ? "" : decode.next(token));
        }

        String finish() {
            return stops.next(decode.finish()) + stops.finish();
        }

        String finishReason(Generation g) {
            return stops.stopped() || g.stopReason() == StopReason.STOP_TOKEN ? "stop" : "length";
        }
    }

    /** Receives the text a run lets through; returns false once the client is gone. */
    @FunctionalInterface
    private interface Sink {
        boolean accept(String text);
    }

    private Generation generate(Plan plan, Run run, GenerationScheduler.Ticket ticket, long deadlineNanos,
                                Sink sink) {
        CausalLM model = plan.decoder().model();
        int capacity = plan.prompt().length + Math.max(1, plan.options().maxNewTokens());
        try (KvCache cache = model.newCache(1, capacity)) {
            return Generator.stream(model, cache, plan.prompt(), plan.options(), token -> {
                ticket.yieldTurn();
                String text = run.next(token);
                if (!text.isEmpty() && !sink.accept(text)) {
                    run.gone = true;
                    abandoned.incrementAndGet();
                    return false;
                }
                if (run.stops.stopped()) {
                    return false;
                }
                try {
                    ticket.takeTurn(deadlineNanos);
                } catch (ApiException e) {
                    run.timedOut = true;
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    run.gone = true;
                    return false;
                }
                return true;
            });
        } finally {
            ticket.yieldTurn();
        }
    }

    private void whole(Context ctx, Plan plan, Kind kind, GenerationScheduler.Ticket ticket, long deadlineNanos) {
        Run run = new Run(plan);
        StringBuilder text = new StringBuilder();
        Generation g = generate(plan, run, ticket, deadlineNanos, piece -> {
            text.append(piece);
            return true;
        });
        if (run.timedOut) {
            throw ApiException.timeout("The generation ran past the server's per-request timeout after "
                    + run.tokens.size() + " tokens");
        }
        text.append(run.finish());
        String id = id(kind);
        byte[] body = OpenAiServer.object(w -> {
            head(w, id, kind.object, plan);
            w.writeArrayFieldStart("choices");
            w.writeStartObject();
            w.writeNumberField("index", 0);
            if (kind == Kind.CHAT) {
                w.writeObjectFieldStart("message");
                w.writeStringField("role", "assistant");
                w.writeStringField("content", text.toString());
                w.writeNullField("refusal");
                w.writeEndObject();
            } else {
                w.writeStringField("text", text.toString());
            }
            w.writeNullField("logprobs");
            w.writeStringField("finish_reason", run.finishReason(g));
            if (plan.tokenIds()) {
                w.writeFieldName("prompt_token_ids");
                w.writeArray(plan.prompt(), 0, plan.prompt().length);
                w.writeFieldName("token_ids");
                int[] t = g.tokens();
                w.writeArray(t, 0, t.length);
            }
            w.writeEndObject();
            w.writeEndArray();
            usage(w, plan, g.tokens().length);
        });
        ctx.status(200).contentType("application/json").result(body);
    }

    private void stream(Context ctx, Plan plan, Kind kind, GenerationScheduler.Ticket ticket, long deadlineNanos) {
        String id = id(kind);
        ctx.status(200);
        ctx.res().setContentType("text/event-stream");
        ctx.res().setCharacterEncoding("UTF-8");
        ctx.res().setHeader("Cache-Control", "no-cache");
        OutputStream out;
        try {
            out = ctx.res().getOutputStream();
        } catch (IOException e) {
            return;
        }
        Run run = new Run(plan);
        Events events = new Events(out);
        if (kind == Kind.CHAT && !events.send(chunk(id, kind, plan, "", true, null))) {
            return;
        }
        Generation g;
        try {
            g = generate(plan, run, ticket, deadlineNanos, piece -> events.send(chunk(id, kind, plan, piece, false,
                    null)));
        } catch (RuntimeException e) {
            events.send(OpenAiServer.errorBody(OpenAiServer.asApiException(e)));
            return;
        }
        if (run.gone) {
            return;
        }
        if (run.timedOut) {
            events.send(OpenAiServer.errorBody(ApiException.timeout("The generation ran past the server's "
                    + "per-request timeout after " + run.tokens.size() + " tokens")));
            return;
        }
        String rest = run.finish();
        if (!rest.isEmpty() && !events.send(chunk(id, kind, plan, rest, false, null))) {
            return;
        }
        if (!events.send(chunk(id, kind, plan, "", false, run.finishReason(g)))) {
            return;
        }
        if (plan.usageChunk() && !events.send(OpenAiServer.object(w -> {
            head(w, id, kind.chunkObject, plan);
            w.writeArrayFieldStart("choices");
            w.writeEndArray();
            usage(w, plan, g.tokens().length);
        }))) {
            return;
        }
        events.done();
    }

    private byte[] chunk(String id, Kind kind, Plan plan, String text, boolean first, String finish) {
        return OpenAiServer.object(w -> {
            head(w, id, kind.chunkObject, plan);
            w.writeArrayFieldStart("choices");
            w.writeStartObject();
            w.writeNumberField("index", 0);
            if (kind == Kind.CHAT) {
                w.writeObjectFieldStart("delta");
                if (first) {
                    w.writeStringField("role", "assistant");
                }
                if (finish == null) {
                    w.writeStringField("content", text);
                }
                w.writeEndObject();
            } else {
                w.writeStringField("text", text);
            }
            w.writeNullField("logprobs");
            w.writeStringField("finish_reason", finish);
            w.writeEndObject();
            w.writeEndArray();
            if (plan.usageChunk()) {
                w.writeNullField("usage");
            }
        });
    }

    private void head(JsonGenerator w, String id, String object, Plan plan) throws IOException {
        w.writeStringField("id", id);
        w.writeStringField("object", object);
        w.writeNumberField("created", plan.created());
        w.writeStringField("model", plan.decoder().name());
        w.writeNullField("system_fingerprint");
    }

    private static void usage(JsonGenerator w, Plan plan, int completion) throws IOException {
        w.writeObjectFieldStart("usage");
        w.writeNumberField("prompt_tokens", plan.prompt().length);
        w.writeNumberField("completion_tokens", completion);
        w.writeNumberField("total_tokens", plan.prompt().length + completion);
        w.writeEndObject();
    }

    private static String id(Kind kind) {
        return kind.idPrefix + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    /** Server-sent events on a response body; a failed write means the client is gone. */
    private static final class Events {
        private final OutputStream out;
        private boolean broken;

        Events(OutputStream out) {
            this.out = out;
        }

        /** @return whether the event reached the connection */
        boolean send(byte[] json) {
            if (broken) {
                return false;
            }
            try {
                out.write("data: ".getBytes(StandardCharsets.US_ASCII));
                out.write(json);
                out.write("\n\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return true;
            } catch (IOException e) {
                broken = true;
                return false;
            }
        }

        void done() {
            send("[DONE]".getBytes(StandardCharsets.US_ASCII));
        }
    }
}
