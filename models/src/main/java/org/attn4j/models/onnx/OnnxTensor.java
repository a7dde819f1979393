package org.attn4j.models.onnx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;

/**
 * One tensor of an ONNX file (an initializer or a constant): its name, element type, dims and row-major values.
 * The values stay in the file's bytes (little-endian, as ONNX's {@code raw_data}) until asked for, so a large
 * model read through {@link OnnxModel#read(java.nio.file.Path)} is not copied onto the heap; the typed fields
 * ({@code float_data}, {@code int64_data}, …) of small tensors are converted to that same layout when read.
 * Immutable.
 */
public final class OnnxTensor {
    private final String name;
    private final OnnxDataType dataType;
    private final long[] dims;
    private final long elements;
    private final ByteBuffer data;

    /**
     * @param name the tensor's name
     * @param dataType its element type
     * @param dims its dims, each ≥ 0 (none for a scalar)
     * @param data its values, little-endian, exactly {@code elements × dataType.bytes()} bytes from position 0 to
     *     the limit; {@code null} for types without a fixed size
     */
    OnnxTensor(String name, OnnxDataType dataType, long[] dims, ByteBuffer data) {
        this.name = name;
        this.dataType = dataType;
        this.dims = dims.clone();
        this.elements = elementCount(name, dims);
        if (data != null && (long) data.remaining() != elements * dataType.bytes()) {
            throw new IllegalArgumentException("ONNX: tensor '" + name + "' of " + dataType + Arrays.toString(dims)
                    + " needs " + elements * dataType.bytes() + " bytes but holds " + data.remaining());
        }
        this.data = data == null ? null : data.slice().asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * @param name a new name
     * @param dims row-major dims
     * @param values row-major values; not modified (copied)
     * @return a {@link OnnxDataType#FLOAT} tensor holding them
     * @throws IllegalArgumentException if a dim is negative or the count of values differs from the dims' product
     */
    public static OnnxTensor ofFloats(String name, long[] dims, float[] values) {
        ByteBuffer b = ByteBuffer.allocate(Math.multiplyExact(values.length, 4)).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return new OnnxTensor(name, OnnxDataType.FLOAT, dims, b);
    }

    /**
     * @param name a new name
     * @param dims row-major dims
     * @param bytes row-major little-endian floats from position 0, now owned by the tensor (not copied)
     * @return a {@link OnnxDataType#FLOAT} tensor over them
     */
    static OnnxTensor ofFloatBytes(String name, long[] dims, ByteBuffer bytes) {
        return new OnnxTensor(name, OnnxDataType.FLOAT, dims, bytes);
    }

    static long elementCount(String name, long[] dims) {
        long n = 1;
        for (long d : dims) {
            if (d < 0) {
                throw new IllegalArgumentException("ONNX: tensor '" + name + "' has a negative dim in "
                        + Arrays.toString(dims));
            }
            try {
                n = Math.multiplyExact(n, d);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("ONNX: tensor '" + name + "' dims " + Arrays.toString(dims)
                        + " overflow a 64-bit element count", e);
            }
        }
        return n;
    }

    /** @return the name, as in the file */
    public String name() {
        return name;
    }

    /** @return the element type */
    public OnnxDataType dataType() {
        return dataType;
    }

    /** @return a copy of the dims (empty for a scalar) */
    public long[] dims() {
        return dims.clone();
    }

    /**
     * @return the dims as ints, for {@code org.attn4j.api.Shape.of(...)}
     * @throws IllegalArgumentException if a dim exceeds {@code Integer.MAX_VALUE}
     */
    public int[] intDims() {
        int[] out = new int[dims.length];
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("ONNX: tensor '" + name + "' dim " + i + " = " + dims[i]
                        + " exceeds Integer.MAX_VALUE");
            }
            out[i] = (int) dims[i];
        }
        return out;
    }

    /** @return the number of elements, the product of the dims */
    public long elementCount() {
        return elements;
    }

    /**
     * The values as bytes without a copy, for a loader that keeps the file's element type (for example
     * {@code HostTensor.wrap(shape, type, bytes)}).
     *
     * @return a read-only little-endian view, position 0, {@code elementCount() × dataType().bytes()} remaining
     * @throws IllegalStateException if the type has no fixed size (STRING, COMPLEX64, COMPLEX128)
     */
    public ByteBuffer bytes() {
        if (data == null) {
            throw new IllegalStateException("ONNX: tensor '" + name + "' is " + dataType + ", which attn4j holds no"
                    + " bytes for");
        }
        return data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * A view of the values without a copy: a read-only buffer over the file's bytes.
     *
     * @return the row-major values, position 0, {@link #elementCount()} remaining
     * @throws IllegalStateException if the type is not {@link OnnxDataType#FLOAT} (use {@link #toFloatArray()})
     */
    public FloatBuffer floatBuffer() {
        if (dataType != OnnxDataType.FLOAT) {
            throw new IllegalStateException("ONNX: tensor '" + name + "' is " + dataType
                    + ", not FLOAT; toFloatArray() converts it");
        }
        return data.duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    }

    /**
     * @return the row-major values as floats: FLOAT as is, FLOAT16 and BFLOAT16 widened exactly, DOUBLE rounded to
     *     the nearest float
     * @throws IllegalStateException if the type is not floating point, or has more than {@code Integer.MAX_VALUE}
     *     elements
     */
    public float[] toFloatArray() {
        if (!dataType.isFloatingPoint()) {
            throw new IllegalStateException("ONNX: tensor '" + name + "' is " + dataType + ", not floating point");
        }
        int n = arrayLength();
        if (n == 0) {
            return new float[0];
        }
        WeightType type = switch (dataType) {
            case FLOAT16 -> WeightType.F16;
            case BFLOAT16 -> WeightType.BF16;
            case DOUBLE -> WeightType.F64;
            default -> WeightType.F32;
        };
        return HostTensor.wrap(Shape.of(n), type, bytes()).toFloatArray();
    }

    /**
     * @return the row-major values of an integer or boolean tensor, widened to long (UINT64 above
     *     {@code Long.MAX_VALUE} wraps, as Java's unsigned convention)
     * @throws IllegalStateException if the type is not an integer type, or has more than
     *     {@code Integer.MAX_VALUE} elements
     */
    public long[] toLongArray() {
        if (!dataType.isInteger()) {
            throw new IllegalStateException("ONNX: tensor '" + name + "' is " + dataType + ", not an integer type");
        }
        long[] out = new long[arrayLength()];
        ByteBuffer b = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < out.length; i++) {
            out[i] = switch (dataType) {
                case UINT8, BOOL -> b.get(i) & 0xFFL;
                case INT8 -> b.get(i);
                case UINT16 -> b.getShort(i * 2) & 0xFFFFL;
                case INT16 -> b.getShort(i * 2);
                case INT32 -> b.getInt(i * 4);
                case UINT32 -> b.getInt(i * 4) & 0xFFFFFFFFL;
                default -> b.getLong(i * 8);
            };
        }
        return out;
    }

    private int arrayLength() {
        if (elements > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("ONNX: tensor '" + name + "' has " + elements
                    + " elements, more than a Java array holds");
        }
        return (int) elements;
    }

    @Override
    public String toString() {
        return name + ": " + dataType + Arrays.toString(dims);
    }
}
