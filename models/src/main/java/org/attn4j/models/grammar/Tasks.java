package org.attn4j.models.grammar;

import java.util.List;

/**
 * The steps of a JSON pushdown automaton over UTF-8 bytes. A configuration is a {@link Stack} of tasks, the top one
 * reading the next byte; a task that is done pops itself, one that has just begun a nested value pushes the value's
 * task above its own continuation. Reading may branch (an {@code anyOf}, which optional property comes next, where a
 * number ends), so a byte turns one configuration into any number of them, none when it is refused.
 */
final class Tasks {
    /**
     * The most spaces or tabs after a newline between two tokens of a text. A gap between tokens is empty, one space,
     * or a newline and at most this many spaces and tabs (an indentation), so a model cannot write whitespace forever.
     */
    static final int MAX_INDENT = 20;

    private static final Node ANY_OBJECT = new Node.Obj(List.of(), Node.ANY);
    private static final Node ANY_ARRAY = new Node.Arr(Node.ANY);
    private static final Node ANY_VALUE = new Node.AnyOf(List.of(ANY_OBJECT, ANY_ARRAY, Node.STRING, Node.NUMBER,
            new Node.Literal("true"), new Node.Literal("false"), new Node.Literal("null")));

    private Tasks() {
    }

    /**
     * A configuration: the task reading now above what follows it. {@link #EMPTY} is a finished value.
     *
     * @param top the task that reads the next byte, null for the empty stack
     * @param rest the tasks below it
     */
    record Stack(Task top, Stack rest) {
        static final Stack EMPTY = new Stack(null, null);

        /** @return whether the value may end here: every task on the stack may finish without another byte */
        boolean complete() {
            for (Stack s = this; s.top != null; s = s.rest) {
                if (!s.top.canEnd()) {
                    return false;
                }
            }
            return true;
        }
    }

    /** One step of the automaton. */
    interface Task {
        /**
         * @param b the next byte, 0 to 255
         * @param rest the stack below this task
         * @param out receives every configuration the byte leads to
         */
        void feed(int b, Stack rest, List<Stack> out);

        /** @return whether this task may finish before another byte, handing the next one to the stack below */
        default boolean canEnd() {
            return false;
        }
    }

    /** Feeds a byte to a configuration; the empty stack refuses every byte. */
    static void feed(Stack s, int b, List<Stack> out) {
        if (s.top != null) {
            s.top.feed(b, s.rest, out);
        }
    }

    static boolean whitespace(int b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }

    /**
     * @param ws the gap so far: 0 none, 1 one space, 2 + n a newline and n spaces or tabs
     * @param b a whitespace byte
     * @return the gap with it, or -1 when the gap may not grow so
     */
    static int gap(int ws, int b) {
        if (ws == 0) {
            return b == ' ' ? 1 : b == '\n' ? 2 : -1;
        }
        return ws >= 2 && ws - 2 < MAX_INDENT && (b == ' ' || b == '\t') ? ws + 1 : -1;
    }

    private static boolean digit(int b) {
        return b >= '0' && b <= '9';
    }

    /** A value of a node's grammar, before its first byte. */
    record Value(Node node) implements Task {
        @Override
        public void feed(int b, Stack rest, List<Stack> out) {
            Node n = node.resolve();
            if (n == Node.ANY) {
                new Value(ANY_VALUE).feed(b, rest, out);
            } else if (n == Node.STRING) {
                if (b == '"') {
                    out.add(new Stack(Str.NORMAL, rest));
                }
            } else if (n == Node.NUMBER || n == Node.INTEGER) {
                new Num(n == Node.INTEGER, Num.START).feed(b, rest, out);
            } else if (n instanceof Node.Obj o) {
                if (b == '{') {
                    out.add(new Stack(new Obj(o, Obj.OPEN, 0, -1, 0), rest));
                }
            } else if (n instanceof Node.Arr a) {
                if (b == '[') {
                    out.add(new Stack(new Arr(a, Arr.OPEN, 0), rest));
                }
            } else if (n instanceof Node.Literal l) {
                new Literal(l.text, 0).feed(b, rest, out);
            } else if (n instanceof Node.Sequence seq) {
                Stack s = rest;
                for (int i = seq.parts.size() - 1; i >= 0; i--) {
                    s = new Stack(new Value(seq.parts.get(i)), s);
                }
                Tasks.feed(s, b, out);
            } else if (n instanceof Node.AnyOf any) {
                for (Node alternative : any.alternatives) {
                    new Value(alternative).feed(b, rest, out);
                }
            } else {
                throw new IllegalStateException("grammar: no task reads " + n.getClass().getSimpleName());
            }
        }
    }

