package org.attn4j.api;

import java.util.Arrays;

/**
 * A boolean attention mask held on the host: {@code true} means the query <em>may attend</em> to the key. This
 * is the convention of PyTorch's {@code F.scaled_dot_product_attention}; PyTorch's {@code nn.MultiheadAttention}
 * uses the opposite ({@code true} = ignore), so invert such masks before passing them here.
 *
 * <p>A mask's shape is broadcast against the attention logits {@code [..., Lq, Lk]} by numpy rules.
 */
public final class Mask {
    private final Shape shape;
    private final boolean[] allowed;

    private Mask(Shape shape, boolean[] allowed) {
        this.shape = shape;
        this.allowed = allowed;
    }

    /**
     * @param shape the mask's shape, broadcastable to {@code [..., Lq, Lk]}
     * @param allowed row-major flags, {@code true} = may attend; not modified (copied)
     * @return the mask
     * @throws IllegalArgumentException if the number of flags differs from {@code shape.size()}
     */
    public static Mask of(Shape shape, boolean[] allowed) {
        if (shape == null || allowed == null) {
            throw new IllegalArgumentException("Mask.of: argument " + (shape == null ? "shape" : "allowed")
                    + " is null");
        }
        if (allowed.length != shape.size()) {
            throw new IllegalArgumentException("Mask.of: argument allowed has " + allowed.length
                    + " flags but shape " + shape + " needs " + shape.size());
        }
        return new Mask(shape, allowed.clone());
    }

    /**
     * The causal mask, aligned top-left like PyTorch's {@code is_causal} and {@code tril}: query {@code i} may
     * attend to key {@code j} iff {@code j <= i}.
     *
     * @param queries {@code Lq}
     * @param keys {@code Lk}
     * @return a {@code [Lq, Lk]} lower-triangular mask
     */
    public static Mask causal(int queries, int keys) {
        Shape s = fits("Mask.causal", Shape.of(queries, keys));
        boolean[] a = new boolean[queries * keys];
        for (int i = 0; i < queries; i++) {
            for (int j = 0; j <= Math.min(i, keys - 1); j++) {
                a[i * keys + j] = true;
            }
        }
        return new Mask(s, a);
    }

    /**
     * A key-padding mask: in batch item {@code b} the keys {@code [0, validLengths[b])} may be attended to and the
     * rest are padding.
     *
     * @param validLengths per batch item, each in {@code [0, keys]}; not modified
     * @param keys {@code Lk}
     * @return a {@code [B, 1, 1, Lk]} mask, broadcastable over heads and queries
     */
    public static Mask keyPadding(int[] validLengths, int keys) {
        if (validLengths == null) {
            throw new IllegalArgumentException("Mask.keyPadding: argument validLengths is null");
        }
        Shape s = fits("Mask.keyPadding", Shape.of(validLengths.length, 1, 1, keys));
        boolean[] a = new boolean[validLengths.length * keys];
        for (int b = 0; b < validLengths.length; b++) {
            if (validLengths[b] < 0 || validLengths[b] > keys) {
                throw new IllegalArgumentException("Mask.keyPadding: validLengths[" + b + "] is " + validLengths[b]
                        + " but must lie in [0, " + keys + "]");
            }
            Arrays.fill(a, b * keys, b * keys + validLengths[b], true);
        }
        return new Mask(s, a);
    }

    /** A mask holds one flag per position in a Java array, so at most {@value #MAX_SIZE} positions. */
    private static final int MAX_SIZE = Integer.MAX_VALUE - 8;

    private static Shape fits(String op, Shape shape) {
        if (shape.size() > MAX_SIZE) {
            throw new IllegalArgumentException(op + ": a mask of shape " + shape + " needs " + shape.size()
                    + " bytes of flags, more than the " + MAX_SIZE + " one Mask holds; for causal attention use"
                    + " AttentionOptions.withCausal(true), which needs no mask");
        }
        return shape;
    }

    /** @return the mask's shape */
    public Shape shape() {
        return shape;
    }

    /**
     * @param flatIndex a row-major index in {@code [0, shape().size())}
     * @return whether that position may be attended to
     */
    public boolean allowed(int flatIndex) {
        return allowed[flatIndex];
    }

    /** @return a copy of the row-major flags */
    public boolean[] toArray() {
        return allowed.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Mask m && shape.equals(m.shape) && Arrays.equals(allowed, m.allowed);
    }

    @Override
    public int hashCode() {
        return 31 * shape.hashCode() + Arrays.hashCode(allowed);
    }

    @Override
    public String toString() {
        return "Mask" + shape;
    }
}
