package org.attn4j.backend.cuda;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Element strides as the kernels consume them: merging of dims that every operand walks contiguously, and packing
 * into the by-value structs {@code Attn4jShape} and {@code Attn4jStrides} ({@link ParamType#SHAPE},
 * {@link ParamType#STRIDES}). The strides themselves (contiguous and broadcast) come from the spi's
 * {@link org.attn4j.api.spi.Strides}, shared with every backend.
 */
final class StridedLayout {
    /** Most dims a kernel struct holds ({@code ATTN4J_MAX_RANK}). */
    static final int MAX_RANK = 8;

    /**
     * A shape with one stride array per operand, all of the same rank.
     *
     * @param dims    the shape
     * @param strides {@code strides[operand][dim]} in elements; 0 on a broadcast dim
     */
    record Walk(int[] dims, int[][] strides) {
    }

    private StridedLayout() {
    }

    /**
     * Drops dims of size 1 and merges neighbours {@code d, d+1} that every operand walks contiguously
     * ({@code strides[d] == strides[d+1] * dims[d+1]}), so that a walk of any rank usually fits
     * {@link #MAX_RANK}. The flat row-major order of the walk is unchanged.
     *
     * @param dims    the shape walked
     * @param strides one stride array per operand, each of rank {@code dims.length}
     * @return the equivalent walk of lowest rank
     */
    static Walk collapse(int[] dims, int[]... strides) {
        List<Integer> keep = new ArrayList<>();
        for (int d = 0; d < dims.length; d++) {
            if (dims[d] != 1) {
                keep.add(d);
            }
        }
        List<int[]> outDims = new ArrayList<>();
        List<int[]> outStrides = new ArrayList<>();
        for (int d : keep) {
            if (!outDims.isEmpty()) {
                int[] last = outStrides.get(outStrides.size() - 1);
                boolean mergeable = true;
                for (int o = 0; o < strides.length; o++) {
                    mergeable &= (long) last[o] == (long) strides[o][d] * dims[d];
                }
                if (mergeable) {
                    int[] prev = outDims.get(outDims.size() - 1);
                    prev[0] = Math.multiplyExact(prev[0], dims[d]);
                    for (int o = 0; o < strides.length; o++) {
                        last[o] = strides[o][d];
                    }
                    continue;
                }
            }
            outDims.add(new int[] {dims[d]});
            int[] s = new int[strides.length];
            for (int o = 0; o < strides.length; o++) {
                s[o] = strides[o][d];
            }
            outStrides.add(s);
        }
        int rank = outDims.size();
        int[] newDims = new int[rank];
        int[][] newStrides = new int[strides.length][rank];
        for (int d = 0; d < rank; d++) {
            newDims[d] = outDims.get(d)[0];
            for (int o = 0; o < strides.length; o++) {
                newStrides[o][d] = outStrides.get(d)[o];
            }
        }
        return new Walk(newDims, newStrides);
    }

    /**
     * @param op   the op name for messages
     * @param dims a shape of rank at most {@link #MAX_RANK}
     * @return {@code Attn4jShape}: {@code [rank, dims..., 0...]}, {@code 1 + MAX_RANK} ints
     * @throws IllegalArgumentException naming the op and the shape if the rank exceeds {@link #MAX_RANK}
     */
    static int[] packShape(String op, int[] dims) {
        requireRank(op, dims);
        int[] packed = new int[1 + MAX_RANK];
        packed[0] = dims.length;
        System.arraycopy(dims, 0, packed, 1, dims.length);
        return packed;
    }

    /**
     * @param op      the op name for messages
     * @param strides strides of rank at most {@link #MAX_RANK}
     * @return {@code Attn4jStrides}: the strides padded with zeros to {@link #MAX_RANK} ints
     */
    static int[] packStrides(String op, int[] strides) {
        requireRank(op, strides);
        return Arrays.copyOf(strides, MAX_RANK);
    }

    private static void requireRank(String op, int[] dims) {
        if (dims.length > MAX_RANK) {
            throw new IllegalArgumentException(op + ": the CUDA kernels walk at most " + MAX_RANK
                    + " dims after merging contiguous ones, got " + Arrays.toString(dims));
        }
    }
}
