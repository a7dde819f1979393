package org.attn4j.server;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A request body read strictly: one JSON object (no duplicate names, nesting at most 64 deep, nothing after it),
 * whose parameters are taken by name and type. Every mistake is an {@link ApiException} (400) that names the
 * parameter, what it must be and what it was.
 */
final class JsonRequest {
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64)
                .maxNumberLength(64).maxStringLength(Integer.MAX_VALUE - 8).build());
    }

    private final ObjectNode root;

    private JsonRequest(ObjectNode root) {
        this.root = root;
    }

    /**
     * @param body the request body
     * @return the object it holds
     * @throws ApiException 400 if it is not one well-formed JSON object
     */
    static JsonRequest parse(byte[] body) {
        if (body.length == 0) {
            throw ApiException.invalid(null, "The request body is empty; send a JSON object");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(body);
        } catch (JacksonException e) {
            throw ApiException.invalid(null, "The request body is not valid JSON: " + e.getOriginalMessage()
                    + where(e));
        } catch (java.io.IOException e) {
            throw ApiException.invalid(null, "The request body could not be read: " + e.getMessage());
        }
        if (node == null || !node.isObject()) {
            throw ApiException.invalid(null, "The request body must be a JSON object, not "
                    + (node == null ? "nothing" : kind(node)));
        }
        return new JsonRequest((ObjectNode) node);
    }

    private static String where(JacksonException e) {
        return e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
                + e.getLocation().getColumnNr() + ")";
    }

    /**
     * Refuses names the endpoint does not know, as OpenAI does, and names it knows but does not implement when they
     * are given a value other than their default (null, or one of {@code defaults}).
     *
     * @param known the names the endpoint reads or may ignore
     * @param unsupported names of OpenAI's API this server does not implement
     */
    void refuseUnknown(Set<String> known, Set<String> unsupported) {
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (unsupported.contains(name)) {
                if (!root.get(name).isNull()) {
                    throw ApiException.invalid(name, "'" + name + "' is not supported by this server; leave it out");
                }
            } else if (!known.contains(name)) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            throw ApiException.invalid(unknown.get(0), "Unrecognized request argument supplied: "
                    + String.join(", ", new TreeSet<>(unknown)));
        }
    }

    /** @return the value, or null when absent or JSON null */
    JsonNode get(String name) {
        JsonNode v = root.get(name);
        return v == null || v.isNull() ? null : v;
    }

    String requiredString(String name) {
        JsonNode v = get(name);
        if (v == null) {
            throw ApiException.invalid(name, "'" + name + "' is required");
        }
        if (!v.isTextual()) {
            throw ApiException.invalid(name, "'" + name + "' must be a string, not " + kind(v));
        }
        return v.textValue();
    }

    String string(String name, String otherwise) {
        JsonNode v = get(name);
        if (v == null) {
            return otherwise;
        }
        if (!v.isTextual()) {
            throw ApiException.invalid(name, "'" + name + "' must be a string, not " + kind(v));
        }
        return v.textValue();
    }

    boolean bool(String name, boolean otherwise) {
        JsonNode v = get(name);
        if (v == null) {
            return otherwise;
        }
        if (!v.isBoolean()) {
            throw ApiException.invalid(name, "'" + name + "' must be true or false, not " + kind(v));
        }
        return v.booleanValue();
    }

    double number(String name, double otherwise, double min, double max) {
        JsonNode v = get(name);
        if (v == null) {
            return otherwise;
        }
        if (!v.isNumber()) {
            throw ApiException.invalid(name, "'" + name + "' must be a number, not " + kind(v));
        }
        double d = v.doubleValue();
        if (!(d >= min && d <= max)) {
            throw ApiException.invalid(name, "'" + name + "' is " + v + "; it must lie in [" + plain(min) + ", "
                    + plain(max) + "]");
        }
        return d;
    }

    long integer(String name, long otherwise, long min, long max) {
        JsonNode v = get(name);
        if (v == null) {
            return otherwise;
        }
        return integer(name, name, v, min, max);
    }

    /**
     * @param param the parameter an error names
     * @param label how the value is called in the message ({@code prompt[3]})
     */
    static long integer(String param, String label, JsonNode v, long min, long max) {
        if (!v.isIntegralNumber() && !(v.isNumber() && v.doubleValue() == Math.rint(v.doubleValue()))) {
            throw ApiException.invalid(param, "'" + label + "' must be an integer, not " + kind(v));
        }
        if (!v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
            throw ApiException.invalid(param, "'" + label + "' is " + v + "; it must lie in [" + min + ", " + max
                    + "]");
        }
        return v.longValue();
    }

    private static String plain(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    /** @return how a JSON value is named in an error: a string, a number, an array, an object, true, false, null */
    static String kind(JsonNode v) {
        if (v == null || v.isNull()) {
            return "null";
        }
        if (v.isTextual()) {
            return "a string";
        }
        if (v.isNumber()) {
            return "a number (" + v + ")";
        }
        if (v.isBoolean()) {
            return v.booleanValue() ? "true" : "false";
        }
        if (v.isArray()) {
            return "an array";
        }
        return "an object";
    }
}
