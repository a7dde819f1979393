package org.attn4j.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.chat.ToolCallFormat;
import org.attn4j.models.grammar.JsonGrammar;
import org.attn4j.models.grammar.JsonSchemaException;

/**
 * The parts of a chat request a chat template reads, checked and converted as transformers' {@code
 * apply_chat_template} takes them:
 * <ul>
 *   <li>{@code messages}: roles {@code system} ({@code developer} becomes {@code system}), {@code user},
 *       {@code assistant} and {@code tool}; {@code content} a string or text parts (an assistant's may be null or
 *       left out when it calls tools, as OpenAI's clients send it, and is then rendered as {@code ""}, which
 *       templates that read the content as a string, such as Qwen 3's, need); an assistant's
 *       {@code reasoning_content} and {@code tool_calls} ({@code [{"id", "type":
 *       "function", "function": {"name", "arguments"}}]}, the arguments' JSON text read into an object, as templates
 *       write them with {@code tojson}); a tool message's {@code tool_call_id}; {@code name};</li>
 *   <li>{@code tools}: a non-empty array of {@code {"type": "function", "function": {"name", "description",
 *       "parameters", "strict"}}}, passed to the template as given; a name of 1 to 64 letters, digits, {@code _} or
 *       {@code -}; parameters a JSON schema object;</li>
 *   <li>{@code tool_choice}: {@code "auto"} (the default with tools) renders the tools and reads calls back;
 *       {@code "none"} renders none; {@code "required"} and a named function ({@code {"type": "function",
 *       "function": {"name"}}}) render the tools and hold the reply to exactly one call, in the template family's
 *       format, to one of the tools (or the named one), its arguments held to the tool's parameters schema
 *       ({@link #forcedCall}); {@code "parallel_tool_calls": false} is refused with {@code "auto"}, which cannot hold
 *       the model to one call;</li>
 *   <li>{@code chat_template_kwargs}: an object whose keys become template variables ({@code enable_thinking} …).</li>
 * </ul>
 * Anything else, or a value of the wrong kind, is a 400 naming the field.
 */
final class ChatTools {
    private static final Pattern CALL_PATH = Pattern.compile("^\\$\\.anyOf\\[(\\d+)]\\.properties\\."
            + "(arguments|parameters)");
    private static final Pattern FUNCTION_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Set<String> MESSAGE_FIELDS = Set.of("role", "content", "name", "tool_calls", "tool_call_id",
            "reasoning_content");

    private ChatTools() {
    }

