package org.attn4j.backend.nd4j;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.AbstractWeight;
import org.bytedeco.javacpp.Pointer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A bound parameter as one detached, C-ordered {@code [rows, columns]} array in native memory: F32, or F64 for an
 * {@link WeightType#F64} weight. That is the layout both of its readers take without a copy: {@code linear} hands
 * it to OpenBLAS as the transposed operand of one {@code ?gemm} ({@code x·Wᵀ}), or of one {@code ?gemv} per input
 * row for a few rows (a decoding step), each output element a dot product along a contiguous row; {@code embedding}
 * copies rows out of it. A transposed copy would make neither product faster (OpenBLAS packs both operands of a GEMM
 * on every call, and OpenBLAS 0.3.19 has no API to keep a packed operand) and would double a tied embedding.
 *
 * <p>F16, BF16 and every GGUF block type (Q8_0 … IQ4_XS, as {@link WeightType#decode} reads them, ggml's numbers bit
 * for bit) are converted to F32 once, here, a block of rows at a time straight into the native
 * array (no second full copy on the heap): libnd4j 1.0.0-M2.1's matmul refuses a BF16 or F16 operand beside an F32
 * one ({@code Op [matmul] execution failed}), and with both operands in BF16 or F16 it rounds the activations and
 * returns the low-precision type, so it cannot multiply such a weight with F32 accumulation.
 */
final class Nd4jWeight extends AbstractWeight {
    /** Numbers converted per block of rows while binding a weight of another type. */
    private static final int CONVERT_BLOCK = 1 << 20;

    private final Nd4jBackend backend;
    private final INDArray values;
    private final DType dtype;
    private final long bytes;

    private Nd4jWeight(Nd4jScope owner, Shape shape, WeightType type, INDArray values, DType dtype) {
        super(owner, shape, type);
        this.backend = owner.nd4j();
        this.values = values;
        this.dtype = dtype;
        this.bytes = shape.size() * dtype.byteSize();
        backend.allocated(bytes);
    }

    /**
     * Converts checked bytes into a new native array and binds it.
     *
     * @param owner the scope that frees it
     * @param data exactly {@code type.byteSize(shape)} little-endian bytes from position 0; not modified
     * @param type their storage type
     * @param shape {@code [rows, columns]}
     * @return the weight
     */
    static Nd4jWeight create(Nd4jScope owner, ByteBuffer data, WeightType type, Shape shape) {
        DType dtype = type == WeightType.F64 ? DType.F64 : DType.F32;
        INDArray array = NdArrays.uninitialized(dtype, shape);
        try {
            fill(array, data, type, shape);
            return new Nd4jWeight(owner, shape, type, array, dtype);
        } catch (RuntimeException | Error e) {
            array.close();
            throw e;
        }
    }

    private static void fill(INDArray array, ByteBuffer data, WeightType type, Shape shape) {
        ByteBuffer in = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        switch (type) {
            case F32 -> array.data().asNioFloat().put(in.asFloatBuffer());
            case F64 -> array.data().asNioDouble().put(in.asDoubleBuffer());
            default -> {
                FloatBuffer out = array.data().asNioFloat();
                int columns = shape.dim(1);
                int rowsPerBlock = Math.max(1, CONVERT_BLOCK / columns);
                long rowBytes = type.rowBytes(columns);
                for (int row = 0; row < shape.dim(0); row += rowsPerBlock) {
                    int rows = Math.min(rowsPerBlock, shape.dim(0) - row);
                    ByteBuffer block = in.duplicate().position(Math.toIntExact(row * rowBytes))
                            .limit(Math.toIntExact((row + rows) * rowBytes));
                    out.put(type.decode(block, Shape.of(rows, columns)));
                }
            }
        }
    }

    /**
     * @param op the op name for the message
     * @return the {@code [rows, columns]} array, F32 or F64
     */
    INDArray array(String op) {
        checkOpen(op);
        return values;
    }

    /**
     * @param op the op name for the message
     * @return the address of element {@code [0, 0]}
     */
    Pointer address(String op) {
        checkOpen(op);
        return values.data().addressPointer();
    }

    /** @return F64 for an F64 weight, else F32 */
    DType dtype() {
        return dtype;
    }

    @Override
    protected long heldBytes() {
        return bytes;
    }

    @Override
    protected float[] values() {
        float[] out = new float[Math.toIntExact(shape().size())];
        if (dtype == DType.F64) {
            DoubleBuffer d = values.data().asNioDouble();
            for (int i = 0; i < out.length; i++) {
                out[i] = (float) d.get(i);
            }
        } else {
            values.data().asNioFloat().get(out);
        }
        return out;
    }

    @Override
    protected void release() {
        values.close();
        backend.freed(bytes);
    }
}
