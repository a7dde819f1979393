package org.attn4j.models.chat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.attn4j.models.grammar.JsonGrammar;
import org.attn4j.models.grammar.JsonSchemaException;

/**
 * How a family of chat templates has the model write function calls, and how such a reply is read back into
 * {@link ToolCall}s and the text around them. The families whose templates define a format:
 * <ul>
 *   <li>{@link #QWEN} (Qwen 2.5, Qwen 3 and other Hermes-style templates): each call is
 *       {@code <tool_call>{"name": …, "arguments": {…}}</tool_call>}; text outside the tags is the content;</li>
 *   <li>{@link #LLAMA3} (Llama 3.1, 3.2, 3.3): the whole reply, after an optional {@code <|python_tag|>}, is one JSON
 *       object {@code {"name": …, "parameters": {…}}} or several separated by {@code ;};</li>
 *   <li>{@link #MISTRAL} (Mistral v0.3 and later): {@code [TOOL_CALLS]} followed by a JSON array of
 *       {@code {"name": …, "arguments": {…}}}; as {@code [TOOL_CALLS]} is a special token that decoding may drop, a
 *       reply that is only such an array counts too.</li>
 * </ul>
 * A reply that does not hold a well-formed call of its family is all content: {@link Parsed#calls()} is empty.
 * Arguments given as a JSON string holding an object are read as that object.
 */
public enum ToolCallFormat {
    /** {@code <tool_call>{"name", "arguments"}</tool_call>}, any number, anywhere in the reply. */
    QWEN,
    /** The whole reply {@code [<|python_tag|>]{"name", "parameters"}[; {…}]}. */
    LLAMA3,
    /** {@code [TOOL_CALLS][{"name", "arguments"}, …]} at the end of the reply. */
    MISTRAL;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String QWEN_OPEN = "<tool_call>";
    private static final String QWEN_CLOSE = "</tool_call>";
    private static final String PYTHON_TAG = "<|python_tag|>";
    private static final String MISTRAL_TAG = "[TOOL_CALLS]";

    /**
     * A reply read back.
     *
     * @param content the text that is not a call, stripped of the white space around it ({@code ""} when none)
     * @param calls the calls, in the order written; empty when the reply holds none
     */
    public record Parsed(String content, List<ToolCall> calls) {
        /** Copies the calls. */
        public Parsed {
            Objects.requireNonNull(content, "ToolCallFormat.Parsed: argument content is null");
            calls = List.copyOf(calls);
        }
    }

    /**
     * @param template a checkpoint's chat template
     * @return the format its source shows tool calls in ({@code <tool_call>}: Qwen; {@code [TOOL_CALLS]}: Mistral;
     *     Llama 3's header tokens with a {@code "parameters"} key: Llama 3), or empty when it defines none
     */
    public static Optional<ToolCallFormat> of(ChatTemplate template) {
        Objects.requireNonNull(template, "ToolCallFormat.of: argument template is null");
        String s = template.source();
        if (s.contains(QWEN_OPEN)) {
            return Optional.of(QWEN);
        }
        if (s.contains(MISTRAL_TAG)) {
            return Optional.of(MISTRAL);
        }
        if (s.contains("<|start_header_id|>") && s.contains("\"parameters\"")) {
            return Optional.of(LLAMA3);
        }
        return Optional.empty();
    }

    /**
     * @param reply the model's reply text (reasoning already split off)
     * @return its content and calls
     */
    public Parsed parse(String reply) {
        Objects.requireNonNull(reply, "ToolCallFormat.parse: argument reply is null");
        Optional<Parsed> p = switch (this) {
            case QWEN -> qwen(reply);
            case LLAMA3 -> llama3(reply);
            case MISTRAL -> mistral(reply);
        };
        return p.orElseGet(() -> new Parsed(reply.strip(), List.of()));
    }

    private static Optional<Parsed> qwen(String reply) {
        StringBuilder content = new StringBuilder();
        List<ToolCall> calls = new ArrayList<>();
        int at = 0;
        while (true) {
            int open = reply.indexOf(QWEN_OPEN, at);
            if (open < 0) {
                content.append(reply, at, reply.length());
                break;
            }
            content.append(reply, at, open);
            int close = reply.indexOf(QWEN_CLOSE, open);
            int end = close < 0 ? reply.length() : close;
            Optional<ToolCall> call = call(reply.substring(open + QWEN_OPEN.length(), end), "arguments");
            if (call.isEmpty()) {
                return Optional.empty();
            }
            calls.add(call.get());
            at = close < 0 ? reply.length() : close + QWEN_CLOSE.length();
        }
        return calls.isEmpty() ? Optional.empty() : Optional.of(new Parsed(content.toString().strip(), calls));
    }

