package org.attn4j.api.spi;

import org.attn4j.api.Shape;

/**
 * Index arithmetic for row-major arrays, written once for every backend: contiguous strides, the strides that read
 * an operand broadcast to a larger shape (numpy rules), and the flat offsets a set of strides generates.
 */
public final class Strides {

    private Strides() {
    }

    /**
     * @param x a shape
     * @return its row-major strides in elements: {@code strides[i] = dim(i+1) · … · dim(rank-1)}
     * @throws ArithmeticException if a stride exceeds {@code int}
     */
    public static int[] contiguous(Shape x) {
        int[] strides = new int[x.rank()];
        long step = 1;
        for (int i = x.rank() - 1; i >= 0; i--) {
            strides[i] = Math.toIntExact(step);
            step *= x.dim(i);
        }
        return strides;
    }

    /**
     * Strides that read a contiguous operand as if it had the shape {@code target}.
     *
     * @param op the op name for the message
     * @param argument the argument name for the message
     * @param operand the operand's shape, broadcastable to {@code target} (aligned at the last axis)
     * @param target the shape to read it as
     * @return for each axis of {@code target}, the step in the operand's flat array; 0 where it is broadcast
     * @throws IllegalArgumentException naming the op, the argument and both shapes if it does not broadcast
     */
    public static int[] broadcast(String op, String argument, Shape operand, Shape target) {
        if (operand.rank() > target.rank()) {
            throw new IllegalArgumentException(op + ": " + argument + " shape " + operand
                    + " has more dims than the shape " + target + " it must broadcast to");
        }
        int[] own = contiguous(operand);
        int[] strides = new int[target.rank()];
        int lead = target.rank() - operand.rank();
        for (int i = 0; i < operand.rank(); i++) {
            int d = operand.dim(i);
            if (d == target.dim(lead + i)) {
                strides[lead + i] = d == 1 ? 0 : own[i];
            } else if (d != 1) {
                throw new IllegalArgumentException(op + ": " + argument + " shape " + operand
                        + " does not broadcast to " + target);
            }
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
    public static int[] offsets(Shape space, int[] strides) {
        int rank = space.rank();
        int[] dims = space.toArray();
        int[] out = new int[Math.toIntExact(space.size())];
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
