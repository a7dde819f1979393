package org.attn4j.models.chat;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.attn4j.models.tokenize.TokenizerConfig;

/**
 * A checkpoint's chat template ({@code chat_template} of {@code tokenizer_config.json}), rendered as transformers'
 * {@code apply_chat_template} renders it: Jinja with {@code trim_blocks} and {@code lstrip_blocks}, the variables
 * {@code messages}, {@code tools} and {@code documents} ({@code None} unless given), {@code add_generation_prompt},
 * the special tokens ({@code bos_token}, {@code eos_token} …) and any extra variables, the globals
 * {@code raise_exception} and {@code strftime_now}, transformers' {@code tojson}, and {@code continue_final_message}.
 * The engine is Jinjava (HubSpot's Jinja for Java), set up to behave as Jinja2 where chat templates depend on it
 * (see {@link Jinja}); the real templates of Llama 3.x, Qwen2.5, Gemma 2, Gemma 3, Mistral, Phi-3 and
 * TinyLlama/Zephyr render exactly as in Python.
 *
 * <p>Known differences from Jinja2: a value that is {@code None} prints as nothing where Python prints "None", and a
 * key present with the value {@code None} counts as undefined ({@code is defined} is false; {@code is iterable} is
 * true, as Jinja2's undefined iterates as empty: Gemma 3's template passes over an assistant message that only calls
 * tools). Templates use neither on purpose. A template that raises, fails as Python would fail, or needs a feature
 * the engine lacks throws a {@link ChatTemplateException} that says so. Immutable and thread-safe.
 *
 * <pre>{@code
 * TokenizerConfig config = TokenizerConfig.read(Path.of("Qwen2.5-0.5B-Instruct"));
 * ChatTemplate template = ChatTemplate.of(config);
 * String prompt = template.render(List.of(Message.user("Hi!")),
 *         ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
 * }</pre>
 */
public final class ChatTemplate {
    private static final String CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG ";

    private final String source;
    private final String prepared;
    private final Map<String, Object> specialTokens;

    private ChatTemplate(String source, Map<String, Object> specialTokens) {
        this.source = source;
        this.prepared = Jinja2Lexer.rewrite(asJinja2Reads(source));
        this.specialTokens = specialTokens;
    }

    /**
     * @param source the template source
     * @param specialTokens the variables transformers adds from the tokenizer ({@code bos_token}, {@code eos_token},
     *     …, {@code additional_special_tokens}); roles without a token are left out
     * @return the template, parsed once to find syntax errors and unknown tags
     * @throws ChatTemplateException if the source does not parse
     */
    public static ChatTemplate of(String source, Map<String, ?> specialTokens) {
        Objects.requireNonNull(source, "ChatTemplate.of: argument source is null");
        Map<String, Object> tokens = new LinkedHashMap<>();
        Objects.requireNonNull(specialTokens, "ChatTemplate.of: argument specialTokens is null")
                .forEach((k, v) -> tokens.put(k, Message.freeze(v, k)));
        ChatTemplate t = new ChatTemplate(source, java.util.Collections.unmodifiableMap(tokens));
        t.parse();
        return t;
    }

    /**
     * @param config a checkpoint's tokenizer configuration
     * @return its default chat template with its special tokens
     * @throws ChatTemplateException if the configuration has no chat template, or it does not parse
     */
    public static ChatTemplate of(TokenizerConfig config) {
        String source = config.chatTemplate().orElseThrow(() -> new ChatTemplateException(
                "the tokenizer configuration has no chat template" + (config.chatTemplates().isEmpty() ? ""
                : " named default (it has " + config.chatTemplates().keySet() + ")")));
        return of(source, config.templateVariables());
    }

