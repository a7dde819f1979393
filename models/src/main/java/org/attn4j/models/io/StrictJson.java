package org.attn4j.models.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Strict JSON (RFC 8259) for the safetensors header, read with jackson-core's streaming parser and quoted with its
 * string encoder. Values map to Java
 * as: object → unmodifiable {@code Map<String, Object>} in document order, array → unmodifiable
 * {@code List<Object>}, string → {@link String}, number → {@link Long} when it is written as an integer that fits,
 * else {@link Double}, {@code true}/{@code false} → {@link Boolean}, {@code null} → {@code null}. Rejected, with
 * an {@link IllegalArgumentException} naming the offset: duplicate names in one object, nesting deeper than
 * {@value #MAX_DEPTH}, trailing data, a string holding an unpaired UTF-16 surrogate, and every syntax error
 * Jackson's defaults reject (comments, single quotes, leading zeros, {@code NaN}, trailing commas, unescaped
 * control characters, malformed {@code \\u} escapes).
 */
final class StrictJson {
    /** The deepest nesting of arrays and objects accepted. */
    static final int MAX_DEPTH = 64;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxStringLength((int) SafeTensors.MAX_HEADER_BYTES).build())
            .build();

    private StrictJson() {
    }

    /**
     * @param text one JSON value, optionally surrounded by whitespace
     * @return the value, mapped as described in the class comment
     * @throws IllegalArgumentException if {@code text} is not exactly one valid JSON value
     */
    static Object parse(String text) {
        JsonParser p = null;
        try {
            p = FACTORY.createParser(text);
            if (p.nextToken() == null) {
                throw new IllegalArgumentException("JSON: no value at offset 0");
            }
            Object value = value(p, 0);
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("JSON: unexpected data after the JSON value at offset "
                        + p.currentTokenLocation().getCharOffset());
            }
            return value;
        } catch (JsonProcessingException e) {
            long offset = e.getLocation() != null ? e.getLocation().getCharOffset()
                    : p != null ? p.currentLocation().getCharOffset() : 0;
            throw new IllegalArgumentException("JSON: " + e.getOriginalMessage() + " at offset " + offset, e);
        } catch (IOException e) {
            throw new IllegalArgumentException("JSON: " + e.getMessage(), e);
        } finally {
            if (p != null) {
                try {
                    p.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    /**
     * @param s any string
     * @return {@code s} as a JSON string literal, quotes included, escaped as Jackson escapes it
     */
    static String quote(String s) {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"';
    }

    private static Object value(JsonParser p, int depth) throws IOException {
        return switch (p.currentToken()) {
            case START_OBJECT -> object(p, nested(p, depth));
            case START_ARRAY -> array(p, nested(p, depth));
            case VALUE_STRING -> string(p);
            case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    ? p.getDoubleValue() : (Object) p.getLongValue();
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            default -> throw new IllegalArgumentException("JSON: unexpected " + p.currentToken() + " at offset "
                    + p.currentTokenLocation().getCharOffset());
        };
    }

    private static int nested(JsonParser p, int depth) {
        if (depth == MAX_DEPTH) {
            throw new IllegalArgumentException("JSON: nesting deeper than " + MAX_DEPTH + " at offset "
                    + p.currentTokenLocation().getCharOffset());
        }
        return depth + 1;
    }

    private static Map<String, Object> object(JsonParser p, int depth) throws IOException {
        Map<String, Object> map = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = checked(p.currentName(), p);
            if (map.containsKey(name)) {
                throw new IllegalArgumentException("JSON: duplicate key " + quote(name) + " at offset "
                        + p.currentTokenLocation().getCharOffset());
            }
            p.nextToken();
            map.put(name, value(p, depth));
        }
        return Collections.unmodifiableMap(map);
    }

    private static List<Object> array(JsonParser p, int depth) throws IOException {
        List<Object> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            list.add(value(p, depth));
        }
        return Collections.unmodifiableList(list);
    }

    private static String string(JsonParser p) throws IOException {
        return checked(p.getText(), p);
    }

    /** Rejects an unpaired surrogate, which a {@code \\u} escape can produce but no UTF-8 text can hold. */
    private static String checked(String s, JsonParser p) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("JSON: the string at offset "
                        + p.currentTokenLocation().getCharOffset() + " holds an unpaired surrogate U+"
                        + Integer.toHexString(c).toUpperCase(Locale.ROOT));
            }
        }
        return s;
    }
}
