package org.attn4j.backend.ejml;

/**
 * An F64 weight {@code W [rows, columns]} kept row-major: products of a whole input run on EJML
 * ({@link MatMul#linearRows}), blocks on dot products along the rows of {@code x} and {@code W}.
 */
final class RowsF64 extends WeightStorage {
    private final double[] values;

    /**
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns
     * @param values {@code W} row-major, now owned by this storage
     */
    RowsF64(int rows, int columns, double[] values) {
        super(rows, columns);
        this.values = values;
    }

    @Override
    boolean f64() {
        return true;
    }

    @Override
    long heldBytes() {
        return 8L * values.length;
    }

    @Override
    float[] values() {
        float[] out = new float[values.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) values[i];
        }
        return out;
    }

    /** @return {@code W} row-major, not to be modified */
    double[] rowMajor() {
        return values;
    }

    @Override
    void gather(int row, double[] dst, int dstOff) {
        System.arraycopy(values, row * columns, dst, dstOff, columns);
    }

    @Override
    void product(double[] x, int xOff, int ldx, int n, int from, int to, double[] out, int outOff, int ldo) {
        int k = columns;
        for (int i = 0; i < n; i++) {
            int xi = xOff + i * ldx;
            for (int j = from; j < to; j++) {
                int wj = j * k;
                double s0 = 0;
                double s1 = 0;
                int p = 0;
                for (; p + 2 <= k; p += 2) {
                    s0 += x[xi + p] * values[wj + p];
                    s1 += x[xi + p + 1] * values[wj + p + 1];
                }
                for (; p < k; p++) {
                    s0 += x[xi + p] * values[wj + p];
                }
                out[outOff + i * ldo + (j - from)] = s0 + s1;
            }
        }
    }
}
