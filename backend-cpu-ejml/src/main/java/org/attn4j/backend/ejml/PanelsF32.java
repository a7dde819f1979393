package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;

/**
 * An F32 weight {@code W [rows, columns]} packed once, when bound, into the column panels that
 * {@link VectorGemmF32#tileRows} reads: for {@code linear}'s {@code x·Wᵀ}, panel {@code q} holds rows
 * {@code q·NR … q·NR + NR - 1} of {@code W} side by side, the whole inner dimension long:
 * <pre>
 *   panels[q·columns·NR + p·NR + j] = W[q·NR + j][p]          zero past the last row of W
 * </pre>
 * so a product streams each panel once, contiguously, for every {@link VectorGemmF32#ROWS} rows of input, and never
 * packs or transposes the weight again. One input row and a short sentence read the same panels (an edge tile
 * repeats its last row; a lone row costs the multiply-adds of a whole tile, which a product of one row, bound by the
 * weight's bytes, can afford). On CPUs with 16 vector registers (AVX2) the rows are packed first
 * ({@link Vectors#MANY_REGISTERS}). Only loaded when {@link Simd#enabled()}.
 */
final class PanelsF32 extends WeightStorage {
    private static final int NR = VectorGemmF32.NR;
    private static final int MR = VectorGemmF32.MR;
    private static final int ROWS = VectorGemmF32.ROWS;
    /** An edge tile of this thread: rows past the input's last or columns past the range's last. */
    private static final ThreadLocal<float[]> EDGE =
            ThreadLocal.withInitial(() -> new float[Math.max(MR, ROWS) * NR]);
    /** The input rows of this thread's product packed for {@link VectorGemmF32#tile}, on CPUs with 16 registers. */
    private static final ThreadLocal<float[][]> PACKED = ThreadLocal.withInitial(() -> new float[1][0]);

    private final float[] panels;

    private PanelsF32(int rows, int columns) {
        super(rows, columns);
        this.panels = new float[Math.toIntExact((long) panelCount(rows) * NR * columns)];
    }

    private static int panelCount(int rows) {
        return (rows + NR - 1) / NR;
    }

    /**
     * @param bytes little-endian F32 values, row-major, from position 0
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns
     * @param parallel the pool whose threads build it, whole panels each
     * @return the packed weight
     */
    static PanelsF32 of(ByteBuffer bytes, int rows, int columns, Parallel parallel) {
        PanelsF32 w = new PanelsF32(rows, columns);
        FloatBuffer f = bytes.asFloatBuffer();
        byPanels(parallel, rows, columns, NR, (from, to) -> {
            float[] row = new float[columns];
            for (int j = from; j < to; j++) {
                f.get(j * columns, row);
                w.packRow(j, row);
            }
        });
        return w;
    }

    /**
     * @param values row-major, not modified
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns
     * @return the packed weight
     */
    static PanelsF32 of(float[] values, int rows, int columns) {
        PanelsF32 w = new PanelsF32(rows, columns);
        float[] row = new float[columns];
        for (int j = 0; j < rows; j++) {
            System.arraycopy(values, j * columns, row, 0, columns);
            w.packRow(j, row);
        }
        return w;
    }

    private void packRow(int j, float[] row) {
        int at = (j / NR) * columns * NR + j % NR;
        for (int p = 0; p < columns; p++) {
            panels[at + p * NR] = row[p];
        }
    }

    @Override
    long heldBytes() {
        return 4L * panels.length;
    }

    @Override
    float[] values() {
        float[] out = new float[Math.toIntExact((long) rows * columns)];
        for (int j = 0; j < rows; j++) {
            gather(j, out, j * columns);
        }
        return out;
    }

    @Override
    int columnBlock() {
        return NR;
    }

    @Override
    void gather(int row, float[] dst, int dstOff) {
        int at = (row / NR) * columns * NR + row % NR;
        for (int p = 0; p < columns; p++) {
            dst[dstOff + p] = panels[at + p * NR];
        }
    }

    @Override
    void product(float[] x, int xOff, int ldx, int n, int from, int to, float[] out, int outOff, int ldo) {
        if (!Vectors.MANY_REGISTERS) {
            packedProduct(x, xOff, ldx, n, from, to, out, outOff, ldo);
            return;
        }
        int k = columns;
        for (int q = from / NR; q * NR < to; q++) {
            int j0 = Math.max(from, q * NR);
            int j1 = Math.min(to, q * NR + NR);
            boolean wholePanel = j1 - j0 == NR;
            int bAt = q * k * NR;
            int cAt = outOff + (j0 - from);
            for (int i = 0; i < n; i += ROWS) {
                int height = Math.min(ROWS, n - i);
                int x0 = xOff + i * ldx;
                if (height == ROWS && wholePanel) {
                    VectorGemmF32.tileRows(k, x, x0, ldx, height, panels, bAt, out, cAt + i * ldo, ldo);
                } else {
                    float[] edge = EDGE.get();
                    VectorGemmF32.tileRows(k, x, x0, ldx, height, panels, bAt, edge, 0, NR);
                    int skip = j0 - q * NR;
                    for (int r = 0; r < height; r++) {
                        System.arraycopy(edge, r * NR + skip, out, cAt + (i + r) * ldo, j1 - j0);
                    }
                }
            }
        }
    }

    /**
     * {@link #product} for CPUs with 16 vector registers: the rows are first packed, six at a time, into the row
     * panels {@link VectorGemmF32#tile} reads (row {@code i} of panel {@code s}, step {@code p} at
     * {@code s·MR·k + p·MR + i}, zero past the last row), once for every column panel of the range.
     */
    private void packedProduct(float[] x, int xOff, int ldx, int n, int from, int to, float[] out, int outOff,
                               int ldo) {
        int k = columns;
        int rowPanels = (n + MR - 1) / MR;
        float[][] holder = PACKED.get();
        if (holder[0].length < rowPanels * MR * k) {
            holder[0] = new float[rowPanels * MR * k];
        }
        float[] a = holder[0];
        for (int s = 0; s < rowPanels; s++) {
            int base = s * MR * k;
            int height = Math.min(MR, n - s * MR);
            for (int i = 0; i < MR; i++) {
                if (i < height) {
                    int row = xOff + (s * MR + i) * ldx;
                    for (int p = 0; p < k; p++) {
                        a[base + p * MR + i] = x[row + p];
                    }
                } else {
                    for (int p = 0; p < k; p++) {
                        a[base + p * MR + i] = 0f;
                    }
                }
            }
        }
        for (int q = from / NR; q * NR < to; q++) {
            int j0 = Math.max(from, q * NR);
            int j1 = Math.min(to, q * NR + NR);
            boolean wholePanel = j1 - j0 == NR;
            int bAt = q * k * NR;
            int cAt = outOff + (j0 - from);
            for (int s = 0; s < rowPanels; s++) {
                int i = s * MR;
                int height = Math.min(MR, n - i);
                if (height == MR && wholePanel) {
                    VectorGemmF32.tile(k, a, s * MR * k, panels, bAt, out, cAt + i * ldo, ldo, false);
                } else {
                    float[] edge = EDGE.get();
                    VectorGemmF32.tile(k, a, s * MR * k, panels, bAt, edge, 0, NR, false);
                    int skip = j0 - q * NR;
                    for (int r = 0; r < height; r++) {
                        System.arraycopy(edge, r * NR + skip, out, cAt + (i + r) * ldo, j1 - j0);
                    }
                }
            }
        }
    }
}
