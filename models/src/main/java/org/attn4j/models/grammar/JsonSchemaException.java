package org.attn4j.models.grammar;

/**
 * A JSON schema that {@link JsonGrammar#fromSchema} cannot compile: not a schema, a keyword outside what it
 * implements, or (in strict mode) a schema that breaks OpenAI's strict rules. The message names the keyword and where
 * it stands.
 */
public final class JsonSchemaException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final String keyword;

    JsonSchemaException(String path, String keyword, String message) {
        super("JSON schema at " + path + ": " + message);
        this.path = path;
        this.keyword = keyword;
    }

    /** @return where in the schema, as a JSON pointer-like path from {@code $} (the schema itself) */
    public String path() {
        return path;
    }

    /** @return the keyword at fault, or null when the schema itself is (not an object, say) */
    public String keyword() {
        return keyword;
    }
}
