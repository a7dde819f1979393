package org.attn4j.backend.ejml;

import org.attn4j.api.Shape;

/** Index arithmetic for row-major arrays: broadcast strides and the flat offsets they generate. */
final class Strides {

    private Strides() {
    }

    /**
     * @param in a shape that broadcasts to {@code out} (numpy rules, aligned at the last axis)
     * @param out the target shape
     * @return for each axis of {@code out}, the step in {@code in}'s flat array; 0 where {@code in} is broadcast
     */
    static int[] broadcast(Shape in, Shape out) {
        int rank = out.rank();
        int[] strides = new int[rank];
        int step = 1;
        for (int i = 1; i <= in.rank(); i++) {
            int d = in.dim(-i);
            strides[rank - i] = d == 1 ? 0 : step;
            step *= d;
        }
        return strides;
    }

    /**
     * @param x a shape
     * @return the row-major stride of each axis
     */
    static int[] of(Shape x) {
        int[] strides = new int[x.rank()];
        int step = 1;
        for (int i = x.rank() - 1; i >= 0; i--) {
            strides[i] = step;
            step *= x.dim(i);
        }
        return strides;
    }

    /**
     * Walks {@code space} in row-major order and returns, for each index {@code (i0, i1, ...)}, the offset
     * {@code Σ i_d · strides[d]}.
     *
     * @param space the index space
     * @param strides one step per axis of {@code space}
     * @return {@code space.size()} offsets
     */
    static int[] offsets(Shape space, int[] strides) {
        int rank = space.rank();
        int[] dims = space.toArray();
        int[] out = new int[(int) space.size()];
        int[] index = new int[rank];
        int offset = 0;
        for (int i = 0; i < out.length; i++) {
            out[i] = offset;
            for (int d = rank - 1; d >= 0; d--) {
                if (++index[d] < dims[d]) {
                    offset += strides[d];
                    break;
                }
                offset -= strides[d] * (dims[d] - 1);
                index[d] = 0;
            }
        }
        return out;
    }
}
