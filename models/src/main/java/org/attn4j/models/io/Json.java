package org.attn4j.models.io;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict, dependency-free JSON (RFC 8259) reader and string quoter, enough for safetensors headers and golden
 * manifests. {@link #parse(String)} maps JSON to Java as: object → unmodifiable {@code Map<String, Object>} in
 * document order, array → unmodifiable {@code List<Object>}, string → {@link String}, number → {@link Long} when
 * it is written as an integer that fits, else {@link Double}, {@code true}/{@code false} → {@link Boolean},
 * {@code null} → {@code null}. Duplicate keys in one object, trailing data, nesting deeper than
 * {@value #MAX_DEPTH} and every other syntax error throw {@link IllegalArgumentException} naming the offset.
 */
public final class Json {
    /** The deepest nesting of arrays and objects accepted. */
    public static final int MAX_DEPTH = 64;

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /**
     * @param text one JSON value, optionally surrounded by whitespace
     * @return the value, mapped as described in the class comment
     * @throws IllegalArgumentException if {@code text} is not exactly one valid JSON value
     */
    public static Object parse(String text) {
        Json p = new Json(text);
        p.skipWhitespace();
        Object value = p.value(0);
        p.skipWhitespace();
        if (p.pos != text.length()) {
            throw p.error("unexpected data after the JSON value");
        }
        return value;
    }

    /**
     * @param s any string
     * @return {@code s} as a JSON string literal, quotes included, with control characters, quote and backslash
     *     escaped
     */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    private Object value(int depth) {
        if (pos >= text.length()) {
            throw error("unexpected end of input, a value was expected");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object(depth + 1);
            case '[' -> array(depth + 1);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    yield number();
                }
                throw error("unexpected character '" + c + "'");
            }
        };
    }

    private Map<String, Object> object(int depth) {
        checkDepth(depth);
        pos++;
        Map<String, Object> map = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return Collections.unmodifiableMap(map);
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw error("an object key (a string) was expected");
            }
            int keyAt = pos;
            String key = string();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            Object v = value(depth);
            if (map.containsKey(key)) {
                pos = keyAt;
                throw error("duplicate key " + quote(key));
            }
            map.put(key, v);
            skipWhitespace();
            char c = peek();
            pos++;
            if (c == '}') {
                return Collections.unmodifiableMap(map);
            }
            if (c != ',') {
                pos--;
                throw error("',' or '}' was expected in an object");
            }
        }
    }

    private List<Object> array(int depth) {
        checkDepth(depth);
        pos++;
        List<Object> list = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return Collections.unmodifiableList(list);
        }
        while (true) {
            skipWhitespace();
            list.add(value(depth));
            skipWhitespace();
            char c = peek();
            pos++;
            if (c == ']') {
                return Collections.unmodifiableList(list);
            }
            if (c != ',') {
                pos--;
                throw error("',' or ']' was expected in an array");
            }
        }
    }

    private String string() {
        pos++;
        StringBuilder b = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return b.toString();
            }
            if (c < 0x20) {
                pos--;
                throw error("unescaped control character in a string");
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw error("unterminated escape");
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("truncated \\u escape");
                    }
                    try {
                        b.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("invalid \\u escape");
                    }
                    pos += 4;
                }
                default -> {
                    pos--;
                    throw error("invalid escape '\\" + e + "'");
                }
            }
        }
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (isDigit(peek())) {
            digits();
        } else {
            throw error("a digit was expected");
        }
        boolean integral = true;
        if (peek() == '.') {
            integral = false;
            pos++;
            if (!isDigit(peek())) {
                throw error("a digit was expected after '.'");
            }
            digits();
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!isDigit(peek())) {
                throw error("a digit was expected in the exponent");
            }
            digits();
        }
        String s = text.substring(start, pos);
        if (integral) {
            try {
                return Long.parseLong(s);
            } catch (NumberFormatException tooLarge) {
                return Double.parseDouble(s);
            }
        }
        return Double.parseDouble(s);
    }

    private void digits() {
        while (isDigit(peek())) {
            pos++;
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw error("invalid literal, '" + word + "' was expected");
        }
        pos += word.length();
        return value;
    }

    private void checkDepth(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH + " levels");
        }
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("'" + c + "' was expected");
        }
        pos++;
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("JSON: " + what + " at offset " + pos);
    }
}
