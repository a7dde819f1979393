package org.attn4j.api.spi;

import org.attn4j.api.Shape;

/**
 * An F32 tensor {@code x [rows, columns]} quantized to uint8 by ONNX's {@code DynamicQuantizeLinear} (as ONNX
 * Runtime computes it), one sequence of {@code sequenceRows} consecutive rows at a time, each with its own range:
 * <pre>
 *   for each sequence S = rows [s·sequenceRows, (s+1)·sequenceRows):
 *   lo = min(0, min x[S]),  hi = max(0, max x[S]),  scale[S] = (hi - lo) / 255, or 1 when hi = lo
 *   zeroPoint[S] = clamp(round(-lo / scale[S]), 0, 255)
 *   a = clamp(round(x / scale[S]) + zeroPoint[S], 0, 255)            round: to nearest, halves to even; F32 steps
 * </pre>
 * so each sequence is quantized exactly as {@code DynamicQuantizeLinear} quantizes a tensor holding that sequence
 * alone, whatever the other sequences hold. The range always holds 0, so a row of zeros moves no sequence's range:
 * a caller leaves padding rows out of their sequence's range by zeroing them. The numbers are held shifted to int8,
 * {@code a - 128}, so that products with int8 weights are int8 × int8, with the sum of each row's shifted numbers for
 * the zero-point correction ({@link #correct}). NaN and infinities in {@code x} are refused.
 */
public final class DynamicQuantization {
    private final byte[] a;
    private final int[] rowSums;
    private final int sequenceRows;
    private final float[] scales;
    private final int[] zeroPoints;

    private DynamicQuantization(byte[] a, int[] rowSums, int sequenceRows, float[] scales, int[] zeroPoints) {
        this.a = a;
        this.rowSums = rowSums;
        this.sequenceRows = sequenceRows;
        this.scales = scales;
        this.zeroPoints = zeroPoints;
    }

    /**
     * The rows of {@code x} that share one range when {@code linear} quantizes {@code x} for an I8 weight: every
     * axis but the last two indexes separate sequences, so {@code x [..., L, in]} has sequences of {@code L} rows,
     * and a matrix {@code [rows, in]} (or a vector {@code [in]}) is one sequence.
     *
     * @param x {@code [..., in]}, of rank at least 1
     * @return the rows of one sequence
     */
    public static int sequenceRows(Shape x) {
        return x.rank() < 2 ? 1 : x.dim(-2);
    }

    /**
     * @param op the op name for messages
     * @param x {@code rows · columns} numbers, row-major; not modified
     * @param columns the numbers of one row, at least 1
     * @param sequenceRows the rows of one sequence, at least 1, dividing {@code rows}
     * @return {@code x} quantized, one range per sequence
     * @throws IllegalArgumentException if {@code x} holds NaN or an infinity, or a sequence spans more than F32
     *     holds (its scale would not be finite)
     */
    public static DynamicQuantization of(String op, float[] x, int columns, int sequenceRows) {
        int rows = x.length / columns;
        int sequences = rows / sequenceRows;
        if (sequences * sequenceRows != rows) {
            throw new IllegalArgumentException(op + ": " + rows + " rows of x do not split into sequences of "
                    + sequenceRows);
        }
        float[] scales = new float[sequences];
        int[] zeroPoints = new int[sequences];
        byte[] a = new byte[x.length];
        int[] sums = new int[rows];
        int span = sequenceRows * columns;
        for (int s = 0; s < sequences; s++) {
            float lo = 0f;
            float hi = 0f;
            for (int i = s * span; i < (s + 1) * span; i++) {
                float v = x[i];
                if (!Float.isFinite(v)) {
                    throw new IllegalArgumentException(op + ": argument x holds " + v + " at row " + i / columns
                            + ", column " + i % columns + "; an I8 weight's input is quantized and must be finite");
                }
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
            float scale = hi == lo ? 1f : (hi - lo) / 255f;
            if (!Float.isFinite(scale)) {
                throw new IllegalArgumentException(op + ": argument x spans [" + lo + ", " + hi + "] in the sequence"
                        + " of rows " + s * sequenceRows + " to " + ((s + 1) * sequenceRows - 1) + ", wider than F32"
                        + " holds; an I8 weight's input is quantized over each sequence's range");
            }
            int zeroPoint = (int) Math.rint(Math.max(0f, Math.min(255f, -lo / scale)));
            scales[s] = scale;
            zeroPoints[s] = zeroPoint;
            for (int r = s * sequenceRows; r < (s + 1) * sequenceRows; r++) {
                int sum = 0;
                for (int p = r * columns; p < (r + 1) * columns; p++) {
                    float v = (float) Math.rint(x[p] / scale) + zeroPoint;
                    int u = (int) Math.max(0f, Math.min(255f, v));
                    a[p] = (byte) (u - 128);
                    sum += u - 128;
                }
                sums[r] = sum;
            }
        }
        return new DynamicQuantization(a, sums, sequenceRows, scales, zeroPoints);
    }

    /** @return the numbers shifted to int8, {@code a - 128}, row-major; shared, not to be modified */
    public byte[] numbers() {
        return a;
    }

    /**
     * @param row a row of {@code x}
     * @return the scale {@code a_s} of the row's sequence
     */
    public float scale(int row) {
        return scales[row / sequenceRows];
    }

    /**
     * @param row a row of {@code x}
     * @return the uint8 zero point {@code a_z} of the row's sequence, in {@code [0, 255]}
     */
    public int zeroPoint(int row) {
        return zeroPoints[row / sequenceRows];
    }

    /**
     * Turns the raw product of a shifted row with a weight row into the zero-point-corrected one, in int32:
     * {@code Σ (a - a_z)(q - z) = raw - z·Σa' - (a_z - 128)·Σq + columns·(a_z - 128)·z} where
     * {@code raw = Σ a'·q} and {@code a_z} is the zero point of the row's sequence.
     *
     * @param raw {@code Σ_p a'[row][p] · q[p]}
     * @param row the input row
     * @param columns the row's length
     * @param weightZeroPoint {@code z}
     * @param weightRowSum {@code Σ_p q[p]}
     * @return {@code Σ_p (a[row][p] - a_z) · (q[p] - z)}
     */
    public int correct(int raw, int row, int columns, int weightZeroPoint, int weightRowSum) {
        int shiftedZero = zeroPoints[row / sequenceRows] - 128;
        return raw - weightZeroPoint * rowSums[row] - shiftedZero * weightRowSum
                + columns * shiftedZero * weightZeroPoint;
    }

    /**
     * @param acc the corrected integer product of input row {@code row}
     * @param row the input row
     * @param weightScale the weight row's scale
     * @return {@code float(acc) · (a_s · weightScale)}, each step in F32, {@code a_s} the scale of the row's
     *     sequence
     */
    public float dequantize(int acc, int row, float weightScale) {
        float s = scales[row / sequenceRows] * weightScale;
        return (float) acc * s;
    }
}
