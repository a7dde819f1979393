package org.attn4j.models.tutorial;

import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/** Helpers for picking one position out of a sequence {@code [.., L, d]}. */
final class Sequences {

    private Sequences() {
    }

    /**
     * @param ops where the result lands
     * @param x {@code [.., L, d]}
     * @param position an index in {@code [0, L)}, already checked
     * @return {@code x[.., position:position+1, :]}, shape {@code [.., 1, d]}
     */
    static Tensor row(Ops ops, Tensor x, int position) {
        int length = x.shape().dim(-2);
        int[] sizes = position == 0 ? (length == 1 ? new int[] {1} : new int[] {1, length - 1})
                : position == length - 1 ? new int[] {position, 1} : new int[] {position, 1, length - position - 1};
        return ops.split(x, sizes, -2).get(position == 0 ? 0 : 1);
    }

    /**
     * @param s a shape
     * @param axis an axis, possibly negative
     * @return the dims of {@code s} without {@code axis}
     */
    static int[] without(Shape s, int axis) {
        int a = s.normalizeAxis(axis);
        int[] d = new int[s.rank() - 1];
        for (int i = 0, j = 0; i < s.rank(); i++) {
            if (i != a) {
                d[j++] = s.dim(i);
            }
        }
        return d;
    }

    /**
     * @param x the tensor the position indexes
     * @param position the requested position
     * @param op the caller, for the message
     */
    static void checkPosition(Tensor x, int position, String op) {
        int length = x.shape().rank() < 2 ? 0 : x.shape().dim(-2);
        if (position < 0 || position >= length) {
            throw new IllegalArgumentException(op + ": argument position is " + position + " but x of shape "
                    + x.shape() + " has positions [0, " + length + ")");
        }
    }
}
