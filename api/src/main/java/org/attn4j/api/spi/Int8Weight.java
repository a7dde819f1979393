package org.attn4j.api.spi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;

/**
 * An {@link WeightType#I8} weight {@code W [rows, columns]}, held on the Java heap by every backend: row-major
 * int8 numbers {@code q}, and per row the scale {@code s}, the zero point {@code z} and the sum {@code Σ_p q[r][p]}
 * that the integer product's zero-point correction needs. {@link AbstractScope#weight} creates it for every backend;
 * {@link AbstractOps} gives its {@code linear} and {@code embedding} their defaults, and a backend may compute the
 * same {@code linear} faster by overriding
 * {@link AbstractOps#computeLinear(AbstractTensor, Int8Weight, AbstractTensor, org.attn4j.api.Epilogue,
 * AbstractTensor, Shape)}.
 */
public final class Int8Weight extends AbstractWeight {
    private final byte[] q;
    private final float[] scales;
    private final int[] zeroPoints;
    private final int[] rowSums;

    /**
     * @param owner the scope that frees it
     * @param data exactly {@code WeightType.I8.byteSize(shape)} little-endian bytes from position 0, checked; read
     *     only during this call
     * @param shape {@code [rows, columns]}
     */
    Int8Weight(AbstractScope owner, ByteBuffer data, Shape shape) {
        super(owner, shape, WeightType.I8);
        int rows = shape.dim(0);
        int columns = shape.dim(1);
        ByteBuffer in = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        this.q = new byte[Math.toIntExact(shape.size())];
        this.scales = new float[rows];
        this.zeroPoints = new int[rows];
        this.rowSums = new int[rows];
        int rowBytes = Math.toIntExact(WeightType.I8.rowBytes(columns));
        for (int r = 0; r < rows; r++) {
            int at = r * rowBytes;
            scales[r] = in.getFloat(at);
            zeroPoints[r] = in.getInt(at + 4);
            in.get(at + 8, q, r * columns, columns);
            int sum = 0;
            for (int p = 0; p < columns; p++) {
                sum += q[r * columns + p];
            }
            rowSums[r] = sum;
        }
    }

    /** @return {@code W}'s int8 numbers, row-major; shared, not to be modified */
    public byte[] numbers() {
        return q;
    }

    /** @return the scale of each row; shared, not to be modified */
    public float[] scales() {
        return scales;
    }

    /** @return the zero point of each row, in {@code [-128, 127]}; shared, not to be modified */
    public int[] zeroPoints() {
        return zeroPoints;
    }

    /** @return {@code Σ_p q[r][p]} for each row {@code r}; shared, not to be modified */
    public int[] rowSums() {
        return rowSums;
    }

    /**
     * The exact integer product of one quantized input row with one row of {@code W}, in int32 (wrapping as
     * ONNX's {@code MatMulInteger} does): {@code Σ_p (a[p] - a_z) · (q[row][p] - z[row])}, computed as
     * {@code Σ a'·q - z·Σa' - a'_z·Σq + columns·a'_z·z} over the input shifted to int8 ({@code a' = a - 128}).
     *
     * @param input the quantized input
     * @param inputRow the input row
     * @param row the row of {@code W}
     * @return the int32 sum
     */
    public int dot(DynamicQuantization input, int inputRow, int row) {
        int columns = shape().dim(1);
        byte[] a = input.numbers();
        int aAt = inputRow * columns;
        int wAt = row * columns;
        int raw = 0;
        for (int p = 0; p < columns; p++) {
            raw += a[aAt + p] * q[wAt + p];
        }
        return input.correct(raw, inputRow, columns, zeroPoints[row], rowSums[row]);
    }

    @Override
    protected long heldBytes() {
        return q.length + 12L * scales.length;
    }

    @Override
    protected float[] values() {
        int columns = shape().dim(1);
        float[] out = new float[q.length];
        for (int i = 0; i < q.length; i++) {
            int r = i / columns;
            out[i] = (q[i] - zeroPoints[r]) * scales[r];
        }
        return out;
    }

    @Override
    protected void release() {
    }
}
