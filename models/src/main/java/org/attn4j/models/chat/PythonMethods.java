package org.attn4j.models.chat;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * The methods chat templates call on strings, dicts and lists ({@code content.strip()},
 * {@code content.startswith('<tool_response>')}, {@code message.get('content')}, {@code tool.items()} …) with Python's
 * meaning, ahead of Jinjava's own resolution, which would call Java methods of the same names or none. As in
 * transformers' immutable sandbox, a template may not change its input: the mutating methods ({@code append},
 * {@code pop}, {@code update} …) and any method not listed here are refused on strings, dicts and lists, with the
 * method's name.
 */
final class PythonMethods extends ELResolver {
    private static final Set<String> MUTATING = Set.of("append", "extend", "insert", "pop", "remove", "clear", "sort",
            "reverse", "update", "setdefault", "popitem", "add", "discard");

    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
        if (base == null || method == null) {
            return null;
        }
        String name = method.toString();
        Object[] args = params == null ? new Object[0] : params;
        Object result;
        if (Python.isString(base)) {
            result = string(Python.text(base), name, args);
        } else if (base instanceof Map<?, ?> map) {
            result = dict(map, name, args);
        } else if (base instanceof List<?> list) {
            result = list(list, name, args);
        } else {
            return null;
        }
        context.setPropertyResolved(true);
        return result;
    }

    private static Object string(String s, String name, Object[] a) {
        return switch (name) {
            case "strip" -> Python.strip(s, chars(a, name), true, true);
            case "lstrip" -> Python.strip(s, chars(a, name), true, false);
            case "rstrip" -> Python.strip(s, chars(a, name), false, true);
            case "startswith" -> affix(s, a, name, true);
            case "endswith" -> affix(s, a, name, false);
            case "split" -> Python.split(s, a.length > 0 ? optionalText(a[0], name) : null,
                    a.length > 1 ? integer(a[1], name) : -1);
            case "upper" -> s.toUpperCase(Locale.ROOT);
            case "lower" -> s.toLowerCase(Locale.ROOT);
            case "title" -> title(s);
            case "capitalize" -> s.isEmpty() ? s : s.substring(0, s.offsetByCodePoints(0, 1)).toUpperCase(Locale.ROOT)
                    + s.substring(s.offsetByCodePoints(0, 1)).toLowerCase(Locale.ROOT);
            case "replace" -> replace(s, text(a, 0, name), text(a, 1, name), a.length > 2 ? integer(a[2], name) : -1);
            case "find" -> codePoints(s, s.indexOf(text(a, 0, name)));
            case "rfind" -> codePoints(s, s.lastIndexOf(text(a, 0, name)));
            case "count" -> count(s, text(a, 0, name));
            case "removeprefix" -> s.startsWith(text(a, 0, name)) ? s.substring(text(a, 0, name).length()) : s;
            case "removesuffix" -> s.endsWith(text(a, 0, name)) && !text(a, 0, name).isEmpty()
                    ? s.substring(0, s.length() - text(a, 0, name).length()) : s;
            case "join" -> join(s, a, name);
            case "isspace" -> !s.isEmpty() && s.codePoints().allMatch(Python::isSpace);
            case "isdigit" -> !s.isEmpty() && s.codePoints().allMatch(Character::isDigit);
            case "isalpha" -> !s.isEmpty() && s.codePoints().allMatch(Character::isLetter);
            case "isupper" -> s.codePoints().anyMatch(Character::isUpperCase)
                    && s.codePoints().noneMatch(Character::isLowerCase);
            case "islower" -> s.codePoints().anyMatch(Character::isLowerCase)
                    && s.codePoints().noneMatch(Character::isUpperCase);
            default -> throw refused("str", name);
        };
    }

    private static Object dict(Map<?, ?> m, String name, Object[] a) {
        return switch (name) {
            case "items" -> items(m);
            case "keys" -> new ArrayList<>(m.keySet());
            case "values" -> new ArrayList<>(m.values());
            case "get" -> {
                if (a.length < 1 || a.length > 2) {
                    throw new Python.TypeError("get expected 1 or 2 arguments, got " + a.length);
                }
                yield m.containsKey(a[0]) ? m.get(a[0]) : a.length > 1 ? a[1] : null;
            }
            default -> throw refused("dict", name);
        };
    }

    private static Object list(List<?> l, String name, Object[] a) {
        return switch (name) {
            case "index" -> {
                int i = l.indexOf(a.length > 0 ? a[0] : null);
                if (i < 0) {
                    throw new Python.Error("ValueError: " + Python.repr(a.length > 0 ? a[0] : null)
                            + " is not in list");
                }
                yield i;
            }
            case "count" -> (int) l.stream().filter(x -> java.util.Objects.equals(x, a.length > 0 ? a[0] : null))
                    .count();
            default -> throw refused("list", name);
        };
    }

    /** @return the (key, value) pairs of a dict, in order, each a two-element list */
    static List<Object> items(Map<?, ?> m) {
        List<Object> out = new ArrayList<>(m.size());
        m.forEach((k, v) -> out.add(java.util.Arrays.asList(k, v)));
        return out;
    }

    private static Python.Error refused(String type, String name) {
        return new Python.Error(MUTATING.contains(name)
                ? "the template calls " + type + "." + name + "(), which changes its input; chat templates run in"
                + " an immutable sandbox, as in transformers"
                : "the template calls " + type + "." + name + "(), a method attn4j's chat templates do not provide");
    }

    private static String chars(Object[] a, String name) {
        return a.length == 0 ? null : optionalText(a[0], name);
    }

    private static String optionalText(Object v, String name) {
        if (v == null) {
            return null;
        }
        String s = Python.text(v);
        if (s == null) {
            throw new Python.TypeError(name + " arg must be None or str, not " + Python.typeName(v));
        }
        return s;
    }

    private static String text(Object[] a, int i, String name) {
        if (a.length <= i || !Python.isString(a[i])) {
            throw new Python.TypeError(name + "() argument " + (i + 1) + " must be str, not "
                    + Python.typeName(a.length <= i ? null : a[i]));
        }
        return Python.text(a[i]);
    }

    private static int integer(Object v, String name) {
        if (!(v instanceof Number n) || v instanceof Double || v instanceof Float) {
            throw new Python.TypeError(name + "() expects an integer, not " + Python.typeName(v));
        }
        return n.intValue();
    }

    private static boolean affix(String s, Object[] a, String name, boolean start) {
        if (a.length < 1) {
            throw new Python.TypeError(name + "() takes at least 1 argument (0 given)");
        }
        List<String> options = new ArrayList<>();
        if (a[0] instanceof Collection<?> c) {
            for (Object o : c) {
                options.add(text(new Object[] {o}, 0, name));
            }
        } else {
            options.add(text(a, 0, name));
        }
        for (String o : options) {
            if (start ? s.startsWith(o) : s.endsWith(o)) {
                return true;
            }
        }
        return false;
    }

    private static String replace(String s, String old, String with, int count) {
        if (count < 0) {
            return s.replace(old, with);
        }
        StringBuilder out = new StringBuilder();
        int from = 0;
        for (int n = 0; n < count; n++) {
            int at = s.indexOf(old, from);
            if (at < 0 || (old.isEmpty() && at > s.length())) {
                break;
            }
            out.append(s, from, at).append(with);
            from = at + old.length();
            if (old.isEmpty()) {
                if (from < s.length()) {
                    out.append(s.charAt(from));
                }
                from++;
            }
        }
        if (from < s.length()) {
            out.append(s.substring(from));
        }
        return out.toString();
    }

    private static int codePoints(String s, int index) {
        return index < 0 ? -1 : s.codePointCount(0, index);
    }

    private static int count(String s, String sub) {
        if (sub.isEmpty()) {
            return s.codePointCount(0, s.length()) + 1;
        }
        int n = 0;
        for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) {
            n++;
        }
        return n;
    }

    private static String join(String separator, Object[] a, String name) {
        if (a.length != 1 || !(a[0] instanceof Collection<?> c)) {
            throw new Python.TypeError(name + "() takes one list");
        }
        List<String> parts = new ArrayList<>();
        for (Object o : c) {
            if (!Python.isString(o)) {
                throw new Python.TypeError("sequence item " + parts.size() + ": expected str instance, "
                        + Python.typeName(o) + " found");
            }
            parts.add(Python.text(o));
        }
        return String.join(separator, parts);
    }

    /** Python's {@code str.title}: a letter after a non-letter is upper case, any other letter lower case. */
    static String title(String s) {
        StringBuilder out = new StringBuilder(s.length());
        boolean previousCased = false;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            boolean cased = Character.isLetter(c);
            out.appendCodePoint(cased ? (previousCased ? Character.toLowerCase(c) : Character.toTitleCase(c)) : c);
            previousCased = cased;
        }
        return out.toString();
    }

    @Override
    public Object getValue(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public Class<?> getType(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public void setValue(ELContext context, Object base, Object property, Object value) {
        // not resolved here: the next resolver decides
    }

    @Override
    public boolean isReadOnly(ELContext context, Object base, Object property) {
        return true;
    }

    @Override
    public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
        return null;
    }

    @Override
    public Class<?> getCommonPropertyType(ELContext context, Object base) {
        return null;
    }
}
