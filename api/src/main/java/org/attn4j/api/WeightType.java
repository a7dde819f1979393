package org.attn4j.api;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * How a {@link Weight} stores its values: one element per number ({@link #F32}, {@link #F64}, {@link #F16},
 * {@link #BF16}), or GGUF's quantized blocks along a row ({@link #Q8_0} … {@link #IQ4_XS}), bit for bit as ggml
 * lays them out ({@code block_q8_0} … {@code block_iq4_xs} of {@code ggml-common.h}), or ONNX Runtime's int8 rows
 * with a scale and a zero point each ({@link #I8}). Bytes are little-endian, rows follow each other, and a row's
 * blocks follow each other, exactly as in a GGUF file:
 * <pre>
 *   Q8_0 block (34 bytes): d: binary16, q[32]: int8             value i = q[i] · d
 *   Q4_0 block (18 bytes): d: binary16, n[16]: packed nibbles   value i = ((n[i] &amp; 0xF) - 8) · d        for i &lt; 16
 *                                                               value i = ((n[i-16] &gt;&gt; 4) - 8) · d    for i ≥ 16
 *   Q4_1 (20): d, m, n[16]                      value = nibble · d + m
 *   Q5_0 (22): d, qh: uint32, n[16]             value = (nibble | bit i of qh &lt;&lt; 4) - 16) · d
 *   Q5_1 (24): d, m, qh, n[16]                  value = (nibble | bit i of qh &lt;&lt; 4) · d + m
 *   IQ4_NL (18): d, n[16]                       value = kvalues_iq4nl[nibble] · d
 *   Q2_K (84): scales[16], qs[64], d, dmin      value = (d · (s &amp; 0xF)) · q - dmin · (s &gt;&gt; 4)   per 16
 *   Q3_K (110): hmask[32], qs[64], scales[12], d      value = (d · (s - 32)) · (q - 4·(1 - hbit))  per 16
 *   Q4_K (144): d, dmin, scales[12], qs[128]    value = (d · s) · q - dmin · m                    per 32
 *   Q5_K (176): d, dmin, scales[12], qh[32], qs[128]   as Q4_K with a fifth bit from qh
 *   Q6_K (210): ql[128], qh[64], scales[16]: int8, d   value = (d · s) · (q - 32)                 per 16
 *   IQ4_XS (136): d, scales_h: uint16, scales_l[4], qs[128]   value = (d · (s - 32)) · kvalues_iq4nl[nibble]  per 32
 * </pre>
 * with the bits of {@code q}, {@code s} and {@code m} where ggml's {@code dequantize_row_*} reads them. Every
 * quantized type reads as {@code level · a + c} per number, with one scale {@code a} and offset {@code c} per
 * group of {@link #groupSize()} numbers ({@link #decodeLevels}), rounded as ggml rounds: once after the product and
 * once after the sum, so {@link #decode} equals ggml's dequantization bit for bit.
 *
 * <p>{@link #encode} quantizes Q8_0 and Q4_0 as GGUF's reference does ({@code quantize_row_q8_0_ref},
 * {@code quantize_row_q4_0_ref}):
 * <pre>
 *   Q8_0: d = max|x| / 127,  q[i] = round(x[i] / d), halves away from zero
 *   Q4_0: m = the x of largest |x| (the first one on ties), d = m / -8,  q[i] = min(15, trunc(x[i] / d + 8.5))
 * </pre>
 * with {@code 1/d} taken as 0 for an all-zero block, and {@code d} rounded to binary16 (to nearest, ties to even)
 * only when stored, so {@link #decode} of {@link #encode} multiplies by the stored scale; Q4_1, Q5_0 and Q5_1 as
 * ggml's reference quantizers do, and the K-types and IQ4 types in one pass without ggml's search for the best
 * scales (the numbers are near, not equal, to what {@code llama-quantize} writes). {@link #BF16} and {@link #F16}
 * round to nearest, ties to even, as PyTorch's {@code .to(torch.bfloat16)} / {@code .half()} do.
 *
 * <p>{@link #I8} is ONNX Runtime's {@code quantize_dynamic} per-channel weight: each row (an output feature of a
 * linear map {@code [out, in]}) starts with its binary32 scale {@code s} and int32 zero point {@code z} in
 * {@code [-128, 127]}, then holds its {@code in} int8 numbers, value {@code (q - z) · s}. {@link #encode} quantizes
 * a row symmetrically as {@code quantize_dynamic} does for {@code QInt8}: {@code s = max|x| / 127} (1 for an
 * all-zero row), {@code z = 0}, {@code q = round(x / s)}, halves to even. A {@code linear} over an I8 weight runs in
 * integer arithmetic as ONNX's {@code DynamicQuantizeLinear → MatMulInteger → Cast → Mul} does (see
 * {@link Ops#linear(Tensor, Weight, Tensor, Epilogue)}). I8 is not one of the quantized block types
 * ({@link #isQuantized()} is false): its scale is per row.
 */
public enum WeightType {
    /** IEEE 754 binary32. */
    F32(1, 4, 1),
    /** IEEE 754 binary64; the only type that meets {@link DType#F64} activations. */
    F64(1, 8, 1),
    /** IEEE 754 binary16. */
    F16(1, 2, 1),
    /** bfloat16: the upper half of a binary32. */
    BF16(1, 2, 1),
    /** GGUF's Q8_0: blocks of 32 int8 values and a binary16 scale, 8.5 bits per number. */
    Q8_0(32, 34, 32),
    /** GGUF's Q4_0: blocks of 32 four-bit values offset by 8 and a binary16 scale, 4.5 bits per number. */
    Q4_0(32, 18, 32),
    /** GGUF's Q4_1: blocks of 32 four-bit values, a binary16 scale and a binary16 minimum, 5 bits per number. */
    Q4_1(32, 20, 32),
    /** GGUF's Q5_0: blocks of 32 five-bit values offset by 16 and a binary16 scale, 5.5 bits per number. */
    Q5_0(32, 22, 32),
    /** GGUF's Q5_1: blocks of 32 five-bit values, a binary16 scale and a binary16 minimum, 6 bits per number. */
    Q5_1(32, 24, 32),
    /** GGUF's Q2_K: super-blocks of 256, 16 groups of 16 with 4-bit scales and minimums, 2.625 bits per number. */
    Q2_K(256, 84, 16),
    /** GGUF's Q3_K: super-blocks of 256, 16 groups of 16 with signed 6-bit scales, 3.4375 bits per number. */
    Q3_K(256, 110, 16),
    /** GGUF's Q4_K: super-blocks of 256, 8 groups of 32 with 6-bit scales and minimums, 4.5 bits per number. */
    Q4_K(256, 144, 32),
    /** GGUF's Q5_K: super-blocks of 256, 8 groups of 32 with 6-bit scales and minimums, 5.5 bits per number. */
    Q5_K(256, 176, 32),
    /** GGUF's Q6_K: super-blocks of 256, 16 groups of 16 with int8 scales, 6.5625 bits per number. */
    Q6_K(256, 210, 16),
    /** GGUF's IQ4_NL: blocks of 32 four-bit indices into a table of 16 levels and a binary16 scale, 4.5 bits. */
    IQ4_NL(32, 18, 32),
    /** GGUF's IQ4_XS: super-blocks of 256, 8 groups of 32 IQ4 indices with signed 6-bit scales, 4.25 bits. */
    IQ4_XS(256, 136, 32),
    /** ONNX Runtime's per-row int8: a binary32 scale and an int32 zero point, then one int8 per number. */
    I8(1, 1, 1);

    /** The bytes before an {@link #I8} row's numbers: its scale and its zero point. */
    private static final int I8_ROW_HEADER = 8;

    private final int blockSize;
    private final int blockBytes;
    private final int groupSize;

    WeightType(int blockSize, int blockBytes, int groupSize) {
        this.blockSize = blockSize;
        this.blockBytes = blockBytes;
        this.groupSize = groupSize;
    }

    /** @return how many numbers share one block: 1 for the plain floats and I8, 32 or 256 for the quantized types */
    public int blockSize() {
        return blockSize;
    }

    /** @return the bytes of one block */
    public int blockBytes() {
        return blockBytes;
    }

    /**
     * @return how many consecutive numbers share one scale and one offset in {@link #decodeLevels}: 16 for Q2_K, Q3_K
     *     and Q6_K, 32 for the other quantized types, 1 for the plain floats and I8
     */
    public int groupSize() {
        return groupSize;
    }

    /** @return whether values are stored as GGUF blocks with a shared scale (not {@link #I8}, scaled per row) */
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
        return (long) (columns / blockSize) * blockBytes + (this == I8 ? I8_ROW_HEADER : 0);
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
            case I8 -> encodeI8(values, shape.dim(1), out);
            default -> {
                int columns = shape.dim(1);
                for (int b = 0; b < values.length / blockSize; b++) {
                    int row = b * blockSize / columns;
                    int block = b * blockSize % columns / blockSize;
                    quantizeBlock(values, b * blockSize, out, b * blockBytes, row, block);
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
            case I8 -> {
                int columns = shape.dim(1);
                for (int r = 0; r < shape.dim(0); r++) {
                    int at = Math.toIntExact(r * rowBytes(columns));
                    float s = in.getFloat(at);
                    int z = in.getInt(at + 4);
                    for (int i = 0; i < columns; i++) {
                        out[r * columns + i] = (in.get(at + I8_ROW_HEADER + i) - z) * s;
                    }
                }
            }
            default -> {
                int blocks = out.length / blockSize;
                byte[] level = new byte[out.length];
                float[] a = new float[out.length / groupSize];
                float[] c = new float[a.length];
                GgufBlocks.read(this, in, 0, blocks, level, 0, a, c, 0);
                for (int i = 0; i < out.length; i++) {
                    int g = i / groupSize;
                    out[i] = level[i] * a[g] + c[g];
                }
            }
        }
        return out;
    }

    /**
     * Reads a quantized weight into its levels and, per group of {@link #groupSize()} numbers, a scale and an offset:
     * <pre>
     *   W[r][p] = level[i] · scale[i / groupSize] + offset[i / groupSize]      i = r·columns + p
     * </pre>
     * in F32, the product rounded before the sum, which is {@link #decode} exactly. A level is a small signed
     * integer (Q8_0: -128..127, Q4_0: -8..7, Q5_0: -16..15, Q3_K: -4..3, Q6_K: -32..31, the IQ4 types: their table
     * of 16 levels from -127 to 113, the others: 0 up to 3, 15 or 31). The offset is {@code -0.0} for the types
     * without a minimum. Backends hold quantized weights in this form and widen them with the same two roundings.
     *
     * @param data exactly {@link #byteSize(Shape)} little-endian bytes from its position; not modified
     * @param shape {@code [rows, columns]}
     * @param level receives {@code shape.size()} levels from 0
     * @param scale receives {@code shape.size() / groupSize()} scales from 0
     * @param offset receives as many offsets from 0
     * @throws IllegalArgumentException if this type is not quantized, the byte count or an array's length does not
     *     match, or a block's scale is not finite
     */
    public void decodeLevels(ByteBuffer data, Shape shape, byte[] level, float[] scale, float[] offset) {
        checkData("decodeLevels", data, shape);
        if (!isQuantized()) {
            throw new IllegalArgumentException("decodeLevels: " + this + " is not a quantized type");
        }
        long groups = shape.size() / groupSize;
        if (level == null || level.length < shape.size() || scale == null || scale.length < groups
                || offset == null || offset.length < groups) {
            throw new IllegalArgumentException("decodeLevels: a " + this + " weight of shape " + shape + " needs "
                    + shape.size() + " levels and " + groups + " scales and offsets");
        }
        ByteBuffer in = data.slice().order(ByteOrder.LITTLE_ENDIAN);
        GgufBlocks.read(this, in, 0, Math.toIntExact(shape.size() / blockSize), level, 0, scale, offset, 0);
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
        if (this == I8) {
            ByteBuffer in = data.slice().order(ByteOrder.LITTLE_ENDIAN);
            for (int r = 0; r < shape.dim(0); r++) {
                int at = Math.toIntExact(r * rowBytes(shape.dim(1)));
                float s = in.getFloat(at);
                int z = in.getInt(at + 4);
                if (!Float.isFinite(s) || z < -128 || z > 127) {
                    throw new IllegalArgumentException(op + ": I8 weight of shape " + shape + ": row " + r
                            + " has scale " + s + " and zero point " + z + "; a row's scale must be finite and its"
                            + " zero point in [-128, 127]");
                }
            }
        }
        if (isQuantized()) {
            ByteBuffer in = data.slice().order(ByteOrder.LITTLE_ENDIAN);
            int perRow = shape.dim(1) / blockSize;
            long blocks = shape.size() / blockSize;
            int[] fields = GgufBlocks.halfFields(this);
            for (long b = 0; b < blocks; b++) {
                for (int field : fields) {
                    short d = in.getShort(Math.toIntExact(b * blockBytes + field));
                    if ((d & 0x7c00) == 0x7c00) {
                        throw new IllegalArgumentException(op + ": " + this + " weight of shape " + shape + ": block "
                                + (b % perRow) + " of row " + (b / perRow) + " has scale " + Half.toFloat(d)
                                + " at byte " + field + " of the block; every block's scales must be finite");
                    }
                }
            }
        }
    }

    private static void encodeI8(float[] x, int columns, ByteBuffer out) {
        for (int r = 0; r < x.length / Math.max(1, columns); r++) {
            float amax = 0f;
            for (int i = 0; i < columns; i++) {
                float v = x[r * columns + i];
                if (!Float.isFinite(v)) {
                    throw new IllegalArgumentException("encode: I8 row " + r + " holds " + v
                            + "; quantized rows hold finite numbers only");
                }
                amax = Math.max(amax, Math.abs(v));
            }
            float s = amax == 0f ? 1f : amax / 127f;
            int at = r * (columns + I8_ROW_HEADER);
            out.putFloat(at, s);
            out.putInt(at + 4, 0);
            for (int i = 0; i < columns; i++) {
                float q = Math.max(-127f, Math.min(127f, (float) Math.rint(x[r * columns + i] / s)));
                out.put(at + I8_ROW_HEADER + i, (byte) q);
            }
        }
    }

    private void quantizeBlock(float[] x, int from, ByteBuffer out, int at, int row, int block) {
        float amax = 0f;
        float extreme = 0f;
        for (int i = 0; i < blockSize; i++) {
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
        if (this != Q8_0 && this != Q4_0) {
            GgufQuantizer.quantize(this, x, from, out, at);
        } else if (this == Q8_0) {
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
