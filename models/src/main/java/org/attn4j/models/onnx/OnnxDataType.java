package org.attn4j.models.onnx;

/**
 * The element types of ONNX's {@code TensorProto.DataType}, with their wire numbers and sizes in bytes.
 * {@link #STRING} and the complex types have no fixed size that attn4j reads.
 */
public enum OnnxDataType {
    /** 32-bit IEEE float. */
    FLOAT(1, 4),
    /** Unsigned 8-bit integer. */
    UINT8(2, 1),
    /** Signed 8-bit integer. */
    INT8(3, 1),
    /** Unsigned 16-bit integer. */
    UINT16(4, 2),
    /** Signed 16-bit integer. */
    INT16(5, 2),
    /** Signed 32-bit integer. */
    INT32(6, 4),
    /** Signed 64-bit integer. */
    INT64(7, 8),
    /** UTF-8 strings (not readable as numbers). */
    STRING(8, 0),
    /** Booleans, one byte each. */
    BOOL(9, 1),
    /** 16-bit IEEE half precision. */
    FLOAT16(10, 2),
    /** 64-bit IEEE float. */
    DOUBLE(11, 8),
    /** Unsigned 32-bit integer. */
    UINT32(12, 4),
    /** Unsigned 64-bit integer. */
    UINT64(13, 8),
    /** Two 32-bit floats (not readable as numbers). */
    COMPLEX64(14, 0),
    /** Two 64-bit floats (not readable as numbers). */
    COMPLEX128(15, 0),
    /** bfloat16: the upper half of a 32-bit float. */
    BFLOAT16(16, 2);

    private final int code;
    private final int bytes;

    OnnxDataType(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** @return the number in {@code TensorProto.data_type} */
    public int code() {
        return code;
    }

    /** @return bytes per element in {@code raw_data}, 0 where attn4j reads no numbers */
    public int bytes() {
        return bytes;
    }

    /** @return whether {@link OnnxTensor#toFloatArray()} reads this type */
    public boolean isFloatingPoint() {
        return this == FLOAT || this == FLOAT16 || this == BFLOAT16 || this == DOUBLE;
    }

    /** @return whether {@link OnnxTensor#toLongArray()} reads this type */
    public boolean isInteger() {
        return bytes > 0 && !isFloatingPoint();
    }

    /**
     * @param code a {@code TensorProto.data_type} number
     * @return its type
     * @throws IllegalArgumentException if the number names no type (0 is UNDEFINED)
     */
    public static OnnxDataType of(int code) {
        for (OnnxDataType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("ONNX: data_type " + code + " is not one of FLOAT(1) … BFLOAT16(16)");
    }
}
