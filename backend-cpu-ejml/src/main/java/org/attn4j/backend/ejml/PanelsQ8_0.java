package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;

/**
 * A GGUF Q8_0 weight in {@link NarrowPanels}: one signed byte per number and, apart, one F32 scale per row and block
 * of 32 columns (the file's binary16 scale, widened exactly): {@code W[r][p] = q[r][p] · d[r][p / 32]}. Holds
 * 8.125 bits per number where the file holds 8.5 (the scales are F32 here, the numbers are not padded per block).
 */
final class PanelsQ8_0 extends NarrowPanels {
    private final byte[] q;
    private final float[] d;

    private PanelsQ8_0(int rows, int columns) {
        super(rows, columns, 1, "Q8_0");
        this.q = new byte[panels * NR * columns];
        this.d = new float[panels * NR * (columns / 32)];
    }

    /**
     * @param bytes GGUF Q8_0 blocks (a binary16 scale, then 32 signed bytes), row-major, from position 0, the
     *     scales checked finite; read only during this call
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns, a multiple of 32
     * @param parallel the pool whose threads build it, whole panels each
     * @return the weight in panels
     */
    static PanelsQ8_0 of(ByteBuffer bytes, int rows, int columns, Parallel parallel) {
        PanelsQ8_0 p = new PanelsQ8_0(rows, columns);
        int blocks = columns / 32;
        byPanels(parallel, rows, columns, NR, (from, to) -> {
            byte[] row = new byte[blocks * 34];
            for (int r = from; r < to; r++) {
                rowBytes(bytes, r, row);
                int panel = r / NR;
                int j = r % NR;
                int at = panel * columns * NR + j;
                for (int b = 0; b < blocks; b++) {
                    int src = b * 34;
                    p.d[(panel * blocks + b) * NR + j] = PanelsF16.widen(shortAt(row, src));
                    for (int i = 0; i < 32; i++) {
                        p.q[at + (b * 32 + i) * NR] = row[src + 2 + i];
                    }
                }
            }
        });
        return p;
    }

    @Override
    long heldBytes() {
        return q.length + 4L * d.length;
    }

    @Override
    float value(int panel, int p, int j) {
        return q[panel * columns * NR + p * NR + j] * d[(panel * (columns / 32) + p / 32) * NR + j];
    }

    @Override
    void dot(int panel, float[] x, int xAt, float[] y, int yAt) {
        VectorNarrowPanels.dotQ8(columns, q, panel * columns * NR, d, panel * (columns / 32) * NR, x, xAt, y, yAt);
    }

    @Override
    boolean hasDotRows() {
        return true;
    }

    @Override
    void dotRows(int panel, float[] x, int[] xAt, float[] y, int[] yAt) {
        VectorNarrowPanels.dot4Q8(columns, q, panel * columns * NR, d, panel * (columns / 32) * NR, x, xAt, y, yAt);
    }

    @Override
    boolean hasDot3() {
        return true;
    }

    @Override
    void dot3(int panel, float[] x, int xAt, float[] y, int yAt) {
        VectorNarrowPanels.dot3Q8(columns, q, panel * columns * NR, columns * NR, d, panel * (columns / 32) * NR,
                x, xAt, y, yAt);
    }

    @Override
    void unpack(int panel, float[] dst) {
        int at = panel * columns * NR;
        int dAt = panel * (columns / 32) * NR;
        if (SIMD) {
            VectorNarrowPanels.unpackQ8(columns, q, at, d, dAt, dst);
            return;
        }
        for (int p = 0; p < columns; p++) {
            int s = dAt + (p / 32) * NR;
            for (int j = 0; j < NR; j++) {
                dst[p * NR + j] = q[at + p * NR + j] * d[s + j];
            }
        }
    }
}
