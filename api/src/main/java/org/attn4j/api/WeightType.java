package org.attn4j.api;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * How a {@link Weight} stores its values: one element per number ({@link #F32}, {@link #F64}, {@link #F16},
 * {@link #BF16}), or GGUF's blocks of 32 numbers along a row, each with one binary16 scale {@code d}
 * ({@link #Q8_0}, {@link #Q4_0}). Bytes are little-endian, rows follow each other, and a row's blocks follow each
 * other, exactly as in a GGUF file:
 * <pre>
 *   Q8_0 block (34 bytes): d: binary16, q[32]: int8             value i = q[i] · d
 *   Q4_0 block (18 bytes): d: binary16, n[16]: packed nibbles   value i = ((n[i] &amp; 0xF) - 8) · d        for i &lt; 16
 *                                                               value i = ((n[i-16] &gt;&gt; 4) - 8) · d    for i ≥ 16
 * </pre>
 * {@link #encode} quantizes as GGUF's reference does ({@code quantize_row_q8_0_ref}, {@code quantize_row_q4_0_ref}):
 * <pre>
 *   Q8_0: d = max|x| / 127,  q[i] = round(x[i] / d), halves away from zero
 *   Q4_0: m = the x of largest |x| (the first one on ties), d = m / -8,  q[i] = min(15, trunc(x[i] / d + 8.5))
 * </pre>
 * with {@code 1/d} taken as 0 for an all-zero block, and {@code d} rounded to binary16 (to nearest, ties to even)
 * only when stored, so {@link #decode} of {@link #encode} multiplies by the stored scale. {@link #BF16} and
 * {@link #F16} round to nearest, ties to even, as PyTorch's {@code .to(torch.bfloat16)} / {@code .half()} do.
 */
public enum WeightType {
    /** IEEE 754 binary32. */
    F32(1, 4),
    /** IEEE 754 binary64; the only type that meets {@link DType#F64} activations. */
    F64(1, 8),
    /** IEEE 754 binary16. */
    F16(1, 2),
    /** bfloat16: the upper half of a binary32. */
    BF16(1, 2),
    /** GGUF's Q8_0: blocks of 32 int8 values and a binary16 scale, 8.5 bits per number. */
    Q8_0(32, 34),
    /** GGUF's Q4_0: blocks of 32 four-bit values offset by 8 and a binary16 scale, 4.5 bits per number. */
    Q4_0(32, 18);

    private final int blockSize;
    private final int blockBytes;

    WeightType(int blockSize, int blockBytes) {
        this.blockSize = blockSize;
        this.blockBytes = blockBytes;
    }

    /** @return how many numbers share one block: 1 for the plain floats, 32 for the quantized types */
    public int blockSize() {
        return blockSize;
    }

    /** @return the bytes of one block */
    public int blockBytes() {
        return blockBytes;
    }

    /** @return whether values are stored as blocks with a shared scale */
    public boolean isQuantized() {
        return blockSize > 1;
    }

    /**
     * @param shape {@code [rows, columns]}; {@code columns} a multiple of {@link #blockSize()}
     * @return the bytes of a weight of that shape
     * @throws IllegalArgumentException if the shape is not of rank 2 or its rows do not split into whole blocks
     */
    public long byteSize(Shape shape) {
        checkShape("byteSize", shape);
        return shape.dim(0) * rowBytes(shape.dim(1));
    }

    /**
     * @param columns the numbers of one row, a multiple of {@link #blockSize()}
     * @return the bytes of one row
     */
    public long rowBytes(int columns) {
        return (long) (columns / blockSize) * blockBytes;
    }

    /**
     * Checks that a shape can be stored in this type.
     *
     * @param op the op name for the message
     * @param shape the shape
     * @throws IllegalArgumentException if it is null, not of rank 2, or its rows do not split into whole blocks
     */
    public void checkShape(String op, Shape shape) {
        if (shape == null) {
            throw new IllegalArgumentException(op + ": argument shape is null");
        }
        if (shape.rank() != 2) {
            throw new IllegalArgumentException(op + ": a weight is [rows, columns], not " + shape);
        }
        if (shape.dim(1) % blockSize != 0) {
            throw new IllegalArgumentException(op + ": a " + this + " weight's rows hold whole blocks of "
                    + blockSize + " numbers, but shape " + shape + " has " + shape.dim(1) + " columns");
        }
    }

    /**
     * Stores row-major numbers in this type.
     *
     * @param values {@code shape.size()} numbers, row-major; not modified
     * @param shape {@code [rows, columns]}
     * @return {@link #byteSize(Shape)} little-endian bytes, position 0
     * @throws IllegalArgumentException if the length does not match the shape, the shape does not fit the type,
     *     or a quantized block holds a non-finite number (its scale would not be finite)
     */
    public ByteBuffer encode(float[] values, Shape shape) {
        checkShape("encode", shape);
        if (values == null || values.length != shape.size()) {
            throw new IllegalArgumentException("encode: argument values has " + (values == null ? "no" : values.length)
                    + " numbers, shape " + shape + " needs " + shape.size());
        }
        ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(byteSize(shape))).order(ByteOrder.LITTLE_ENDIAN);
        switch (this) {
            case F32 -> out.asFloatBuffer().put(values);
            case F64 -> {
                for (int i = 0; i < values.length; i++) {
                    out.putDouble(8 * i, values[i]);
                }
            }
            case F16 -> {
                for (int i = 0; i < values.length; i++) {
                    out.putShort(2 * i, Half.fromFloat(values[i]));
                }
            }
            case BF16 -> {
                for (int i = 0; i < values.length; i++) {
                    out.putShort(2 * i, bf16(values[i]));
                }
            }
            case Q8_0, Q4_0 -> {
                int columns = shape.dim(1);
                for (int b = 0; b < values.length / 32; b++) {
                    int row = b * 32 / columns;
                    quantizeBlock(values, b * 32, out, b * blockBytes, row, (b * 32 % columns) / 32);
                }
            }
        }
        return out;
    }

    /**
     * Reads row-major numbers stored in this type.
     *
     * @param data exactly {@link #byteSize(Shape)} little-endian bytes from its position; not modified
     * @param shape {@code [rows, columns]}
     * @return {@code shape.size()} numbers, row-major (F64 rounded to nearest)
     * @throws IllegalArgumentException if the byte count does not match or a block's scale is not finite
     */
    public float[] decode(ByteBuffer data, Shape shape) {
        checkData("decode", data, shape);
        ByteBuffer in = data.slice().order(ByteOrder.LITTLE_ENDIAN);
        float[] out = new float[Math.toIntExact(shape.size())];
        switch (this) {
            case F32 -> in.asFloatBuffer().get(out);
            case F64 -> {
                for (int i = 0; i < out.length; i++) {
                    out[i] = (float) in.getDouble(8 * i);
                }
            }
            case F16 -> {
                for (int i = 0; i < out.length; i++) {
                    out[i] = Half.toFloat(in.getShort(2 * i));
                }
            }
            case BF16 -> {
                for (int i = 0; i < out.length; i++) {
                    out[i] = Float.intBitsToFloat((in.getShort(2 * i) & 0xffff) << 16);
                }
            }
            case Q8_0 -> {
                for (int b = 0; b < out.length / 32; b++) {
                    int at = b * 34;
                    float d = Half.toFloat(in.getShort(at));
                    for (int i = 0; i < 32; i++) {
                        out[b * 32 + i] = in.get(at + 2 + i) * d;
                    }
                }
            }
            case Q4_0 -> {
                for (int b = 0; b < out.length / 32; b++) {
                    int at = b * 18;
                    float d = Half.toFloat(in.getShort(at));
                    for (int i = 0; i < 16; i++) {
                        int n = in.get(at + 2 + i) & 0xff;
                        out[b * 32 + i] = ((n & 0xf) - 8) * d;
                        out[b * 32 + 16 + i] = ((n >>> 4) - 8) * d;
                    }
                }
            }
        }
        return out;
    }

    /**
     * Checks that bytes can be a weight of this type and shape: their count, and for the quantized types that every
     * block's scale is finite.
     *
     * @param op the op name for the message
     * @param data the bytes from their position to their limit; not modified
     * @param shape {@code [rows, columns]}
     * @throws IllegalArgumentException naming the op, the shape, and the first bad block's row and index
     */
    public void checkData(String op, ByteBuffer data, Shape shape) {
        checkShape(op, shape);
        if (data == null) {
            throw new IllegalArgumentException(op + ": argument data is null");
        }
        long need = byteSize(shape);
        if (data.remaining() != need) {
            throw new IllegalArgumentException(op + ": a " + this + " weight of shape " + shape + " has " + need
                    + " bytes, but argument data has " + data.remaining());
        }
        if (isQuantized()) {
            ByteBuffer in = data.slice().order(ByteOrder.LITTLE_ENDIAN);
            int perRow = shape.dim(1) / 32;
            long blocks = shape.size() / 32;
            for (long b = 0; b < blocks; b++) {
                short d = in.getShort(Math.toIntExact(b * blockBytes));
                if ((d & 0x7c00) == 0x7c00) {
                    throw new IllegalArgumentException(op + ": " + this + " weight of shape " + shape + ": block "
                            + (b % perRow) + " of row " + (b / perRow) + " has scale " + Half.toFloat(d)
                            + "; every block's scale must be finite");
                }
            }
        }
    }

    private void quantizeBlock(float[] x, int from, ByteBuffer out, int at, int row, int block) {
        float amax = 0f;
        float extreme = 0f;
        for (int i = 0; i < 32; i++) {
            float v = x[from + i];
            if (!Float.isFinite(v)) {
                throw new IllegalArgumentException("encode: " + this + " block " + block + " of row " + row
                        + " holds " + v + "; quantized blocks hold finite numbers only");
            }
            if (Math.abs(v) > amax) {
                amax = Math.abs(v);
                extreme = v;
            }
        }
        if (this == Q8_0) {
            float d = amax / 127f;
            float id = d != 0f ? 1f / d : 0f;
            out.putShort(at, Half.fromFloat(d));
            for (int i = 0; i < 32; i++) {
                out.put(at + 2 + i, (byte) roundAway(x[from + i] * id));
            }
        } else {
            float d = extreme / -8f;
            float id = d != 0f ? 1f / d : 0f;
            out.putShort(at, Half.fromFloat(d));
            for (int i = 0; i < 16; i++) {
                int lo = Math.min(15, (int) (x[from + i] * id + 8.5f));
                int hi = Math.min(15, (int) (x[from + 16 + i] * id + 8.5f));
                out.put(at + 2 + i, (byte) (lo | hi << 4));
            }
        }
    }

    /** C's {@code roundf}: to nearest, halves away from zero. */
    private static int roundAway(float v) {
        return (int) (v < 0 ? -Math.floor(-(double) v + 0.5) : Math.floor((double) v + 0.5));
    }

    /** Rounds a float to bfloat16, to nearest with ties to even; NaN stays a quiet NaN of the same sign. */
    private static short bf16(float v) {
        int bits = Float.floatToRawIntBits(v);
        if (Float.isNaN(v)) {
            return (short) ((bits >>> 16) | 0x40);
        }
        int rounding = 0x7fff + ((bits >>> 16) & 1);
        return (short) ((bits + rounding) >>> 16);
    }
}
