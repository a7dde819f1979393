package org.attn4j.models.chat;

import com.hubspot.jinjava.objects.SafeString;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Python's semantics for the values a chat template handles, where Jinjava's Java defaults differ: {@code str()},
 * {@code len()}, {@code str.isspace}/{@code strip}/{@code split}, type names for error messages, and
 * {@code json.dumps} as transformers' {@code tojson} filter calls it.
 */
final class Python {

    private Python() {
    }

    /**
     * Raised where Python raises an error ({@code TypeError}, {@code ValueError}, a sandbox refusal …). Not an
     * {@code IllegalArgumentException}, which Jinjava's method resolution would swallow.
     */
    static class Error extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Error(String message) {
            super(message);
        }
    }

    /** Python's {@code TypeError}. */
    static final class TypeError extends Error {
        private static final long serialVersionUID = 1L;

        TypeError(String message) {
            super("TypeError: " + message);
        }
    }

    static boolean isString(Object v) {
        return v instanceof String || v instanceof SafeString;
    }

    /** @return {@code v} as text when it is a string, else {@code null} */
    static String text(Object v) {
        return v instanceof String s ? s : v instanceof SafeString s ? s.getValue() : null;
    }

    static boolean isNumber(Object v) {
        return v instanceof Number || v instanceof Boolean;
    }

    /** @return Python's name of the value's type, for messages */
    static String typeName(Object v) {
        if (v == null) {
            return "NoneType";
        }
        if (isString(v)) {
            return "str";
        }
        if (v instanceof Boolean) {
            return "bool";
        }
        if (v instanceof Double || v instanceof Float || v instanceof BigDecimal) {
            return "float";
        }
        if (v instanceof Number) {
            return "int";
        }
        if (v instanceof Map) {
            return "dict";
        }
        if (v instanceof Collection || v.getClass().isArray()) {
            return "list";
        }
        return v.getClass().getSimpleName();
    }

    /** Python's {@code str.isspace} for one code point: category Zs, Zl, Zp, or bidirectional class WS, B or S. */
    static boolean isSpace(int c) {
        int type = Character.getType(c);
        return type == Character.SPACE_SEPARATOR || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)
                || c == 0x85;
    }

    /**
     * @param s the string
     * @param chars the characters to strip, or {@code null} for white space
     * @param left whether to strip the start
     * @param right whether to strip the end
     * @return Python's {@code strip}, {@code lstrip} or {@code rstrip}
     */
    static String strip(String s, String chars, boolean left, boolean right) {
        int from = 0;
        int to = s.length();
        while (left && from < to && strips(s.codePointAt(from), chars)) {
            from += Character.charCount(s.codePointAt(from));
        }
        while (right && to > from && strips(s.codePointBefore(to), chars)) {
            to -= Character.charCount(s.codePointBefore(to));
        }
        return s.substring(from, to);
    }

    private static boolean strips(int c, String chars) {
        return chars == null ? isSpace(c) : chars.indexOf(new String(Character.toChars(c))) >= 0;
    }

    /** @return Python's {@code str.split(sep, maxsplit)}; {@code sep == null} splits on runs of white space */
    static List<String> split(String s, String sep, int maxsplit) {
        List<String> out = new ArrayList<>();
        if (sep == null) {
            int i = 0;
            while (true) {
                while (i < s.length() && isSpace(s.codePointAt(i))) {
                    i += Character.charCount(s.codePointAt(i));
                }
                if (i >= s.length()) {
                    return out;
                }
                if (maxsplit >= 0 && out.size() == maxsplit) {
                    out.add(strip(s.substring(i), null, false, true));
                    return out;
                }
                int j = i;
                while (j < s.length() && !isSpace(s.codePointAt(j))) {
                    j += Character.charCount(s.codePointAt(j));
                }
                out.add(s.substring(i, j));
                i = j;
            }
        }
        if (sep.isEmpty()) {
            throw new Error("ValueError: empty separator");
        }
        int from = 0;
        for (int at = s.indexOf(sep); at >= 0 && (maxsplit < 0 || out.size() < maxsplit); at = s.indexOf(sep, from)) {
            out.add(s.substring(from, at));
            from = at + sep.length();
        }
        out.add(s.substring(from));
        return out;
    }

    /** @return Python's {@code len}: code points of a string, entries of a collection or map */
    static int len(Object v) {
        if (isString(v)) {
            String s = text(v);
            return s.codePointCount(0, s.length());
        }
        if (v instanceof Collection<?> c) {
            return c.size();
        }
        if (v instanceof Map<?, ?> m) {
            return m.size();
        }
        if (v != null && v.getClass().isArray()) {
            return java.lang.reflect.Array.getLength(v);
        }
        throw new TypeError("object of type '" + typeName(v) + "' has no len()");
    }

    /** @return Python's {@code str(v)} */
    static String str(Object v) {
        if (isString(v)) {
            return text(v);
        }
        return repr(v);
    }

    /** @return Python's {@code repr(v)} of JSON-like values ({@code str} for the values inside collections) */
    static String repr(Object v) {
        if (v == null) {
            return "None";
        }
        if (v instanceof Boolean b) {
            return b ? "True" : "False";
        }
        if (isString(v)) {
            return quote(text(v));
        }
        if (v instanceof Double || v instanceof Float || v instanceof BigDecimal) {
            return floatRepr(((Number) v).doubleValue());
        }
        if (v instanceof Number) {
            return v.toString();
        }
        if (v instanceof Map<?, ?> m) {
            StringBuilder out = new StringBuilder("{");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (out.length() > 1) {
                    out.append(", ");
                }
                out.append(repr(e.getKey())).append(": ").append(repr(e.getValue()));
            }
            return out.append('}').toString();
        }
        if (v instanceof Collection<?> c) {
            StringBuilder out = new StringBuilder("[");
            for (Object o : c) {
                if (out.length() > 1) {
                    out.append(", ");
                }
                out.append(repr(o));
            }
            return out.append(']').toString();
        }
        return v.toString();
    }

    private static String quote(String s) {
        char q = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
        StringBuilder out = new StringBuilder().append(q);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c == q) {
                        out.append('\\').append(c);
                    } else if (c < 0x20 || c == 0x7F) {
                        out.append(String.format("\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append(q).toString();
    }

    /** @return Python's {@code repr} of a float: shortest round trip, exponent below 1e-4 and from 1e16 */
    static String floatRepr(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0.0" : "0.0";
        }
        BigDecimal exact = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        String digits = exact.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - exact.scale();
        String sign = d < 0 ? "-" : "";
        if (exponent < -4 || exponent >= 16) {
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + String.format("%02d", Math.abs(exponent));
        }
        String plain = exact.abs().toPlainString();
        return sign + (plain.contains(".") ? plain : plain + ".0");
    }

    /**
     * Python's {@code json.dumps(v, ensure_ascii, indent, separators, sort_keys)}.
     *
     * @param v a JSON-like value
     * @param ensureAscii whether non-ASCII characters are escaped as {@code \}{@code uXXXX}
     * @param indent {@code null} for one line, else the indent string of each level
     * @param itemSeparator between items ({@code ", "} on one line, {@code ","} with an indent, by default)
     * @param keySeparator between a key and its value ({@code ": "} by default)
     * @param sortKeys whether object keys are sorted
     * @return the JSON text
     */
    static String json(Object v, boolean ensureAscii, String indent, String itemSeparator, String keySeparator,
                       boolean sortKeys) {
        StringBuilder out = new StringBuilder();
        json(v, ensureAscii, indent, itemSeparator, keySeparator, sortKeys, 0, out);
        return out.toString();
    }

    private static void json(Object v, boolean ascii, String indent, String item, String key, boolean sort, int depth,
                             StringBuilder out) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof Boolean b) {
            out.append(b ? "true" : "false");
        } else if (isString(v)) {
            jsonString(text(v), ascii, out);
        } else if (v instanceof Double || v instanceof Float || v instanceof BigDecimal) {
            double d = ((Number) v).doubleValue();
            out.append(Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity")
                    : floatRepr(d));
        } else if (v instanceof Number) {
            out.append(v instanceof BigInteger ? v.toString() : Long.toString(((Number) v).longValue()));
        } else if (v instanceof Map<?, ?> m) {
            Map<?, ?> entries = m;
            if (sort) {
                TreeMap<String, Object> sorted = new TreeMap<>();
                m.forEach((k, x) -> sorted.put(jsonKey(k), x));
                entries = sorted;
            }
            if (entries.isEmpty()) {
                out.append("{}");
                return;
            }
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : entries.entrySet()) {
                out.append(first ? "" : item);
                first = false;
                newline(indent, depth + 1, out);
                jsonString(jsonKey(e.getKey()), ascii, out);
                out.append(key);
                json(e.getValue(), ascii, indent, item, key, sort, depth + 1, out);
            }
            newline(indent, depth, out);
            out.append('}');
        } else if (v instanceof Collection<?> c) {
            if (c.isEmpty()) {
                out.append("[]");
                return;
            }
            out.append('[');
            boolean first = true;
            for (Object o : c) {
                out.append(first ? "" : item);
                first = false;
                newline(indent, depth + 1, out);
                json(o, ascii, indent, item, key, sort, depth + 1, out);
            }
            newline(indent, depth, out);
            out.append(']');
        } else {
            throw new TypeError("Object of type " + typeName(v) + " is not JSON serializable");
        }
    }

    private static String jsonKey(Object k) {
        if (k == null) {
            return "null";
        }
        if (k instanceof Boolean b) {
            return b ? "true" : "false";
        }
        if (isString(k)) {
            return text(k);
        }
        if (k instanceof Number) {
            return k instanceof Double || k instanceof Float ? floatRepr(((Number) k).doubleValue()) : k.toString();
        }
        throw new TypeError("keys must be str, int, float, bool or None, not " + typeName(k));
    }

    private static void newline(String indent, int depth, StringBuilder out) {
        if (indent != null) {
            out.append('\n');
            out.append(indent.repeat(depth));
        }
    }

    private static void jsonString(String s, boolean ascii, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || (ascii && c > 0x7E)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