    /**
     * The grammar of a reply that is exactly one call, written as this family writes it ({@code <tool_call>\n}{@code
     * {"name": …, "arguments": …}}{@code \n</tool_call>}; {@code {"name": …, "parameters": …}};
     * {@code [{"name": …, "arguments": …}]}, without Mistral's {@code [TOOL_CALLS]}, a special token that has no text
     * to hold a model to), to one of the functions given, its arguments held to that function's parameters schema,
     * so that generation held to it always writes a call {@link #parse} reads.
     *
     * @param functions each function's name and parameters schema (null: it takes no arguments), in order
     * @return the grammar
     * @throws JsonSchemaException if a parameters schema cannot be compiled ({@link JsonGrammar#fromSchema}); its
     *     path starts {@code $.anyOf[i].properties.arguments}, {@code i} the function's index
     * @throws IllegalArgumentException if no function is given
     */
    public JsonGrammar callGrammar(Map<String, JsonNode> functions) {
        if (functions.isEmpty()) {
            throw new IllegalArgumentException("ToolCallFormat.callGrammar: argument functions is empty");
        }
        String key = this == LLAMA3 ? "parameters" : "arguments";
        ObjectNode schema = JSON.createObjectNode();
        var any = schema.putArray("anyOf");
        for (Map.Entry<String, JsonNode> f : functions.entrySet()) {
            ObjectNode call = any.addObject().put("type", "object").put("additionalProperties", false);
            ObjectNode properties = call.putObject("properties");
            properties.putObject("name").put("const", f.getKey());
            if (f.getValue() == null) {
                properties.putObject(key).put("type", "object").put("additionalProperties", false);
            } else {
                properties.set(key, f.getValue());
            }
            call.putArray("required").add("name").add(key);
        }
        JsonGrammar calls = JsonGrammar.fromSchema(schema, false);
        return switch (this) {
            case QWEN -> calls.between(QWEN_OPEN + "\n", "\n" + QWEN_CLOSE);
            case LLAMA3 -> calls;
            case MISTRAL -> calls.between("[", "]");
        };
    }

    private static Optional<Parsed> llama3(String reply) {
        String body = reply.strip();
        if (body.startsWith(PYTHON_TAG)) {
            body = body.substring(PYTHON_TAG.length()).strip();
        }
        if (!body.startsWith("{")) {
            return Optional.empty();
        }
        List<ToolCall> calls = new ArrayList<>();
        int at = 0;
        while (at < body.length()) {
            JsonNode node;
            try (JsonParser p = JSON.createParser(body.substring(at))) {
                node = p.readValueAsTree();
                at += (int) p.getCurrentLocation().getCharOffset();
            } catch (IOException e) {
                return Optional.empty();
            }
            Optional<ToolCall> call = call(node, "parameters");
            if (call.isEmpty()) {
                return Optional.empty();
            }
            calls.add(call.get());
            while (at < body.length() && (Character.isWhitespace(body.charAt(at)) || body.charAt(at) == ';')) {
                at++;
            }
        }
        return calls.isEmpty() ? Optional.empty() : Optional.of(new Parsed("", calls));
    }

    private static Optional<Parsed> mistral(String reply) {
        int tag = reply.indexOf(MISTRAL_TAG);
        String content = tag < 0 ? "" : reply.substring(0, tag);
        String body = (tag < 0 ? reply : reply.substring(tag + MISTRAL_TAG.length())).strip();
        if (!body.startsWith("[")) {
            return Optional.empty();
        }
        JsonNode array;
        try {
            array = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
        if (!array.isArray() || array.isEmpty()) {
            return Optional.empty();
        }
        List<ToolCall> calls = new ArrayList<>();
        for (JsonNode item : array) {
            Optional<ToolCall> call = call(item, "arguments");
            if (call.isEmpty()) {
                return Optional.empty();
            }
            calls.add(call.get());
        }
        return Optional.of(new Parsed(content.strip(), calls));
    }

    private static Optional<ToolCall> call(String json, String argumentsKey) {
        try {
            return call(JSON.readTree(json.strip()), argumentsKey);
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    private static Optional<ToolCall> call(JsonNode node, String argumentsKey) {
        if (node == null || !node.isObject() || !node.path("name").isTextual() || node.get("name").textValue().isEmpty()) {
            return Optional.empty();
        }
        JsonNode args = node.get(argumentsKey);
        if (args == null && argumentsKey.equals("parameters")) {
            args = node.get("arguments");
        }
        if (args == null || args.isNull()) {
            args = JSON.createObjectNode();
        } else if (args.isTextual()) {
            try {
                args = JSON.readTree(args.textValue());
            } catch (JsonProcessingException e) {
                return Optional.empty();
            }
        }
        if (!(args instanceof ObjectNode)) {
            return Optional.empty();
        }
        return Optional.of(new ToolCall(node.get("name").textValue(), args.toString()));
    }
}
