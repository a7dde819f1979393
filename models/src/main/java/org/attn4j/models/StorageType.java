package org.attn4j.models;

import java.nio.ByteBuffer;
import org.attn4j.api.DType;

/**
 * The element type a {@link HostTensor} keeps its values in: the dtype of the file it came from, or F32/F64 for
 * values built in Java. Half-precision values are converted only when a tensor is uploaded or read.
 */
public enum StorageType {
    /** IEEE 754 binary16. */
    F16(2),
    /** bfloat16: the upper half of a binary32. */
    BF16(2),
    /** IEEE 754 binary32. */
    F32(4),
    /** IEEE 754 binary64. */
    F64(8);

    private final int byteSize;

    StorageType(int byteSize) {
        this.byteSize = byteSize;
    }

    /** @return the number of bytes one element occupies */
    public int byteSize() {
        return byteSize;
    }

    /** @return the compute dtype that holds every value of this type exactly: F64 for F64, else F32 */
    public DType exactDType() {
        return this == F64 ? DType.F64 : DType.F32;
    }

    /**
     * @param dtype a compute dtype
     * @return the storage type of the same name
     */
    public static StorageType of(DType dtype) {
        return dtype == DType.F64 ? F64 : F32;
    }

    double read(ByteBuffer littleEndian, int index) {
        return switch (this) {
            case F16 -> halfToFloat(littleEndian.getShort(index * 2));
            case BF16 -> Float.intBitsToFloat((littleEndian.getShort(index * 2) & 0xffff) << 16);
            case F32 -> littleEndian.getFloat(index * 4);
            case F64 -> littleEndian.getDouble(index * 8);
        };
    }

    /**
     * @param bits an IEEE 754 binary16 value
     * @return the same value as a float (every binary16 value is exact in binary32)
     */
    static float halfToFloat(short bits) {
        int h = bits & 0xffff;
        int sign = (h & 0x8000) << 16;
        int exponent = (h >>> 10) & 0x1f;
        int mantissa = h & 0x3ff;
        if (exponent == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13));
        }
        if (exponent == 0) {
            float subnormal = mantissa * 0x1p-24f;
            return sign == 0 ? subnormal : -subnormal;
        }
        return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
    }
}
