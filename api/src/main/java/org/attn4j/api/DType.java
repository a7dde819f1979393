package org.attn4j.api;

/** The element type of a {@link Tensor}. Every backend computes {@link #F32}; {@link #F64} where it can. */
public enum DType {
    /** IEEE 754 binary32. */
    F32(4),
    /** IEEE 754 binary64. */
    F64(8);

    private final int byteSize;

    DType(int byteSize) {
        this.byteSize = byteSize;
    }

    /** @return the number of bytes one element occupies */
    public int byteSize() {
        return byteSize;
    }
}
