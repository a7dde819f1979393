package org.attn4j.api;

import java.util.Arrays;

/**
 * The immutable dimensions of a row-major tensor, outermost first. A scalar has rank 0 and size 1.
 * Every dimension is at least 1.
 */
public final class Shape {
    private static final Shape SCALAR = new Shape(new int[0]);

    private final int[] dims;
    private final long size;

    private Shape(int[] dims) {
        this.dims = dims;
        long n = 1;
        for (int d : dims) {
            if (n > Long.MAX_VALUE / d) {
                throw new IllegalArgumentException("Shape: " + Arrays.toString(dims) + " has more than 2^63 - 1"
                        + " elements");
            }
            n *= d;
        }
        this.size = n;
    }

    /**
     * @param dims the dimensions, outermost first; not modified
     * @return the shape with those dimensions
     * @throws IllegalArgumentException if {@code dims} is null, a dimension is below 1, or the size passes 2^63 - 1
     */
    public static Shape of(int... dims) {
        if (dims == null) {
            throw new IllegalArgumentException("Shape: argument dims is null");
        }
        if (dims.length == 0) {
            return SCALAR;
        }
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] < 1) {
                throw new IllegalArgumentException("Shape: dimension " + i + " of " + Arrays.toString(dims)
                        + " is " + dims[i] + "; every dimension must be at least 1");
            }
        }
        return new Shape(dims.clone());
    }

    /** @return the shape of a rank-0 tensor */
    public static Shape scalar() {
        return SCALAR;
    }

    /** @return the number of dimensions */
    public int rank() {
        return dims.length;
    }

    /**
     * @param axis an axis in {@code [-rank, rank)}; negative counts from the end
     * @return the size of that axis
     */
    public int dim(int axis) {
        return dims[normalizeAxis(axis)];
    }

    /** @return the number of elements (the product of the dimensions) */
    public long size() {
        return size;
    }

    /** @return a copy of the dimensions */
    public int[] toArray() {
        return dims.clone();
    }

    /**
     * @param axis an axis in {@code [-rank, rank)}
     * @return the same axis in {@code [0, rank)}
     * @throws IllegalArgumentException if the axis is out of range
     */
    public int normalizeAxis(int axis) {
        int a = axis < 0 ? axis + dims.length : axis;
        if (a < 0 || a >= dims.length) {
            throw new IllegalArgumentException("axis " + axis + " is out of range for shape " + this
                    + " of rank " + dims.length);
        }
        return a;
    }

    /**
     * @param axis an axis in {@code [-rank, rank)}
     * @return the number of elements between two neighbours along that axis (row-major stride)
     */
    public long stride(int axis) {
        long s = 1;
        for (int i = dims.length - 1; i > normalizeAxis(axis); i--) {
            s *= dims[i];
        }
        return s;
    }

    /**
     * @param from first axis, inclusive
     * @param to last axis, exclusive
     * @return the shape made of the axes {@code [from, to)}
     */
    public Shape slice(int from, int to) {
        return of(Arrays.copyOfRange(dims, from, to));
    }

    /**
     * @param more dimensions to append
     * @return this shape followed by {@code more}
     */
    public Shape append(int... more) {
        int[] all = Arrays.copyOf(dims, dims.length + more.length);
        System.arraycopy(more, 0, all, dims.length, more.length);
        return of(all);
    }

    /**
     * Numpy broadcasting: the shapes are aligned at their last axis and each pair of sizes must be equal or 1;
     * the result takes the larger of each pair.
     *
     * @param other the other shape
     * @return the shape both broadcast to
     * @throws IllegalArgumentException naming both shapes and the first axis where they disagree
     */
    public Shape broadcast(Shape other) {
        int rank = Math.max(rank(), other.rank());
        int[] out = new int[rank];
        for (int i = 0; i < rank; i++) {
            int da = i < rank - rank() ? 1 : dim(i - (rank - rank()));
            int db = i < rank - other.rank() ? 1 : other.dim(i - (rank - other.rank()));
            if (da != db && da != 1 && db != 1) {
                throw new IllegalArgumentException("shape " + other + " does not broadcast against shape " + this
                        + " (sizes " + da + " and " + db + " at result axis " + i + ")");
            }
            out[i] = Math.max(da, db);
        }
        return Shape.of(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Shape other && Arrays.equals(dims, other.dims);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(dims);
    }

    /** @return the dimensions as {@code [2, 3]} */
    @Override
    public String toString() {
        return Arrays.toString(dims);
    }
}
