package org.attn4j.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The report's JSON, written by jackson-core: maps (in their iteration order), lists, strings, booleans, numbers and
 * null, two spaces per level, one value per line. A double that is a whole number below 10^15 is written without a
 * fraction; NaN and infinities follow Jackson's rule, the project's one rule (see SEMANTICS.md): the strings
 * {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}.
 */
final class Json {
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final DefaultIndenter INDENTER = new DefaultIndenter("  ", "\n");

    private Json() {
    }

    /**
     * @param value a {@link Map} with string keys, a {@link List}, a {@link CharSequence}, a {@link Boolean}, a
     *     {@link Number} or null, nested freely
     * @return its JSON text, ending with a newline
     */
    static String write(Object value) {
        StringWriter out = new StringWriter();
        Separators separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("").withArrayEmptySeparator("");
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter().withSeparators(separators);
        printer.indentObjectsWith(INDENTER);
        printer.indentArraysWith(INDENTER);
        try (JsonGenerator g = FACTORY.createGenerator(out).setPrettyPrinter(printer)) {
            write(value, g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.append('\n').toString();
    }

    private static void write(Object value, JsonGenerator g) throws IOException {
        if (value == null) {
            g.writeNull();
        } else if (value instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!(e.getKey() instanceof String key)) {
                    throw new IllegalArgumentException("Json.write: map key " + e.getKey() + " is not a string");
                }
                g.writeFieldName(key);
                write(e.getValue(), g);
            }
            g.writeEndObject();
        } else if (value instanceof List<?> list) {
            g.writeStartArray();
            for (Object item : list) {
                write(item, g);
            }
            g.writeEndArray();
        } else if (value instanceof CharSequence s) {
            g.writeString(s.toString());
        } else if (value instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                g.writeNumber((long) d);
            } else {
                g.writeNumber(d);
            }
        } else if (value instanceof Number n) {
            g.writeNumber(n.longValue());
        } else {
            throw new IllegalArgumentException("Json.write: cannot write a " + value.getClass().getName());
        }
    }
}
