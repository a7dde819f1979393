package org.attn4j.api.spi;

/**
 * An F32 tensor {@code x [rows, columns]} quantized as a whole to uint8 by ONNX's {@code DynamicQuantizeLinear}
 * (as ONNX Runtime computes it):
 * <pre>
 *   lo = min(0, min x),  hi = max(0, max x),  scale = (hi - lo) / 255, or 1 when hi = lo
 *   zeroPoint = clamp(round(-lo / scale), 0, 255)
 *   a = clamp(round(x / scale) + zeroPoint, 0, 255)                 round: to nearest, halves to even; F32 steps
 * </pre>
 * held shifted to int8, {@code a - 128}, so that products with int8 weights are int8 × int8, with the sum of each
 * row's shifted numbers for the zero-point correction ({@link #correct}). NaN in {@code x} is refused.
 */
public final class DynamicQuantization {
    private final byte[] a;
    private final int[] rowSums;
    private final float scale;
    private final int zeroPoint;

    private DynamicQuantization(byte[] a, int[] rowSums, float scale, int zeroPoint) {
        this.a = a;
        this.rowSums = rowSums;
        this.scale = scale;
        this.zeroPoint = zeroPoint;
    }

    /**
     * @param op the op name for messages
     * @param x {@code rows · columns} numbers, row-major; not modified
     * @param columns the numbers of one row, at least 1
     * @return {@code x} quantized
     * @throws IllegalArgumentException if {@code x} holds NaN or an infinity (its scale would not be finite)
     */
    public static DynamicQuantization of(String op, float[] x, int columns) {
        float lo = 0f;
        float hi = 0f;
        for (int i = 0; i < x.length; i++) {
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
            throw new IllegalArgumentException(op + ": argument x spans [" + lo + ", " + hi
                    + "], wider than F32 holds; an I8 weight's input is quantized over its range");
        }
        int zeroPoint = (int) Math.rint(Math.max(0f, Math.min(255f, -lo / scale)));
        byte[] a = new byte[x.length];
        int rows = x.length / columns;
        int[] sums = new int[rows];
        for (int r = 0; r < rows; r++) {
            int sum = 0;
            for (int p = r * columns; p < (r + 1) * columns; p++) {
                float v = (float) Math.rint(x[p] / scale) + zeroPoint;
                int u = (int) Math.max(0f, Math.min(255f, v));
                a[p] = (byte) (u - 128);
                sum += u - 128;
            }
            sums[r] = sum;
        }
        return new DynamicQuantization(a, sums, scale, zeroPoint);
    }

    /** @return the numbers shifted to int8, {@code a - 128}, row-major; shared, not to be modified */
    public byte[] numbers() {
        return a;
    }

    /** @return the scale {@code a_s} */
    public float scale() {
        return scale;
    }

    /** @return the uint8 zero point {@code a_z}, in {@code [0, 255]} */
    public int zeroPoint() {
        return zeroPoint;
    }

    /**
     * Turns the raw product of a shifted row with a weight row into the zero-point-corrected one, in int32:
     * {@code Σ (a - a_z)(q - z) = raw - z·Σa' - (a_z - 128)·Σq + columns·(a_z - 128)·z} where
     * {@code raw = Σ a'·q}.
     *
     * @param raw {@code Σ_p a'[row][p] · q[p]}
     * @param row the input row
     * @param columns the row's length
     * @param weightZeroPoint {@code z}
     * @param weightRowSum {@code Σ_p q[p]}
     * @return {@code Σ_p (a[row][p] - a_z) · (q[p] - z)}
     */
    public int correct(int raw, int row, int columns, int weightZeroPoint, int weightRowSum) {
        int shiftedZero = zeroPoint - 128;
        return raw - weightZeroPoint * rowSums[row] - shiftedZero * weightRowSum
                + columns * shiftedZero * weightZeroPoint;
    }

    /**
     * @param acc the corrected integer product
     * @param weightScale the weight row's scale
     * @return {@code float(acc) · (a_s · weightScale)}, each step in F32
     */
    public float dequantize(int acc, float weightScale) {
        float s = scale * weightScale;
        return (float) acc * s;
    }
}
