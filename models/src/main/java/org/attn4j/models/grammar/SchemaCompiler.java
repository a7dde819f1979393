package org.attn4j.models.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Compiles one JSON schema into {@link Node}s, as {@link JsonGrammar#fromSchema} describes. */
final class SchemaCompiler {
    private static final Set<String> ANNOTATIONS = Set.of("title", "description", "$schema", "$id", "$comment",
            "default", "examples");
    private static final Set<String> KEYWORDS = Set.of("type", "properties", "required", "additionalProperties",
            "items", "enum", "const", "anyOf", "$defs", "definitions", "$ref");
    private static final Set<String> TYPES = Set.of("object", "array", "string", "number", "integer", "boolean",
            "null");

    private final boolean strict;
    private final Map<String, Node> definitions = new HashMap<>();
    private final List<Node.Ref> refs = new ArrayList<>();
    private final Set<String> names = new HashSet<>();

    SchemaCompiler(boolean strict) {
        this.strict = strict;
    }

    Node compileRoot(JsonNode schema) {
        if (schema == null || !(schema.isObject() || schema.isBoolean())) {
            throw new JsonSchemaException("$", null, "a schema must be an object, not " + kind(schema));
        }
        if (strict && !(schema.isObject() && schema.path("type").isTextual()
                && schema.get("type").textValue().equals("object"))) {
            throw new JsonSchemaException("$", "type", "in strict mode the root schema must have \"type\": "
                    + "\"object\"");
        }
        if (schema.isObject()) {
            for (String defs : List.of("$defs", "definitions")) {
                if (schema.path(defs).isObject()) {
                    schema.get(defs).fieldNames().forEachRemaining(n -> names.add("#/" + defs + "/" + n));
                }
            }
            for (String defs : List.of("$defs", "definitions")) {
                JsonNode d = schema.get(defs);
                if (d == null) {
                    continue;
                }
                if (!d.isObject()) {
                    throw new JsonSchemaException("$", defs, "'" + defs + "' must be an object of schemas, not "
                            + kind(d));
                }
                for (Iterator<Map.Entry<String, JsonNode>> it = d.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    definitions.put("#/" + defs + "/" + e.getKey(), compile(e.getValue(), "$." + defs + "."
                            + e.getKey()));
                }
            }
        }
        Node root = compile(schema, "$");
        definitions.put("#", root);
        for (Node.Ref r : refs) {
            r.bound = definitions.get(r.target);
        }
        for (Node.Ref r : refs) {
            try {
                r.resolve();
            } catch (IllegalStateException e) {
                throw new JsonSchemaException("$", "$ref", "'$ref' " + r.target + " refers only to references");
            }
        }
        return root;
    }

    private Node compile(JsonNode s, String path) {
        if (s != null && s.isBoolean()) {
            if (!s.booleanValue()) {
                throw new JsonSchemaException(path, null, "the schema false admits no value");
            }
            return Node.ANY;
        }
        if (s == null || !s.isObject()) {
            throw new JsonSchemaException(path, null, "a schema must be an object, not " + kind(s));
        }
        for (Iterator<String> it = s.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!KEYWORDS.contains(k) && !ANNOTATIONS.contains(k)) {
                throw new JsonSchemaException(path, k, "unsupported keyword '" + k + "'; this server implements "
                        + "type, properties, required, additionalProperties, items, enum, const, anyOf, $defs and "
                        + "$ref");
            }
            if ((k.equals("$defs") || k.equals("definitions")) && !path.equals("$")) {
                throw new JsonSchemaException(path, k, "'" + k + "' is read only at the root of the schema");
            }
        }
        if (s.has("$ref")) {
            return ref(s, path);
        }
        List<String> types = types(s, path);
        if (s.has("enum") || s.has("const")) {
            return literals(s, path, types);
        }
        if (s.has("anyOf")) {
            if (s.has("type")) {
                throw new JsonSchemaException(path, "anyOf", "'anyOf' beside 'type' is not supported; give the "
                        + "type inside each alternative");
            }
            JsonNode any = s.get("anyOf");
            if (!any.isArray() || any.isEmpty()) {
                throw new JsonSchemaException(path, "anyOf", "'anyOf' must be a non-empty array of schemas");
            }
            List<Node> alternatives = new ArrayList<>();
            for (int i = 0; i < any.size(); i++) {
                alternatives.add(compile(any.get(i), path + ".anyOf[" + i + "]"));
            }
            return alternatives.size() == 1 ? alternatives.get(0) : new Node.AnyOf(alternatives);
        }
        if (types.isEmpty()) {
            if (s.has("properties") || s.has("additionalProperties") || s.has("required")) {
                return object(s, path);
            }
            return s.has("items") ? array(s, path) : Node.ANY;
        }
        List<Node> alternatives = new ArrayList<>();
        for (String t : types) {
            alternatives.add(switch (t) {
                case "object" -> object(s, path);
                case "array" -> array(s, path);
                case "string" -> Node.STRING;
                case "number" -> Node.NUMBER;
                case "integer" -> Node.INTEGER;
                case "boolean" -> new Node.AnyOf(List.of(new Node.Literal("true"), new Node.Literal("false")));
                default -> new Node.Literal("null");
            });
        }
        return alternatives.size() == 1 ? alternatives.get(0) : new Node.AnyOf(alternatives);
    }

    private Node ref(JsonNode s, String path) {
        JsonNode r = s.get("$ref");
        for (Iterator<String> it = s.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            boolean definitions = path.equals("$") && (k.equals("$defs") || k.equals("definitions"));
            if (!k.equals("$ref") && !ANNOTATIONS.contains(k) && !definitions) {
                throw new JsonSchemaException(path, k, "'" + k + "' beside '$ref' is not supported");
            }
        }
        if (!r.isTextual()) {
            throw new JsonSchemaException(path, "$ref", "'$ref' must be a string, not " + kind(r));
        }
        String target = r.textValue();
        boolean local = target.equals("#") || target.matches("#/(\\$defs|definitions)/[^/]+");
        if (!local) {
            throw new JsonSchemaException(path, "$ref", "'$ref' " + target + " is not supported; only '#' and "
                    + "'#/$defs/NAME' (or '#/definitions/NAME') of this schema are");
        }
        if (!target.equals("#") && !names.contains(target)) {
            throw new JsonSchemaException(path, "$ref", "'$ref' " + target + " names no definition of this schema");
        }
        Node.Ref node = new Node.Ref(target);
        refs.add(node);
        return node;
    }

    private static List<String> types(JsonNode s, String path) {
        JsonNode t = s.get("type");
        List<String> out = new ArrayList<>();
        if (t == null) {
            return out;
        }
        if (t.isTextual()) {
            out.add(t.textValue());
        } else if (t.isArray() && !t.isEmpty()) {
            for (JsonNode x : t) {
                if (!x.isTextual()) {
                    throw new JsonSchemaException(path, "type", "'type' must list type names, not " + kind(x));
                }
                if (out.contains(x.textValue())) {
                    throw new JsonSchemaException(path, "type", "'type' lists '" + x.textValue() + "' twice");
                }
                out.add(x.textValue());
            }
        } else {
            throw new JsonSchemaException(path, "type", "'type' must be a type name or a non-empty array of them, "
                    + "not " + kind(t));
        }
        for (String name : out) {
            if (!TYPES.contains(name)) {
                throw new JsonSchemaException(path, "type", "'type' names '" + name + "', which is not a JSON "
                        + "Schema type (object, array, string, number, integer, boolean, null)");
            }
        }
        return out;
    }

    private static Node literals(JsonNode s, String path, List<String> types) {
        String keyword = s.has("enum") ? "enum" : "const";
        if (s.has("enum") && s.has("const")) {
            throw new JsonSchemaException(path, "const", "give 'enum' or 'const', not both");
        }
        List<JsonNode> values = new ArrayList<>();
        if (keyword.equals("const")) {
            values.add(s.get("const"));
        } else {
            JsonNode e = s.get("enum");
            if (!e.isArray() || e.isEmpty()) {
                throw new JsonSchemaException(path, "enum", "'enum' must be a non-empty array of values");
            }
            e.forEach(values::add);
        }
        List<Node> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (JsonNode v : values) {
            if (!types.isEmpty() && !types.contains(typeOf(v))
                    && !(types.contains("number") && typeOf(v).equals("integer"))) {
                throw new JsonSchemaException(path, keyword, "'" + keyword + "' holds " + v + ", which is not of "
                        + "'type' " + String.join(" or ", types));
            }
            if (seen.add(v.toString())) {
                out.add(new Node.Literal(v.toString()));
            }
        }
        return out.size() == 1 ? out.get(0) : new Node.AnyOf(out);
    }

    private static String typeOf(JsonNode v) {
        if (v.isObject()) {
            return "object";
        } else if (v.isArray()) {
            return "array";
        } else if (v.isTextual()) {
            return "string";
        } else if (v.isIntegralNumber()) {
            return "integer";
        } else if (v.isNumber()) {
            return "number";
        } else if (v.isBoolean()) {
            return "boolean";
        }
        return "null";
    }

    private Node object(JsonNode s, String path) {
        JsonNode props = s.get("properties");
        if (props != null && !props.isObject()) {
            throw new JsonSchemaException(path, "properties", "'properties' must be an object of schemas, not "
                    + kind(props));
        }
        Set<String> required = new HashSet<>();
        JsonNode req = s.get("required");
        if (req != null) {
            if (!req.isArray()) {
                throw new JsonSchemaException(path, "required", "'required' must be an array of property names, "
                        + "not " + kind(req));
            }
            for (JsonNode r : req) {
                if (!r.isTextual()) {
                    throw new JsonSchemaException(path, "required", "'required' must list names, not " + kind(r));
                }
                if (props == null || !props.has(r.textValue())) {
                    throw new JsonSchemaException(path, "required", "'required' names '" + r.textValue()
                            + "', which 'properties' does not list");
                }
                required.add(r.textValue());
            }
        }
        JsonNode additional = s.get("additionalProperties");
        if (additional != null && !additional.isBoolean() && !additional.isObject()) {
            throw new JsonSchemaException(path, "additionalProperties", "'additionalProperties' must be a boolean or"
                    + " a schema, not " + kind(additional));
        }
        if (strict && (additional == null || !additional.isBoolean() || additional.booleanValue())) {
            throw new JsonSchemaException(path, "additionalProperties", "in strict mode every object schema must "
                    + "set \"additionalProperties\": false");
        }
        List<Node.Property> properties = new ArrayList<>();
        if (props != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (strict && !required.contains(e.getKey())) {
                    throw new JsonSchemaException(path, "required", "in strict mode 'required' must list every "
                            + "property; it lacks '" + e.getKey() + "'");
                }
                properties.add(new Node.Property(new TextNode(e.getKey()).toString().getBytes(
                        StandardCharsets.UTF_8), compile(e.getValue(), path + ".properties."
                        + e.getKey()), required.contains(e.getKey())));
            }
        }
        Node values = null;
        if (properties.isEmpty()) {
            if (additional == null || (additional.isBoolean() && additional.booleanValue())) {
                values = Node.ANY;
            } else if (additional.isObject()) {
                values = compile(additional, path + ".additionalProperties");
            }
        } else if (additional != null && additional.isObject()) {
            compile(additional, path + ".additionalProperties");
        }
        return new Node.Obj(properties, values);
    }

    private Node array(JsonNode s, String path) {
        JsonNode items = s.get("items");
        if (items != null && items.isArray()) {
            throw new JsonSchemaException(path, "items", "'items' as an array (a tuple) is not supported; give one "
                    + "schema for every item");
        }
        return new Node.Arr(items == null ? Node.ANY : compile(items, path + ".items"));
    }

    static String kind(JsonNode n) {
        if (n == null || n.isMissingNode()) {
            return "nothing";
        }
        return switch (n.getNodeType()) {
            case OBJECT -> "an object";
            case ARRAY -> "an array";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> n.getNodeType().toString().toLowerCase(Locale.ROOT);
        };
    }
}
