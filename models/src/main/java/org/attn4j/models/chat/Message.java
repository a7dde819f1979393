package org.attn4j.models.chat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One message of a conversation, as a chat template sees it: a dict with {@code role} and {@code content} and any
 * other fields a template may read ({@code tool_calls}, {@code tool_call_id}, {@code name}, …), in the order they were
 * given. Values are JSON-like: strings, numbers, booleans, {@code null}, lists and string-keyed maps of these (copied
 * and frozen on the way in). Immutable; {@link #with} returns a new message.
 *
 * <pre>{@code
 * List<Message> chat = List.of(Message.system("You are terse."), Message.user("Hi!"));
 * Message call = Message.assistant(null).with("tool_calls", List.of(Map.of("type", "function",
 *         "function", Map.of("name", "get_weather", "arguments", Map.of("city", "Paris")))));
 * }</pre>
 */
public final class Message {
    private final Map<String, Object> fields;

    private Message(Map<String, Object> fields) {
        this.fields = Collections.unmodifiableMap(fields);
    }

    /**
     * @param role {@code system}, {@code user}, {@code assistant}, {@code tool} or any role the template knows
     * @param content the text, or {@code null} (an assistant message that only calls tools)
     * @return the message
     */
    public static Message of(String role, String content) {
        if (role == null || role.isEmpty()) {
            throw new IllegalArgumentException("Message.of: argument role is " + (role == null ? "null" : "empty"));
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("role", role);
        f.put("content", content);
        return new Message(f);
    }

    /**
     * @param fields a message as JSON gives it (an OpenAI-style chat request's message, say): {@code role} a
     *     non-empty string, any other JSON-like fields; {@code content} may be missing
     * @return the message, fields in the map's order
     * @throws IllegalArgumentException if there is no role or a value is not JSON-like
     */
    public static Message of(Map<String, ?> fields) {
        Objects.requireNonNull(fields, "Message.of: argument fields is null");
        if (!(fields.get("role") instanceof String role) || role.isEmpty()) {
            throw new IllegalArgumentException("Message.of: role is " + fields.get("role")
                    + "; a message needs a non-empty string role");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> f = new LinkedHashMap<>((Map<String, Object>) freeze(fields, "message"));
        return new Message(f);
    }

    /**
     * @param content the text
     * @return a {@code system} message
     */
    public static Message system(String content) {
        return of("system", content);
    }

    /**
     * @param content the text
     * @return a {@code user} message
     */
    public static Message user(String content) {
        return of("user", content);
    }

    /**
     * @param content the text, or {@code null}
     * @return an {@code assistant} message
     */
    public static Message assistant(String content) {
        return of("assistant", content);
    }

    /**
     * @param field a field name ({@code role} and {@code content} may be replaced too)
     * @param value a JSON-like value
     * @return a copy with the field set
     * @throws IllegalArgumentException if the value is not JSON-like
     */
    public Message with(String field, Object value) {
        Objects.requireNonNull(field, "Message.with: argument field is null");
        Map<String, Object> f = new LinkedHashMap<>(fields);
        f.put(field, freeze(value, field));
        if (!(f.get("role") instanceof String role) || role.isEmpty()) {
            throw new IllegalArgumentException("Message.with: role must stay a non-empty string");
        }
        return new Message(f);
    }

    /** @return the role */
    public String role() {
        return (String) fields.get("role");
    }

    /** @return the content if it is text, else {@code null} */
    public String content() {
        return fields.get("content") instanceof String s ? s : null;
    }

    /** @return every field, in order (read-only) */
    public Map<String, Object> fields() {
        return fields;
    }

    static Object freeze(Object value, String where) {
        if (value == null || value instanceof String || value instanceof Boolean || value instanceof Integer
                || value instanceof Long || value instanceof Double || value instanceof Float
                || value instanceof java.math.BigInteger || value instanceof java.math.BigDecimal) {
            return value;
        }
        if (value instanceof Number n) {
            return n.longValue();
        }
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!(e.getKey() instanceof String k)) {
                    throw new IllegalArgumentException("Message: " + where + " has the key " + e.getKey()
                            + ", not a string");
                }
                out.put(k, freeze(e.getValue(), where + "." + k));
            }
            return Collections.unmodifiableMap(out);
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (int i = 0; i < l.size(); i++) {
                out.add(freeze(l.get(i), where + "[" + i + "]"));
            }
            return Collections.unmodifiableList(out);
        }
        throw new IllegalArgumentException("Message: " + where + " is a " + value.getClass().getName()
                + "; values are strings, numbers, booleans, null, lists and maps");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Message m && m.fields.equals(fields);
    }

    @Override
    public int hashCode() {
        return fields.hashCode();
    }

    @Override
    public String toString() {
        return "Message" + fields;
    }
}
