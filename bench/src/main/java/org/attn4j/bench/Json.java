package org.attn4j.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A minimal JSON writer for the report: maps (in their iteration order), lists, strings, booleans, numbers and
 * null. NaN and infinities, which JSON lacks, are written as null. Two spaces indent each level.
 */
final class Json {

    private Json() {
    }

    /**
     * @param value a {@link Map} with string keys, a {@link List}, a {@link CharSequence}, a {@link Boolean}, a
     *     {@link Number} or null, nested freely
     * @return its JSON text, ending with a newline
     */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, 0, out);
        return out.append('\n').toString();
    }

    private static void write(Object value, int depth, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Map<?, ?> map) {
            writeMap(map, depth, out);
        } else if (value instanceof List<?> list) {
            writeList(list, depth, out);
        } else if (value instanceof CharSequence s) {
            quote(s.toString(), out);
        } else if (value instanceof Boolean b) {
            out.append(b);
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            out.append(Double.isFinite(d) ? number(d) : "null");
        } else if (value instanceof Number n) {
            out.append(n.longValue());
        } else {
            throw new IllegalArgumentException("Json.write: cannot write a " + value.getClass().getName());
        }
    }

    private static void writeMap(Map<?, ?> map, int depth, StringBuilder out) {
        if (map.isEmpty()) {
            out.append("{}");
            return;
        }
        out.append('{');
        String separator = "\n";
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getKey() instanceof String key)) {
                throw new IllegalArgumentException("Json.write: map key " + e.getKey() + " is not a string");
            }
            out.append(separator);
            indent(depth + 1, out);
            quote(key, out);
            out.append(": ");
            write(e.getValue(), depth + 1, out);
            separator = ",\n";
        }
        out.append('\n');
        indent(depth, out);
        out.append('}');
    }

    private static void writeList(List<?> list, int depth, StringBuilder out) {
        if (list.isEmpty()) {
            out.append("[]");
            return;
        }
        out.append('[');
        String separator = "\n";
        for (Object item : list) {
            out.append(separator);
            indent(depth + 1, out);
            write(item, depth + 1, out);
            separator = ",\n";
        }
        out.append('\n');
        indent(depth, out);
        out.append(']');
    }

    private static String number(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return Double.toString(d).replace("E", "e");
    }

    private static void indent(int depth, StringBuilder out) {
        out.append("  ".repeat(depth));
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
