package org.attn4j.models.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A language of JSON texts: any object, any value, or the instances of a JSON schema, recognized byte by byte by a
 * {@link JsonRecognizer} (a pushdown automaton) so that generation can be held to it one token at a time.
 *
 * <p>{@link #fromSchema} compiles a JSON schema into a grammar whose every text is valid against the schema. It reads
 * {@code type} (a name or a list of {@code object}, {@code array}, {@code string}, {@code number}, {@code integer},
 * {@code boolean}, {@code null}), {@code properties}, {@code required}, {@code additionalProperties},
 * {@code items}, {@code enum}, {@code const}, {@code anyOf}, {@code $defs} (or {@code definitions}) at the root with
 * local {@code $ref}s ({@code #}, {@code #/$defs/NAME}), and takes {@code title}, {@code description},
 * {@code $schema}, {@code $id}, {@code $comment}, {@code default} and {@code examples} as the annotations they are. It
 * refuses every other keyword by name ({@code pattern}, {@code format}, {@code minLength}, {@code minimum} …): a
 * grammar that ignored one would let through texts the schema rejects.
 *
 * <p>The language is a subset of the schema's instances, chosen so that a text has one shape: an object's keys come in
 * the order {@code properties} lists them, each at most once, every {@code required} one present, and no key that
 * {@code properties} does not list (whatever {@code additionalProperties} allows; an object schema without
 * {@code properties} takes keys of any name, each value of {@code additionalProperties}' grammar, and none when it is
 * {@code false}); an {@code integer} is written without fraction or exponent; an {@code enum} or {@code const} value is
 * written as compact JSON (no whitespace, Jackson's escapes). In strict mode (OpenAI's {@code "strict": true}) the root
 * must be an object schema, and every object schema must list all its properties in {@code required} and set
 * {@code additionalProperties} to {@code false}.
 */
public final class JsonGrammar {
    private static final JsonGrammar ANY_OBJECT = new JsonGrammar(new Node.Obj(List.of(), Node.ANY));
    private static final JsonGrammar ANY_VALUE = new JsonGrammar(Node.ANY);

    private final Node root;

    JsonGrammar(Node root) {
        this.root = root;
    }

    /** @return the grammar of any JSON object (OpenAI's {@code "response_format": {"type": "json_object"}}) */
    public static JsonGrammar anyObject() {
        return ANY_OBJECT;
    }

    /** @return the grammar of any JSON value */
    public static JsonGrammar anyValue() {
        return ANY_VALUE;
    }

    /**
     * @param schema a JSON schema (an object, or {@code true})
     * @param strict whether OpenAI's strict rules apply (root an object; all properties required; no other keys)
     * @return the grammar of its instances, as the class describes
     * @throws JsonSchemaException naming the keyword and its path, for a schema this cannot compile exactly
     */
    public static JsonGrammar fromSchema(JsonNode schema, boolean strict) {
        return new JsonGrammar(new SchemaCompiler(strict).compileRoot(schema));
    }

    /**
     * @param before text that comes before the value, as it is (not JSON)
     * @param after text that comes after it
     * @return the language of this grammar's texts between those two texts, exactly ({@code <tool_call>\n}{@code
     *     …}{@code \n</tool_call>}, say); an empty text adds nothing
     */
    public JsonGrammar between(String before, String after) {
        List<Node> parts = new java.util.ArrayList<>();
        if (!before.isEmpty()) {
            parts.add(new Node.Literal(before));
        }
        parts.add(root);
        if (!after.isEmpty()) {
            parts.add(new Node.Literal(after));
        }
        return new JsonGrammar(parts.size() == 1 ? root : new Node.Sequence(parts));
    }

    /** @return the state before the first byte */
    public JsonRecognizer start() {
        return new JsonRecognizer(List.of(new Tasks.Stack(new Tasks.Value(root), Tasks.Stack.EMPTY)));
    }

    /**
     * @param text a text
     * @return whether it is a whole text of this grammar
     */
    public boolean accepts(String text) {
        JsonRecognizer s = start().advance(text);
        return s != null && s.complete();
    }
}
