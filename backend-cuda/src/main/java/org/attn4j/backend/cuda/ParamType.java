package org.attn4j.backend.cuda;

/**
 * The type of one kernel parameter, as the host passes it and as the PTX declares it.
 *
 * <p>{@link #SHAPE} is the by-value struct {@code Attn4jShape {int rank; int dims[8];}} (36 bytes),
 * {@link #STRIDES} the struct {@code Attn4jStrides {int v[8];}} (32 bytes) and {@link #ROWS} the struct
 * {@code Attn4jRows {int first, heads, outer, head, row;}} (20 bytes) of {@code attn4j_common.cuh}.
 */
enum ParamType {
    /** A device pointer, PTX {@code .u64}. */
    POINTER(8),
    /** A 32-bit int, PTX {@code .u32}/{@code .s32}. */
    INT(4),
    /** A 64-bit int, PTX {@code .u64}/{@code .s64}. */
    LONG(8),
    /** A float, PTX {@code .f32}. */
    FLOAT(4),
    /** A double, PTX {@code .f64}. */
    DOUBLE(8),
    /** {@code Attn4jShape}, PTX {@code .align 4 .b8 [36]}. */
    SHAPE(4 * (1 + StridedLayout.MAX_RANK)),
    /** {@code Attn4jStrides}, PTX {@code .align 4 .b8 [32]}. */
    STRIDES(4 * StridedLayout.MAX_RANK),
    /** {@code Attn4jRows}, PTX {@code .align 4 .b8 [20]}. */
    ROWS(20);

    private final int bytes;

    ParamType(int bytes) {
        this.bytes = bytes;
    }

    /** @return the size in bytes the kernel reads for this parameter */
    int bytes() {
        return bytes;
    }
}