    /** Exactly one text; it pops itself with its last byte. */
    record Literal(byte[] text, int at) implements Task {
        @Override
        public void feed(int b, Stack rest, List<Stack> out) {
            if ((text[at] & 0xFF) == b) {
                out.add(at + 1 == text.length ? rest : new Stack(new Literal(text, at + 1), rest));
            }
        }
    }

    /**
     * Inside a string, after its opening quote: plain characters (none below U+0020), escapes and {@code \}{@code u}
     * with four hex digits, and UTF-8 checked byte by byte (no overlong forms, no surrogates, nothing past U+10FFFF),
     * so a token that ends inside a character is read as far as it goes.
     *
     * @param mode {@link #PLAIN}, {@link #ESCAPE}, {@link #HEX} or {@link #UTF8}
     * @param need hex digits or continuation bytes still to come
     * @param lo the least value of the next continuation byte
     * @param hi its greatest value
     */
    record Str(int mode, int need, int lo, int hi) implements Task {
        static final int PLAIN = 0;
        static final int ESCAPE = 1;
        static final int HEX = 2;
        static final int UTF8 = 3;
        static final Str NORMAL = new Str(PLAIN, 0, 0, 0);

        @Override
        public void feed(int b, Stack rest, List<Stack> out) {
            switch (mode) {
                case PLAIN -> plain(b, rest, out);
                case ESCAPE -> {
                    if ("\"\\/bfnrt".indexOf(b) >= 0) {
                        out.add(new Stack(NORMAL, rest));
                    } else if (b == 'u') {
                        out.add(new Stack(new Str(HEX, 4, 0, 0), rest));
                    }
                }
                case HEX -> {
                    if (digit(b) || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F')) {
                        out.add(new Stack(need == 1 ? NORMAL : new Str(HEX, need - 1, 0, 0), rest));
                    }
                }
                default -> {
                    if (b >= lo && b <= hi) {
                        out.add(new Stack(need == 1 ? NORMAL : new Str(UTF8, need - 1, 0x80, 0xBF), rest));
                    }
                }
            }
        }

        private static void plain(int b, Stack rest, List<Stack> out) {
            if (b == '"') {
                out.add(rest);
            } else if (b == '\\') {
                out.add(new Stack(new Str(ESCAPE, 0, 0, 0), rest));
            } else if (b >= 0x20 && b < 0x80) {
                out.add(new Stack(NORMAL, rest));
            } else if (b >= 0xC2 && b <= 0xDF) {
                out.add(new Stack(new Str(UTF8, 1, 0x80, 0xBF), rest));
            } else if (b >= 0xE0 && b <= 0xEF) {
                out.add(new Stack(new Str(UTF8, 2, b == 0xE0 ? 0xA0 : 0x80, b == 0xED ? 0x9F : 0xBF), rest));
            } else if (b >= 0xF0 && b <= 0xF4) {
                out.add(new Stack(new Str(UTF8, 3, b == 0xF0 ? 0x90 : 0x80, b == 0xF4 ? 0x8F : 0xBF), rest));
            }
        }
    }

    /**
     * A number, {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?} (RFC 8259), or its integer part alone. Where it
     * may end, the byte is also offered to the stack below.
     */
    record Num(boolean integer, int phase) implements Task {
        static final int START = 0;
        static final int MINUS = 1;
        static final int ZERO = 2;
        static final int INT = 3;
        static final int DOT = 4;
        static final int FRACTION = 5;
        static final int E = 6;
        static final int SIGN = 7;
        static final int EXPONENT = 8;

        @Override
        public boolean canEnd() {
            return phase == ZERO || phase == INT || phase == FRACTION || phase == EXPONENT;
        }

        @Override
        public void feed(int b, Stack rest, List<Stack> out) {
            int next = next(b);
            if (next >= 0) {
                out.add(new Stack(next == phase ? this : new Num(integer, next), rest));
            }
            if (canEnd()) {
                Tasks.feed(rest, b, out);
            }
        }

