package org.attn4j.models.grammar;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One value's grammar, as a JSON schema compiles to it. Nodes compare by identity: a {@code $ref} cycle makes the
 * graph cyclic.
 */
abstract class Node {

    /** Any JSON value. */
    static final Node ANY = new Node() {
    };

    /** A string: any characters, escapes and {@code \}{@code uXXXX} included. */
    static final Node STRING = new Node() {
    };

    /** A number as RFC 8259 writes it. */
    static final Node NUMBER = new Node() {
    };

    /** An integer: a number without fraction or exponent. */
    static final Node INTEGER = new Node() {
    };

    /**
     * An object whose keys are {@code properties} in their order, each required one present, and no other key; or,
     * with no properties, keys of any name whose values are {@code values}.
     */
    static final class Obj extends Node {
        final List<Property> properties;
        final Node values;

        /**
         * @param properties the listed properties, in the order they are written
         * @param values the grammar of every value of a map (no properties); null: no key beyond the properties
         */
        Obj(List<Property> properties, Node values) {
            this.properties = List.copyOf(properties);
            this.values = values;
        }

        /** @return whether the properties from {@code from} on may all be left out */
        boolean restOptional(int from) {
            for (int i = from; i < properties.size(); i++) {
                if (properties.get(i).required) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * A property of an {@link Obj}.
     *
     * @param key the key as written, quotes included ({@code "name"} as JSON encodes it), UTF-8
     */
    record Property(byte[] key, Node value, boolean required) {
    }

    /** An array whose items are {@code items}. */
    static final class Arr extends Node {
        final Node items;

        Arr(Node items) {
            this.items = items;
        }
    }

    /** Exactly one text: {@code true}, {@code null}, an enum's value written as compact JSON. */
    static final class Literal extends Node {
        final byte[] text;

        Literal(String text) {
            this.text = text.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Any of several grammars. */
    static final class AnyOf extends Node {
        final List<Node> alternatives;

        AnyOf(List<Node> alternatives) {
            this.alternatives = List.copyOf(alternatives);
        }
    }

    /** Several grammars one after the other: literal text around a value, say. */
    static final class Sequence extends Node {
        final List<Node> parts;

        Sequence(List<Node> parts) {
            this.parts = List.copyOf(parts);
        }
    }

    /** A {@code $ref}, bound once the whole schema has compiled. */
    static final class Ref extends Node {
        final String target;
        Node bound;

        Ref(String target) {
            this.target = target;
        }
    }

    /** @return the node a reference chain ends at */
    Node resolve() {
        Node n = this;
        int hops = 0;
        while (n instanceof Ref r) {
            n = r.bound;
            if (++hops > 64 || n == null) {
                throw new IllegalStateException("grammar: $ref '" + r.target + "' does not resolve to a schema");
            }
        }
        return n;
    }
}
