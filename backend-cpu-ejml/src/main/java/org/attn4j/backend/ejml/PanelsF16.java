package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;

/**
 * An F16 (IEEE binary16) weight in {@link NarrowPanels}: one {@code short} per number, widened exactly, subnormals
 * included, without arithmetic on subnormal floats. A weight holding ±∞ or NaN, which the SIMD kernels do not
 * widen, runs the scalar path instead (decided once, at bind).
 */
final class PanelsF16 extends NarrowPanels {
    private final short[] w;
    /** Whether some number is ±∞ or NaN; set once, before the weight is published. */
    private boolean special;

    private PanelsF16(int rows, int columns) {
        super(rows, columns, 1, "F16");
        this.w = new short[panels * NR * columns];
    }

    /**
     * @param bytes little-endian binary16 numbers, row-major, from position 0; read only during this call
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns
     * @param parallel the pool whose threads build it, whole panels each
     * @return the weight in panels
     */
    static PanelsF16 of(ByteBuffer bytes, int rows, int columns, Parallel parallel) {
        PanelsF16 p = new PanelsF16(rows, columns);
        java.util.concurrent.atomic.AtomicBoolean special = new java.util.concurrent.atomic.AtomicBoolean();
        byPanels(parallel, rows, columns, NR, (from, to) -> {
            boolean found = false;
            byte[] row = new byte[2 * columns];
            for (int r = from; r < to; r++) {
                rowBytes(bytes, r, row);
                int at = (r / NR) * columns * NR + r % NR;
                for (int c = 0; c < columns; c++) {
                    short h = shortAt(row, 2 * c);
                    found |= (h & 0x7c00) == 0x7c00;
                    p.w[at + c * NR] = h;
                }
            }
            if (found) {
                special.set(true);
            }
        });
        p.special = special.get();
        return p;
    }

    /**
     * @param h binary16 bits
     * @return the same number as a float
     */
    static float widen(short h) {
        int m = h & 0x7fff;
        float f;
        if (m >= 0x7c00) {
            f = Float.intBitsToFloat(0x7f800000 | (m & 0x3ff) << 13);
        } else if (m < 0x400) {
            f = m * 0x1p-24f;
        } else {
            f = Float.intBitsToFloat((m << 13) + 0x38000000);
        }
        return h < 0 ? -f : f;
    }

    @Override
    long heldBytes() {
        return 2L * w.length;
    }

    @Override
    float value(int q, int p, int j) {
        return widen(w[q * columns * NR + p * NR + j]);
    }

    @Override
    void dot(int q, float[] x, int xAt, float[] y, int yAt) {
        if (special) {
            java.util.Arrays.fill(y, yAt, yAt + NR, 0f);
            for (int p = 0; p < columns; p++) {
                float v = x[xAt + p];
                for (int j = 0; j < NR; j++) {
                    y[yAt + j] += v * value(q, p, j);
                }
            }
            return;
        }
        VectorNarrowPanels.dotF16(columns, w, q * columns * NR, x, xAt, y, yAt);
    }

    @Override
    void unpack(int q, float[] dst) {
        int at = q * columns * NR;
        if (SIMD && !special) {
            VectorNarrowPanels.unpackF16(columns, w, at, dst);
            return;
        }
        for (int i = 0; i < columns * NR; i++) {
            dst[i] = widen(w[at + i]);
        }
    }
}
