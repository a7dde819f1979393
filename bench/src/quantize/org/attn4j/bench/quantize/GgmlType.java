package org.attn4j.bench.quantize;

/**
 * The ggml tensor types a mix of {@link LlamaCppMix} can give a tensor, with their {@code enum ggml_type} numbers and
 * block sizes (the numbers along a row that one block holds; a row's length must be a multiple of it).
 */
enum GgmlType {
    /** 32-bit floats: the source of every tensor, and what vectors stay. */
    F32(0, 1),
    /** Half precision: the fallback when a row is not even a whole number of 32-number blocks. */
    F16(1, 1),
    /** Five bits, a scale per 32. */
    Q5_0(6, 32),
    /** Five bits, a scale and a minimum per 32. */
    Q5_1(7, 32),
    /** Eight bits, a scale per 32. */
    Q8_0(8, 32),
    /** Super-blocks of 256: eight blocks of 32 with 6-bit scales and minimums, 4-bit numbers. */
    Q4_K(12, 256),
    /** As Q4_K with 5-bit numbers. */
    Q5_K(13, 256),
    /** Super-blocks of 256: sixteen blocks of 16 with 8-bit scales, 6-bit numbers. */
    Q6_K(14, 256);

    private final int code;
    private final int blockSize;

    GgmlType(int code, int blockSize) {
        this.code = code;
        this.blockSize = blockSize;
    }

    /** @return its {@code enum ggml_type} number */
    int code() {
        return code;
    }

    /** @return the numbers one block holds */
    int blockSize() {
        return blockSize;
    }
}
