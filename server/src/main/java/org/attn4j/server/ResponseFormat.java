package org.attn4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Set;
import org.attn4j.models.grammar.JsonGrammar;
import org.attn4j.models.grammar.JsonSchemaException;

/**
 * A chat request's {@code response_format}, read into the grammar the reply is held to: {@code {"type": "text"}}
 * (none), {@code {"type": "json_object"}} (any JSON object) or {@code {"type": "json_schema", "json_schema": {"name",
 * "description", "schema", "strict"}}} (the schema's instances, as {@link JsonGrammar#fromSchema} compiles them, with
 * OpenAI's strict rules when {@code strict} is true). Anything else, and every schema keyword the compiler does not
 * implement, is refused with 400 naming the field.
 */
final class ResponseFormat {
    private static final Set<String> JSON_SCHEMA_KEYS = Set.of("name", "description", "schema", "strict");

    private ResponseFormat() {
    }

    /**
     * @param format the request's {@code response_format}, or null
     * @return the grammar the reply must keep to, or null for free text
     * @throws ApiException 400 naming the field at fault
     */
    static JsonGrammar grammar(JsonNode format) {
        if (format == null || format.isNull()) {
            return null;
        }
        if (!format.isObject()) {
            throw ApiException.invalid("response_format", "'response_format' must be an object, not "
                    + JsonRequest.kind(format));
        }
        JsonNode type = format.get("type");
        if (type == null || !type.isTextual()) {
            throw ApiException.invalid("response_format.type", "'response_format.type' is required: \"text\", "
                    + "\"json_object\" or \"json_schema\"");
        }
        String t = type.textValue();
        for (Iterator<String> it = format.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals("type") && !(k.equals("json_schema") && t.equals("json_schema"))) {
                throw ApiException.invalid("response_format." + k, "Unrecognized key in 'response_format' of type "
                        + "'" + t + "': " + k);
            }
        }
        return switch (t) {
            case "text" -> null;
            case "json_object" -> JsonGrammar.anyObject();
            case "json_schema" -> schema(format.get("json_schema"));
            default -> throw ApiException.invalid("response_format.type", "'response_format.type' is '" + t
                    + "'; this server takes \"text\", \"json_object\" and \"json_schema\"");
        };
    }

    private static JsonGrammar schema(JsonNode spec) {
        String at = "response_format.json_schema";
        if (spec == null || !spec.isObject()) {
            throw ApiException.invalid(at, "'" + at + "' is required with \"type\": \"json_schema\": an object "
                    + "with 'name' and 'schema', not " + JsonRequest.kind(spec));
        }
        for (Iterator<String> it = spec.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!JSON_SCHEMA_KEYS.contains(k)) {
                throw ApiException.invalid(at + "." + k, "Unrecognized key in '" + at + "': " + k);
            }
        }
        JsonNode name = spec.get("name");
        if (name == null || !name.isTextual() || !name.textValue().matches("[A-Za-z0-9_-]{1,64}")) {
            throw ApiException.invalid(at + ".name", "'" + at + ".name' is required: 1 to 64 letters, digits, "
                    + "'_' or '-'" + (name == null ? "" : ", not " + (name.isTextual() ? "'" + name.textValue() + "'"
                    : JsonRequest.kind(name))));
        }
        JsonNode description = spec.get("description");
        if (description != null && !description.isTextual()) {
            throw ApiException.invalid(at + ".description", "'" + at + ".description' must be a string, not "
                    + JsonRequest.kind(description));
        }
        JsonNode strict = spec.get("strict");
        if (strict != null && !strict.isNull() && !strict.isBoolean()) {
            throw ApiException.invalid(at + ".strict", "'" + at + ".strict' must be true or false, not "
                    + JsonRequest.kind(strict));
        }
        JsonNode schema = spec.get("schema");
        if (schema == null) {
            throw ApiException.invalid(at + ".schema", "'" + at + ".schema' is required: the JSON schema the "
                    + "reply must follow");
        }
        try {
            return JsonGrammar.fromSchema(schema, strict != null && strict.asBoolean());
        } catch (JsonSchemaException e) {
            throw ApiException.invalid(at + ".schema", "Invalid schema for response_format '" + name.textValue()
                    + "': " + e.getMessage());
        }
    }
}
