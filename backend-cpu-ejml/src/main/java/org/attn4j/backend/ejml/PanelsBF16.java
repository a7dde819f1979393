package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;

/**
 * A BF16 weight in {@link NarrowPanels}: one {@code short} per number, the upper half of its F32 bits, so widening
 * is a shift. Holds half the bytes of F32.
 */
final class PanelsBF16 extends NarrowPanels {
    private final short[] w;

    private PanelsBF16(int rows, int columns) {
        super(rows, columns, 1, "BF16");
        this.w = new short[panels * NR * columns];
    }

    /**
     * @param bytes little-endian BF16 numbers, row-major, from position 0; read only during this call
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns
     * @param parallel the pool whose threads build it, whole panels each
     * @return the weight in panels
     */
    static PanelsBF16 of(ByteBuffer bytes, int rows, int columns, Parallel parallel) {
        PanelsBF16 p = new PanelsBF16(rows, columns);
        byPanels(parallel, rows, columns, NR, (from, to) -> {
            byte[] row = new byte[2 * columns];
            for (int r = from; r < to; r++) {
                rowBytes(bytes, r, row);
                int at = (r / NR) * columns * NR + r % NR;
                for (int c = 0; c < columns; c++) {
                    p.w[at + c * NR] = shortAt(row, 2 * c);
                }
            }
        });
        return p;
    }

    @Override
    long heldBytes() {
        return 2L * w.length;
    }

    @Override
    float value(int q, int p, int j) {
        return Float.intBitsToFloat(w[q * columns * NR + p * NR + j] << 16);
    }

    @Override
    void dot(int q, float[] x, int xAt, float[] y, int yAt) {
        int even = columns & ~1;
        if (even == 0) {
            java.util.Arrays.fill(y, yAt, yAt + NR, 0f);
        } else {
            VectorNarrowPanels.dotBf16(even, w, q * columns * NR, x, xAt, y, yAt);
        }
        if (even != columns) {
            addLastColumn(q, x, xAt, y, yAt);
        }
    }

    @Override
    boolean hasDot3() {
        return true;
    }

    @Override
    void dot3(int q, float[] x, int xAt, float[] y, int yAt) {
        int even = columns & ~1;
        if (even == 0) {
            java.util.Arrays.fill(y, yAt, yAt + 3 * NR, 0f);
        } else {
            VectorNarrowPanels.dot3Bf16(even, w, q * columns * NR, columns * NR, x, xAt, y, yAt);
        }
        if (even != columns) {
            for (int j = 0; j < 3; j++) {
                addLastColumn(q + j, x, xAt, y, yAt + j * NR);
            }
        }
    }

    @Override
    boolean hasDotRows() {
        return true;
    }

    @Override
    void dotRows(int q, float[] x, int[] xAt, float[] y, int[] yAt) {
        int even = columns & ~1;
        if (even == 0) {
            for (int r = 0; r < DOT_ROWS; r++) {
                java.util.Arrays.fill(y, yAt[r], yAt[r] + NR, 0f);
            }
        } else {
            VectorNarrowPanels.dot4Bf16(even, w, q * columns * NR, x, xAt, y, yAt);
        }
        if (even != columns) {
            for (int r = 0; r < DOT_ROWS; r++) {
                addLastColumn(q, x, xAt[r], y, yAt[r]);
            }
        }
    }

    @Override
    void unpack(int q, float[] dst) {
        int at = q * columns * NR;
        if (SIMD) {
            VectorNarrowPanels.unpackBf16(columns, w, at, dst);
            return;
        }
        for (int i = 0; i < columns * NR; i++) {
            dst[i] = Float.intBitsToFloat(w[at + i] << 16);
        }
    }
}