    /**
     * @param tools the request's {@code tools}, or null
     * @return the tools as the template sees them, or null when not given
     */
    static List<Object> tools(JsonNode tools) {
        if (tools == null || tools.isNull()) {
            return null;
        }
        if (!tools.isArray() || tools.isEmpty()) {
            throw ApiException.invalid("tools", "'tools' must be a non-empty array of functions, not "
                    + (tools.isArray() ? "an empty one" : JsonRequest.kind(tools)));
        }
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < tools.size(); i++) {
            String where = "tools[" + i + "]";
            JsonNode tool = tools.get(i);
            if (!tool.isObject()) {
                throw ApiException.invalid(where, where + " must be an object, not " + JsonRequest.kind(tool));
            }
            only(tool, where, Set.of("type", "function"));
            if (!"function".equals(tool.path("type").textValue())) {
                throw ApiException.invalid(where + ".type", where + ".type must be \"function\", not "
                        + tool.get("type"));
            }
            JsonNode f = tool.get("function");
            if (f == null || !f.isObject()) {
                throw ApiException.invalid(where + ".function", where + ".function must be an object, not "
                        + JsonRequest.kind(f));
            }
            only(f, where + ".function", Set.of("name", "description", "parameters", "strict"));
            JsonNode name = f.get("name");
            if (name == null || !name.isTextual() || !FUNCTION_NAME.matcher(name.textValue()).matches()) {
                throw ApiException.invalid(where + ".function.name", where + ".function.name must be 1 to 64 "
                        + "letters, digits, '_' or '-', not " + (name == null ? "missing" : name.toString()));
            }
            JsonNode parameters = f.get("parameters");
            if (parameters != null && !parameters.isObject()) {
                throw ApiException.invalid(where + ".function.parameters", where + ".function.parameters must be a "
                        + "JSON schema object, not " + JsonRequest.kind(parameters));
            }
            JsonNode description = f.get("description");
            if (description != null && !description.isTextual()) {
                throw ApiException.invalid(where + ".function.description", where + ".function.description must be"
                        + " a string, not " + JsonRequest.kind(description));
            }
            JsonNode strict = f.get("strict");
            if (strict != null && !strict.isNull() && !strict.isBoolean()) {
                throw ApiException.invalid(where + ".function.strict", where + ".function.strict must be true or "
                        + "false");
            }
            out.add(plain(tool));
        }
        return out;
    }

    /**
     * @param choice the request's {@code tool_choice}, or null
     * @param tools its tools ({@link #tools}), or null
     * @param parallel its {@code parallel_tool_calls}, or null
     * @return whether the tools are rendered and calls read back
     */
    static boolean offered(JsonNode choice, List<Object> tools, JsonNode parallel) {
        if (parallel != null && !parallel.isNull() && !parallel.isBoolean()) {
            throw ApiException.invalid("parallel_tool_calls", "'parallel_tool_calls' must be true or false");
        }
        String mode;
        if (choice == null || choice.isNull()) {
            mode = tools == null ? "none" : "auto";
        } else if (choice.isTextual()) {
            mode = choice.textValue();
            if (!Set.of("none", "auto", "required").contains(mode)) {
                throw ApiException.invalid("tool_choice", "'tool_choice' is '" + mode + "'; it must be \"none\", "
                        + "\"auto\", \"required\" or {\"type\": \"function\", \"function\": {\"name\": ...}}");
            }
        } else if (choice.isObject() && "function".equals(choice.path("type").textValue())
                && choice.path("function").path("name").isTextual()) {
            mode = "function";
        } else {
            throw ApiException.invalid("tool_choice", "'tool_choice' must be \"none\", \"auto\", \"required\" or "
                    + "{\"type\": \"function\", \"function\": {\"name\": ...}}, not " + JsonRequest.kind(choice));
        }
        if (tools == null) {
            if (!mode.equals("none") && choice != null && !choice.isNull()) {
                throw ApiException.invalid("tool_choice", "'tool_choice' is " + (mode.equals("function")
                        ? "a function" : "\"" + mode + "\"") + " but the request has no 'tools'");
            }
            return false;
        }
        if (mode.equals("none")) {
            return false;
        }
        if (mode.equals("auto") && parallel != null && parallel.isBoolean() && !parallel.booleanValue()) {
            throw ApiException.invalid("parallel_tool_calls", "'parallel_tool_calls' false is not supported by this"
                    + " server: it cannot hold the model to one call");
        }
        return true;
    }

    /**
     * The grammar a reply is held to when {@code tool_choice} demands a call: {@code "required"}, one call to any of
     * the tools; a named function, one call to it.
     *
     * @param choice the request's {@code tool_choice} (checked by {@link #offered})
     * @param tools the request's {@code tools} (checked by {@link #tools})
     * @param format the template family's call format
     * @return the grammar of one call, or null when the model may answer freely
     * @throws ApiException 400 naming {@code tool_choice} for a function the tools do not list, or
     *     {@code tools[i].function.parameters} for a schema the grammar cannot hold arguments to
     */
    static JsonGrammar forcedCall(JsonNode choice, JsonNode tools, ToolCallFormat format) {
        String only = null;
        if (choice != null && choice.isObject()) {
            only = choice.get("function").get("name").textValue();
        } else if (choice == null || !choice.isTextual() || !choice.textValue().equals("required")) {
            return null;
        }
        Map<String, JsonNode> functions = new LinkedHashMap<>();
        List<Integer> indices = new ArrayList<>();
        for (int i = 0; i < tools.size(); i++) {
            JsonNode f = tools.get(i).get("function");
            String name = f.get("name").textValue();
            if (only == null || only.equals(name)) {
                JsonNode parameters = f.get("parameters");
                functions.put(name, parameters == null || parameters.isNull() ? null : parameters);
                indices.add(i);
            }
        }
        if (functions.isEmpty()) {
            throw ApiException.invalid("tool_choice", "'tool_choice' names the function '" + only + "', which "
                    + "'tools' does not list");
        }
        try {
            return format.callGrammar(functions);
        } catch (JsonSchemaException e) {
            Matcher m = CALL_PATH.matcher(e.path());
            if (!m.find()) {
                throw ApiException.invalid("tools", "The reply cannot be held to a call of these tools: "
                        + e.getMessage());
            }
            throw ApiException.invalid("tools[" + indices.get(Integer.parseInt(m.group(1))) + "].function.parameters",
                    "The reply cannot be held to a call of this tool: " + e.getMessage().replace("JSON schema at "
                    + m.group(), "JSON schema at $"));
        }
    }

    /**
     * @param options the rendering so far
     * @param kwargs the request's {@code chat_template_kwargs}, or null
     * @return the options with each key as a template variable
     */
    static ChatTemplateOptions variables(ChatTemplateOptions options, JsonNode kwargs) {
        if (kwargs == null || kwargs.isNull()) {
            return options;
        }
        if (!kwargs.isObject()) {
            throw ApiException.invalid("chat_template_kwargs", "'chat_template_kwargs' must be an object, not "
                    + JsonRequest.kind(kwargs));
        }
        ChatTemplateOptions out = options;
        for (var it = kwargs.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            try {
                out = out.withVariable(e.getKey(), plain(e.getValue()));
            } catch (IllegalArgumentException x) {
                throw ApiException.invalid("chat_template_kwargs", "chat_template_kwargs." + e.getKey()
                        + " cannot be set: it is an argument of the request or of the renderer, not a template "
                        + "variable");
            }
        }
        return out;
    }

    /**
     * @param messages the request's {@code messages}
     * @return the conversation as the template sees it
     */
    static List<Message> messages(JsonNode messages) {
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
                if (!MESSAGE_FIELDS.contains(f)) {
                    throw ApiException.invalid("messages", where + "." + f + " is not supported by this server");
                }
            }
            JsonNode role = m.get("role");
            if (role == null || !role.isTextual()) {
                throw ApiException.invalid("messages", where + ".role must be a string, not " + JsonRequest.kind(role));
            }
            String r = role.textValue();
            if (!Set.of("system", "developer", "user", "assistant", "tool").contains(r)) {
                throw ApiException.invalid("messages", where + ".role is '" + r + "'; it must be system, developer,"
                        + " user, assistant or tool");
            }
            JsonNode calls = m.get("tool_calls");
            boolean calling = calls != null && !calls.isNull();
            if (calling && !r.equals("assistant")) {
                throw ApiException.invalid("messages", where + ".tool_calls is only allowed on assistant messages");
            }
            JsonNode c = m.get("content");
            String content = calling && r.equals("assistant") && (c == null || c.isNull()) ? "" : content(c, where);
            Message message = Message.of(r.equals("developer") ? "system" : r, content);
            message = string(m, "name", where, message);
            JsonNode reasoning = m.get("reasoning_content");
            if (reasoning != null && !reasoning.isNull() && !r.equals("assistant")) {
                throw ApiException.invalid("messages", where + ".reasoning_content is only allowed on assistant "
                        + "messages");
            }
            message = string(m, "reasoning_content", where, message);
            if (calling) {
                message = message.with("tool_calls", toolCalls(calls, where + ".tool_calls"));
            }
            JsonNode callId = m.get("tool_call_id");
            if (r.equals("tool")) {
                if (callId == null || !callId.isTextual()) {
                    throw ApiException.invalid("messages", where + ".tool_call_id is required on tool messages: the "
                            + "id of the call this answers");
                }
            } else if (callId != null && !callId.isNull()) {
                throw ApiException.invalid("messages", where + ".tool_call_id is only allowed on tool messages");
            }
            message = string(m, "tool_call_id", where, message);
            out.add(message);
        }
        return out;
    }

    private static Message string(JsonNode m, String field, String where, Message message) {
        JsonNode v = m.get(field);
        if (v == null || v.isNull()) {
            return message;
        }
        if (!v.isTextual()) {
            throw ApiException.invalid("messages", where + "." + field + " must be a string, not "
                    + JsonRequest.kind(v));
        }
        return message.with(field, v.textValue());
    }

    private static List<Object> toolCalls(JsonNode calls, String where) {
        if (!calls.isArray()) {
            throw ApiException.invalid("messages", where + " must be an array, not " + JsonRequest.kind(calls));
        }
        List<Object> out = new ArrayList<>();
        for (int j = 0; j < calls.size(); j++) {
            String at = where + "[" + j + "]";
            JsonNode call = calls.get(j);
            if (!call.isObject()) {
                throw ApiException.invalid("messages", at + " must be an object, not " + JsonRequest.kind(call));
            }
            only(call, at, Set.of("id", "type", "function"));
            if (call.has("type") && !"function".equals(call.get("type").textValue())) {
                throw ApiException.invalid("messages", at + ".type must be \"function\", not " + call.get("type"));
            }
            if (call.has("id") && !call.get("id").isTextual()) {
                throw ApiException.invalid("messages", at + ".id must be a string");
            }
            JsonNode f = call.get("function");
            if (f == null || !f.isObject() || !f.path("name").isTextual()) {
                throw ApiException.invalid("messages", at + ".function must be {\"name\": ..., \"arguments\": ...}");
            }
            only(f, at + ".function", Set.of("name", "arguments"));
            JsonNode args = f.get("arguments");
            if (args != null && args.isTextual()) {
                try {
                    args = JsonRequest.MAPPER.readTree(args.textValue());
                } catch (JsonProcessingException e) {
                    throw ApiException.invalid("messages", at + ".function.arguments is not JSON: "
                            + e.getOriginalMessage());
                }
            }
            if (args == null || !args.isObject()) {
                throw ApiException.invalid("messages", at + ".function.arguments must be a JSON object (or its text)");
            }
            ObjectNode converted = call.deepCopy();
            ((ObjectNode) converted.get("function")).set("arguments", args);
            out.add(plain(converted));
        }
        return out;
    }

    private static void only(JsonNode object, String where, Set<String> allowed) {
        for (var it = object.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!allowed.contains(f)) {
                throw ApiException.invalid(where.startsWith("messages") ? "messages" : where, where + "." + f
                        + " is not supported by this server");
            }
        }
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

    /** @return a JSON value as maps, lists, strings, numbers, booleans and null */
    private static Object plain(JsonNode node) {
        return JsonRequest.MAPPER.convertValue(node, Object.class);
    }
}
