package org.attn4j.server;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.attn4j.models.chat.ReasoningSplit;
import org.attn4j.models.chat.ToolCallFormat;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.grammar.JsonGrammar;
import org.attn4j.models.grammar.TokenGrammar;
import org.attn4j.models.grammar.TokenVocabulary;

/**
 * A completion or chat completion request, checked: the prompt's token ids, the options to generate with and how to
 * answer. {@link #parse} reads the parameters OpenAI's API defines for each endpoint and refuses by name those this
 * server does not support.
 *
 * <p>What a request leaves out follows the checkpoint ({@code generation_config.json}: greedy unless it samples, its
 * temperature, top-k, top-p, min-p, repetition penalty; its stop ids always apply); {@code temperature},
 * {@code top_p}, {@code seed}, {@code max_tokens} ({@code max_completion_tokens}), {@code stop} (up to 4 strings) and
 * the extensions {@code top_k}, {@code min_p}, {@code repetition_penalty} override it. Sampling without a
 * {@code seed} draws one at random. {@code max_tokens} defaults to 16 for completions (as OpenAI's) and to the room
 * left in the context, at most {@link ServerOptions#maxTokens()}, for chat; a prompt that leaves no room, or a
 * {@code max_tokens} past the context, is refused ({@code context_length_exceeded}). {@code "return_token_ids": true}
 * (an extension, not streamed) adds the prompt's and the reply's token ids to the choice. Log-probabilities
 * ({@link TokenLogprob}) are asked for with {@code "logprobs": true} and {@code top_logprobs} (0 to 20) on chat, and
 * with {@code logprobs} (0 to 20, the alternatives per token) on completions. A chat request's
 * {@code response_format} ({@link ResponseFormat}) holds the reply to JSON by masking, at each step, the tokens that
 * would leave the grammar ({@link GenerationOptions#withGrammar}), and {@code tool_choice} {@code "required"} or a
 * named function holds it to one call ({@link ChatTools#forcedCall}). {@code n} must be 1; {@code echo},
 * {@code suffix} and penalties other than 0 are refused by name. A chat
 * request's messages, {@code tools} and {@code chat_template_kwargs} are rendered by the checkpoint's chat template
 * with a generation prompt, as {@link ChatTools} checks and converts them; the reply is read for reasoning and calls
 * as {@link ChatReply.Format} says. A completion's prompt is a string or token ids.
 *
 * @param decoder the model named by {@code model}
 * @param prompt the prompt's token ids, {@code [promptLength]}
 * @param context the ids decoding starts after (a completion's last prompt token, so the first piece of text is
 *     spaced as it continues the prompt); empty for chat
 * @param options the generation options, {@code maxNewTokens} set
 * @param stops the stop strings, at most 4
 * @param stream whether the answer is streamed as server-sent events
 * @param usageChunk whether a stream ends with a usage chunk ({@code stream_options.include_usage})
 * @param tokenIds whether the whole answer carries the prompt's and the reply's token ids
 * @param logprobs how many alternatives each token's log-probability comes with, 0 to 20; -1: no log-probabilities
 * @param reply how the reply is read: reasoning split off, function calls read ({@link ChatReply.Format#PLAIN} for
 *     completions)
 * @param created the answer's {@code created}, seconds since the epoch
 */
