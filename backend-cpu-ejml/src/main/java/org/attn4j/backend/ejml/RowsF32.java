package org.attn4j.backend.ejml;

/**
 * An F32 weight {@code W [rows, columns]} kept row-major, for JVMs that run without the Vector API: products of a
 * whole input run on EJML ({@link MatMul#linearRows}), and blocks on dot products along the rows of {@code x} and
 * {@code W}, which is also where {@code embedding} copies rows from.
 */
final class RowsF32 extends WeightStorage {
    private final float[] values;

    /**
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns
     * @param values {@code W} row-major, now owned by this storage
     */
    RowsF32(int rows, int columns, float[] values) {
        super(rows, columns);
        this.values = values;
    }

    @Override
    long heldBytes() {
        return 4L * values.length;
    }

    @Override
    float[] values() {
        return values.clone();
    }

    /** @return {@code W} row-major, not to be modified */
    float[] rowMajor() {
        return values;
    }

    @Override
    void gather(int row, float[] dst, int dstOff) {
        System.arraycopy(values, row * columns, dst, dstOff, columns);
    }

    @Override
    void product(float[] x, int xOff, int ldx, int n, int from, int to, float[] out, int outOff, int ldo) {
        int k = columns;
        for (int i = 0; i < n; i++) {
            int xi = xOff + i * ldx;
            for (int j = from; j < to; j++) {
                int wj = j * k;
                float s0 = 0;
                float s1 = 0;
                float s2 = 0;
                float s3 = 0;
                int p = 0;
                for (; p + 4 <= k; p += 4) {
                    s0 += x[xi + p] * values[wj + p];
                    s1 += x[xi + p + 1] * values[wj + p + 1];
                    s2 += x[xi + p + 2] * values[wj + p + 2];
                    s3 += x[xi + p + 3] * values[wj + p + 3];
                }
                for (; p < k; p++) {
                    s0 += x[xi + p] * values[wj + p];
                }
                out[outOff + i * ldo + (j - from)] = (s0 + s1) + (s2 + s3);
            }
        }
    }
}