    /** Jinja2's lexer: newlines normalized to {@code \n}, one trailing newline dropped. */
    private static String asJinja2Reads(String source) {
        String s = source.replace("\r\n", "\n").replace('\r', '\n');
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    private void parse() {
        JinjavaInterpreter interpreter = Jinja.ENGINE.newInterpreter();
        JinjavaInterpreter.pushCurrent(interpreter);
        try {
            interpreter.parse(prepared);
        } finally {
            JinjavaInterpreter.popCurrent();
        }
        failOn(interpreter.getErrors());
    }

    /** @return the template source as given */
    public String source() {
        return source;
    }

    /** @return the special tokens the template sees */
    public Map<String, Object> specialTokens() {
        return specialTokens;
    }

    /**
     * @param messages the conversation
     * @param options the other arguments
     * @return the rendered prompt
     * @throws ChatTemplateException if the template raises, fails on these messages or needs an unsupported feature
     */
    public String render(List<Message> messages, ChatTemplateOptions options) {
        Objects.requireNonNull(messages, "ChatTemplate.render: argument messages is null");
        Objects.requireNonNull(options, "ChatTemplate.render: argument options is null");
        List<Object> chat = new ArrayList<>(messages.size());
        for (Message m : messages) {
            chat.add(Objects.requireNonNull(m, "ChatTemplate.render: argument messages holds null").fields());
        }
        String finalMessage = null;
        if (options.continueFinalMessage()) {
            if (options.addGenerationPrompt()) {
                throw new ChatTemplateException("continue_final_message and add_generation_prompt are not"
                        + " compatible: use one or the other");
            }
            if (messages.isEmpty() || messages.get(messages.size() - 1).content() == null) {
                throw new ChatTemplateException("continue_final_message is set but the final message has no text"
                        + " content to continue");
            }
            Message last = messages.get(messages.size() - 1);
            finalMessage = last.content();
            chat.set(chat.size() - 1, last.with("content", finalMessage + CONTINUE_TAG).fields());
        }
        Map<String, Object> context = new LinkedHashMap<>(specialTokens);
        context.putAll(options.variables());
        context.put("messages", chat);
        context.put("tools", options.tools());
        context.put("documents", options.documents());
        context.put("add_generation_prompt", options.addGenerationPrompt());
        context.put("strftime_now", "strftime_now");
        context.put("raise_exception", "raise_exception");
        RenderResult result = Jinja.render(prepared, context, options.clock());
        failOn(result.getErrors());
        String rendered = result.getOutput();
        if (finalMessage != null) {
            String tag = CONTINUE_TAG.strip();
            if (!rendered.contains(finalMessage.strip()) || !rendered.contains(tag)) {
                throw new ChatTemplateException("continue_final_message is set but the final message does not"
                        + " appear in the chat after applying the chat template");
            }
            int at = rendered.lastIndexOf(tag);
            rendered = rendered.startsWith(CONTINUE_TAG, at) ? rendered.substring(0, at)
                    : rendered.substring(0, at).stripTrailing();
        }
        return rendered;
    }

    private static void failOn(List<TemplateError> errors) {
        for (TemplateError e : errors) {
            if (e.getSeverity() != TemplateError.ErrorType.FATAL) {
                continue;
            }
            for (Throwable t = e.getException(); t != null; t = t.getCause()) {
                if (t instanceof ChatTemplateException.Raised r) {
                    throw new ChatTemplateException("the chat template raised: " + r.getMessage());
                }
                if (t instanceof Python.Error p) {
                    throw new ChatTemplateException("the chat template fails at line " + e.getLineno() + ": "
                            + p.getMessage());
                }
            }
            Throwable cause = e.getException();
            while (cause != null && cause.getCause() != null) {
                cause = cause.getCause();
            }
            String why = cause != null && cause.getMessage() != null && !cause.getMessage().equals(e.getMessage())
                    ? e.getMessage() + " (" + cause.getMessage() + ")" : e.getMessage();
            throw new ChatTemplateException("the chat template fails at line " + e.getLineno() + ": " + why
                    + (e.getFieldName() == null || e.getFieldName().isEmpty() ? "" : " in '" + e.getFieldName() + "'"));
        }
    }

    @Override
    public String toString() {
        return "ChatTemplate[" + source.length() + " characters, " + specialTokens + "]";
    }
}
