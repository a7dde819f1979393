package org.attn4j.backend.cuda;

/**
 * Where the rows of a set of {@code [rows, d]} matrices lie in device memory, the kernels' {@code Attn4jRows}: row
 * {@code i} of problem {@code p} starts at element {@code first + (p / heads)·outer + (p % heads)·head + i·row}.
 *
 * @param first the element where row 0 of problem 0 starts
 * @param heads problems per outer step
 * @param outer elements between outer steps
 * @param head elements between consecutive problems of one outer step
 * @param row elements between consecutive rows
 */
record RowLayout(int first, int heads, int outer, int head, int row) {

    /**
     * @param problems {@code P}
     * @param length rows per problem
     * @param d elements per row
     * @return the layout of a contiguous {@code [P, length, d]}
     */
    static RowLayout contiguous(int problems, int length, int d) {
        return new RowLayout(0, problems, 0, Math.multiplyExact(length, d), d);
    }

    /**
     * The heads of a packed {@code [B, L, width]} array: head {@code h} of batch item {@code b} is the {@code [L, d]}
     * matrix at column {@code column + h·d}, rows {@code width} apart.
     *
     * @param column the column where head 0 starts
     * @param heads heads per batch item
     * @param length {@code L}
     * @param d the head's width
     * @param width the row length of the packed array
     * @return its layout
     */
    static RowLayout packed(int column, int heads, int length, int d, int width) {
        return new RowLayout(column, heads, Math.multiplyExact(length, width), d, width);
    }

    /**
     * @param p a problem
     * @param i a row
     * @return the offset of row {@code i} of problem {@code p}, in elements
     */
    long offset(int p, int i) {
        return first + (long) (p / heads) * outer + (long) (p % heads) * head + (long) i * row;
    }

    /** @return the struct's five ints in declaration order */
    int[] pack() {
        return new int[] {first, heads, outer, head, row};
    }
}