        private int next(int b) {
            boolean d = digit(b);
            return switch (phase) {
                case START, MINUS -> b == '0' ? ZERO : d ? INT : b == '-' && phase == START ? MINUS : -1;
                case ZERO, INT -> d && phase == INT ? INT : integer ? -1 : b == '.' ? DOT
                        : b == 'e' || b == 'E' ? E : -1;
                case DOT -> d ? FRACTION : -1;
                case FRACTION -> d ? FRACTION : b == 'e' || b == 'E' ? E : -1;
                case E -> d ? EXPONENT : b == '+' || b == '-' ? SIGN : -1;
                default -> d ? EXPONENT : -1;
            };
        }
    }

    /**
     * Inside an object. With properties, keys come in the schema's order, an optional one may be left out, a
     * required one may not, and no other key is written; without, any key may come, each value of the map's grammar.
     *
     * @param node the object's grammar
     * @param phase where in the object
     * @param next the index of the first property that may still come
     * @param current the index of the property whose key was just read, -1 for a map's key
     * @param ws the whitespace gap so far ({@link #gap})
     */
    record Obj(Node.Obj node, int phase, int next, int current, int ws) implements Task {
        static final int OPEN = 0;
        static final int AFTER_VALUE = 1;
        static final int COMMA = 2;
        static final int AFTER_KEY = 3;
        static final int COLON = 4;

        @Override
        public void feed(int b, Stack rest, List<Stack> out) {
            if (whitespace(b)) {
                int g = gap(ws, b);
                if (g > 0) {
                    out.add(new Stack(new Obj(node, phase, next, current, g), rest));
                }
                return;
            }
            boolean map = node.properties.isEmpty();
            switch (phase) {
                case OPEN, COMMA -> {
                    if (b == '"') {
                        key(rest, out);
                    } else if (b == '}' && phase == OPEN && (map || node.restOptional(next))) {
                        out.add(rest);
                    }
                }
                case AFTER_VALUE -> {
                    if (b == '}' && (map || node.restOptional(next))) {
                        out.add(rest);
                    } else if (b == ',' && (map ? node.values != null : next < node.properties.size())) {
                        out.add(new Stack(new Obj(node, COMMA, next, -1, 0), rest));
                    }
                }
                case AFTER_KEY -> {
                    if (b == ':') {
                        out.add(new Stack(new Obj(node, COLON, next, current, 0), rest));
                    }
                }
                default -> {
                    Node value = current >= 0 ? node.properties.get(current).value() : node.values;
                    Tasks.feed(new Stack(new Value(value), new Stack(new Obj(node, AFTER_VALUE, next, -1, 0), rest)),
                            b, out);
                }
            }
        }

        private void key(Stack rest, List<Stack> out) {
            if (node.properties.isEmpty()) {
                if (node.values != null) {
                    out.add(new Stack(Str.NORMAL, new Stack(new Obj(node, AFTER_KEY, next, -1, 0), rest)));
                }
                return;
            }
            for (int j = next; j < node.properties.size(); j++) {
                Node.Property p = node.properties.get(j);
                out.add(new Stack(new Literal(p.key(), 1), new Stack(new Obj(node, AFTER_KEY, j + 1, j, 0), rest)));
                if (p.required()) {
                    break;
                }
            }
        }
    }

    /**
     * Inside an array: items of one grammar, separated by commas.
     *
     * @param node the array's grammar
     * @param phase {@link #OPEN}, {@link #AFTER_VALUE} or {@link #COMMA}
     * @param ws the whitespace gap so far ({@link #gap})
     */
    record Arr(Node.Arr node, int phase, int ws) implements Task {
        static final int OPEN = 0;
        static final int AFTER_VALUE = 1;
        static final int COMMA = 2;

        @Override
        public void feed(int b, Stack rest, List<Stack> out) {
            if (whitespace(b)) {
                int g = gap(ws, b);
                if (g > 0) {
                    out.add(new Stack(new Arr(node, phase, g), rest));
                }
                return;
            }
            if (phase == AFTER_VALUE) {
                if (b == ']') {
                    out.add(rest);
                } else if (b == ',') {
                    out.add(new Stack(new Arr(node, COMMA, 0), rest));
                }
                return;
            }
            if (b == ']' && phase == OPEN) {
                out.add(rest);
                return;
            }
            Tasks.feed(new Stack(new Value(node.items), new Stack(new Arr(node, AFTER_VALUE, 0), rest)), b, out);
        }
    }
}
