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
 * so a product streams each panel once, contiguously, for every {@link VectorGemmF32#ROWS} rows of input (packed
 * by {@link VectorGemmF32#packRows}), and never packs or transposes the weight again. One input row and a short
 * sentence read the same panels (an edge tile repeats its last row; a lone row costs the multiply-adds of a whole
 * tile, which a product of one row, bound by the weight's bytes, can afford). Only loaded when
 * {@link Simd#enabled()}.
 */
final class PanelsF32 extends WeightStorage {
    private static final int NR = VectorGemmF32.NR;
    private static final int ROWS = VectorGemmF32.ROWS;
    /** This thread's output tile of {@link VectorGemmF32#tileRows}. */
    private static final ThreadLocal<float[]> TILE = ThreadLocal.withInitial(() -> new float[ROWS * NR]);

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
    boolean tiles(int n) {
        return true;
    }

    @Override
    void product(float[] x, int xOff, int ldx, int n, int from, int to, float[] out, int outOff, int ldo) {
        packAndMultiply(x, xOff, ldx, n, from, to, out, outOff, ldo);
    }

    @Override
    void productOfPacked(float[] pa, int paOff, int n, int from, int to, float[] out, int outOff, int ldo) {
        int k = columns;
        float[] tile = TILE.get();
        for (int q = from / NR; q * NR < to; q++) {
            int j0 = Math.max(from, q * NR);
            int j1 = Math.min(to, q * NR + NR);
            int bAt = q * k * NR;
            int at = outOff + (j0 - from);
            for (int i = 0; i < n; i += ROWS) {
                VectorGemmF32.tileRows(k, pa, paOff + i * k, panels, bAt, tile);
                VectorGemmF32.storeTile(tile, j0 - q * NR, Math.min(ROWS, n - i), j1 - j0, out, at + i * ldo, ldo);
            }
        }
    }
}