record GenerationRequest(ServedModels.Decoder decoder, int[] prompt, int[] context, GenerationOptions options,
                         List<String> stops, boolean stream, boolean usageChunk, boolean tokenIds, int logprobs,
                         ChatReply.Format reply, long created) {
    /** The most alternatives a token's log-probability may come with, as OpenAI's API allows. */
    static final int MAX_TOP_LOGPROBS = 20;

    private static final Set<String> COMMON = Set.of("model", "max_tokens", "temperature", "top_p", "n", "stream",
            "stream_options", "stop", "seed", "user", "presence_penalty", "frequency_penalty", "logit_bias",
            "top_k", "min_p", "repetition_penalty", "return_token_ids");
    private static final Set<String> COMPLETION_ONLY = Set.of("prompt", "echo", "best_of", "logprobs", "suffix");
    private static final Set<String> CHAT_ONLY = Set.of("messages", "max_completion_tokens", "logprobs",
            "top_logprobs", "response_format", "store", "metadata", "parallel_tool_calls", "tools", "tool_choice",
            "chat_template_kwargs");
    private static final Set<String> CHAT_UNSUPPORTED = Set.of("functions",
            "function_call", "audio", "modalities", "prediction", "web_search_options", "reasoning_effort");

    /**
     * Checks a request against its endpoint and the model it names.
     *
     * @param r the body
     * @param kind which endpoint
     * @param decoders the decoders served, by name
     * @param options the server's limits ({@link ServerOptions#maxTokens()})
     * @return what to run and how to answer
     * @throws ApiException 400 naming the parameter at fault, 404 for a model not served on this endpoint
     */
    static GenerationRequest parse(JsonRequest r, GenerationKind kind, Map<String, ServedModels.Decoder> decoders,
                                   ServerOptions options) {
        Set<String> known = new HashSet<>(COMMON);
        known.addAll(kind == GenerationKind.CHAT ? CHAT_ONLY : COMPLETION_ONLY);
        r.refuseUnknown(known, kind == GenerationKind.CHAT ? CHAT_UNSUPPORTED : Set.of());
        String model = r.requiredString("model");
        ServedModels.Decoder d = decoders.get(model);
        if (d == null || (kind == GenerationKind.CHAT && d.chat() == null)) {
            List<String> served = decoders.values().stream().filter(x -> kind != GenerationKind.CHAT || x.chat() != null)
                    .map(ServedModels.Decoder::name).collect(Collectors.toList());
            throw ApiException.modelNotFound(model, kind == GenerationKind.CHAT ? "chat completions" : "completions",
                    served.isEmpty() ? "this server serves no such model"
                    : (kind == GenerationKind.CHAT ? "chat models here: " : "decoders here: ") + String.join(", ", served));
        }
        refuseUnsupported(r, kind);
        int[] prompt;
        int[] context;
        ChatReply.Format reply = ChatReply.Format.PLAIN;
        JsonGrammar grammar = null;
        if (kind == GenerationKind.CHAT) {
            grammar = ResponseFormat.grammar(r.get("response_format"));
            ChatTemplateOptions templateOptions = ChatTemplateOptions.defaults().withAddGenerationPrompt(true);
            ToolCallFormat format = null;
            List<Object> tools = ChatTools.tools(r.get("tools"));
            if (ChatTools.offered(r.get("tool_choice"), tools, r.get("parallel_tool_calls"))) {
                format = ToolCallFormat.of(d.chat().template()).orElseThrow(() -> ApiException.invalid("tools",
                        "Model '" + model + "' has a chat template that defines no tool-call format this server "
                        + "reads (Qwen's <tool_call>, Llama 3's JSON, Mistral's [TOOL_CALLS])"));
                templateOptions = templateOptions.withTools(tools);
                if (grammar != null) {
                    throw ApiException.invalid("response_format", "A JSON 'response_format' with 'tools' is not "
                            + "supported: the reply would be held to JSON and could not call a tool; send "
                            + "\"tool_choice\": \"none\" or no tools");
                }
                grammar = ChatTools.forcedCall(r.get("tool_choice"), r.get("tools"), format);
            }
            templateOptions = ChatTools.variables(templateOptions, r.get("chat_template_kwargs"));
            String text = render(d, ChatTools.messages(r.get("messages")), templateOptions);
            prompt = d.chat().tokenizer().encode(text, false).ids();
            if (prompt.length == 0) {
                throw ApiException.invalid("messages", "The conversation renders to no tokens");
            }
            context = new int[0];
            boolean thinks = grammar == null && ReasoningSplit.marksReasoning(d.chat().template());
            reply = new ChatReply.Format(format, thinks, thinks && ReasoningSplit.leavesOpen(text));
        } else {
            prompt = prompt(d, r.get("prompt"));
            int last = prompt[prompt.length - 1];
            context = d.tokenizer().token(last).isPresent() ? new int[] {last} : new int[0];
        }
        int positions = d.model().config().maxPositions();
        if (prompt.length >= positions) {
            throw ApiException.invalid(kind == GenerationKind.CHAT ? "messages" : "prompt", "context_length_exceeded",
                    "The prompt has " + prompt.length + " tokens; model '" + model + "' reads at most " + positions
                    + " tokens, the reply included");
        }
        int room = positions - prompt.length;
        long asked = r.integer("max_tokens", -1, 1, Integer.MAX_VALUE);
        String askedName = "max_tokens";
        if (kind == GenerationKind.CHAT && r.get("max_completion_tokens") != null) {
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
            maxNew = Math.min(room, kind == GenerationKind.CHAT ? options.maxTokens() : 16);
        }
        GenerationOptions o = sampling(r, d.defaults()).withMaxNewTokens(maxNew);
        if (grammar != null) {
            o = o.withGrammar(new TokenGrammar(grammar, TokenVocabulary.of(d.chat().tokenizer())));
        }
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
        return new GenerationRequest(d, prompt, context, o, stops(r.get("stop")), stream, usage, ids,
                logprobs(r, kind), reply, System.currentTimeMillis() / 1000);
    }

    /** @return the alternatives asked for per token, or -1 when no log-probabilities are */
    private static int logprobs(JsonRequest r, GenerationKind kind) {
        if (kind == GenerationKind.COMPLETION) {
            return (int) r.integer("logprobs", -1, 0, MAX_TOP_LOGPROBS);
        }
        boolean wanted = r.bool("logprobs", false);
        if (r.get("top_logprobs") == null) {
            return wanted ? 0 : -1;
        }
        int top = (int) r.integer("top_logprobs", 0, 0, MAX_TOP_LOGPROBS);
        if (!wanted) {
            throw ApiException.invalid("top_logprobs", "'top_logprobs' is given only with \"logprobs\": true");
        }
        return top;
    }

    private static void refuseUnsupported(JsonRequest r, GenerationKind kind) {
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
        if (kind == GenerationKind.COMPLETION) {
            if (r.bool("echo", false)) {
                throw ApiException.invalid("echo", "'echo' is not supported by this server");
            }
            if (r.integer("best_of", 1, 1, 128) != 1) {
                throw ApiException.invalid("best_of", "'best_of' must be 1 on this server");
            }
            if (r.get("suffix") != null) {
                throw ApiException.invalid("suffix", "'suffix' is not supported by this server");
            }
        } else {
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

    private static String render(ServedModels.Decoder d, List<Message> messages, ChatTemplateOptions options) {
        try {
            return d.chat().template().render(messages, options);
        } catch (ChatTemplateException e) {
            throw ApiException.invalid("messages", "The model's chat template refused the conversation: "
                    + e.getMessage());
        }
    }
}
