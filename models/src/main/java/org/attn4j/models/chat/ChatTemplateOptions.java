package org.attn4j.models.chat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The arguments of one rendering besides the messages, as transformers' {@code apply_chat_template} takes them:
 * {@code add_generation_prompt}, {@code continue_final_message}, {@code tools} and {@code documents} (JSON schemas and
 * dicts, {@code None} when not given), further template variables ({@code date_string}, {@code enable_thinking} …)
 * and the clock {@code strftime_now} reads. Start from {@link #defaults()} (transformers' defaults: no generation
 * prompt, no tools, the system clock) and change what you need; each {@code with…} returns a new value.
 */
public final class ChatTemplateOptions {
    private static final ChatTemplateOptions DEFAULTS = new ChatTemplateOptions(new Values());

    /** Every option, in one place: the defaults are its initial values, a copy is one call. */
    private static final class Values implements Cloneable {
        boolean addGenerationPrompt;
        boolean continueFinalMessage;
        List<Object> tools;
        List<Object> documents;
        Map<String, Object> variables = Map.of();
        Clock clock = Clock.systemDefaultZone();

        Values copy() {
            try {
                return (Values) clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private final Values v;

    private ChatTemplateOptions(Values v) {
        this.v = v;
    }

    private ChatTemplateOptions with(Consumer<Values> change) {
        Values next = v.copy();
        change.accept(next);
        return new ChatTemplateOptions(next);
    }

    /** @return no generation prompt, no tools or documents, no variables, the system clock */
    public static ChatTemplateOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param value whether the prompt ends with the start of an assistant turn, for generation
     * @return a copy with that setting
     */
    public ChatTemplateOptions withAddGenerationPrompt(boolean value) {
        return with(o -> o.addGenerationPrompt = value);
    }

    /**
     * @param value whether the last message stays open so that generation continues it (transformers'
     *     {@code continue_final_message}: the rendering is cut right after that message's content)
     * @return a copy with that setting
     */
    public ChatTemplateOptions withContinueFinalMessage(boolean value) {
        return with(o -> o.continueFinalMessage = value);
    }

    /**
     * @param value tool schemas (JSON-like maps, usually {@code {"type": "function", "function": {...}}}), or
     *     {@code null} for none
     * @return a copy with those tools
     */
    public ChatTemplateOptions withTools(List<?> value) {
        return with(o -> o.tools = frozen(value, "tools"));
    }

    /**
     * @param value documents for retrieval-augmented templates (JSON-like maps), or {@code null} for none
     * @return a copy with those documents
     */
    public ChatTemplateOptions withDocuments(List<?> value) {
        return with(o -> o.documents = frozen(value, "documents"));
    }

    /**
     * @param name a template variable ({@code date_string}, {@code enable_thinking}, {@code tools_in_user_message} …);
     *     not one of the names these options or the special tokens set
     * @param value a JSON-like value
     * @return a copy with the variable set
     */
    public ChatTemplateOptions withVariable(String name, Object value) {
        Objects.requireNonNull(name, "ChatTemplateOptions.withVariable: argument name is null");
        if (List.of("messages", "tools", "documents", "add_generation_prompt", "raise_exception", "strftime_now")
                .contains(name)) {
            throw new IllegalArgumentException("ChatTemplateOptions.withVariable: '" + name
                    + "' is set by the renderer; use the option for it");
        }
        Map<String, Object> vars = new LinkedHashMap<>(v.variables);
        vars.put(name, Message.freeze(value, name));
        return with(o -> o.variables = Collections.unmodifiableMap(vars));
    }

    /**
     * @param value the clock whose date {@code strftime_now} gives (a fixed clock makes renderings repeatable)
     * @return a copy with that clock
     */
    public ChatTemplateOptions withClock(Clock value) {
        Objects.requireNonNull(value, "ChatTemplateOptions.withClock: argument value is null");
        return with(o -> o.clock = value);
    }

    @SuppressWarnings("unchecked")
    private static List<Object> frozen(List<?> value, String where) {
        return value == null ? null : (List<Object>) Message.freeze(new ArrayList<>(value), where);
    }

    /** @return whether a generation prompt is added */
    public boolean addGenerationPrompt() {
        return v.addGenerationPrompt;
    }

    /** @return whether the final message is continued */
    public boolean continueFinalMessage() {
        return v.continueFinalMessage;
    }

    /** @return the tools, or {@code null} */
    public List<Object> tools() {
        return v.tools;
    }

    /** @return the documents, or {@code null} */
    public List<Object> documents() {
        return v.documents;
    }

    /** @return the extra variables */
    public Map<String, Object> variables() {
        return v.variables;
    }

    /** @return the clock of {@code strftime_now} */
    public Clock clock() {
        return v.clock;
    }
}
