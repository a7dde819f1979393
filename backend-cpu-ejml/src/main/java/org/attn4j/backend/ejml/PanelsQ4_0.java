package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;

/**
 * A GGUF Q4_0 weight in {@link NarrowPanels}: two numbers per byte and, apart, one F32 scale per row and block of 32
 * columns, {@code W[r][p] = (n[r][p] - 8) · d[r][p / 32]}. Within a panel, column {@code p} takes {@code NR / 2}
 * bytes: byte {@code i} holds lane {@code i} in its low nibble and lane {@code i + NR/2} in its high nibble (the two
 * halves of the panel's two F32 vectors), each as the 4-bit two's complement number {@code n - 8}, so that widening
 * is a sign-extending shift. Holds 4.625 bits per number where the file holds 4.5.
 */
final class PanelsQ4_0 extends NarrowPanels {
    private static final int HALF = NR / 2;
    private final byte[] q;
    private final float[] d;

    private PanelsQ4_0(int rows, int columns) {
        super(rows, columns, 0.5, "Q4_0");
        this.q = new byte[panels * HALF * columns];
        this.d = new float[panels * NR * (columns / 32)];
    }

    /**
     * @param bytes GGUF Q4_0 blocks (a binary16 scale, then 16 bytes: numbers {@code i} and {@code i + 16} in the
     *     low and high nibble of byte {@code i}), row-major, from position 0, the scales checked finite; read only
     *     during this call
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns, a multiple of 32
     * @param parallel the pool whose threads build it, whole panels each
     * @return the weight in panels
     */
    static PanelsQ4_0 of(ByteBuffer bytes, int rows, int columns, Parallel parallel) {
        PanelsQ4_0 p = new PanelsQ4_0(rows, columns);
        int blocks = columns / 32;
        byPanels(parallel, rows, columns, NR, (from, to) -> {
            byte[] row = new byte[blocks * 18];
            for (int r = from; r < to; r++) {
                rowBytes(bytes, r, row);
                int panel = r / NR;
                int j = r % NR;
                int at = panel * columns * HALF + j % HALF;
                int shift = j < HALF ? 0 : 4;
                for (int b = 0; b < blocks; b++) {
                    int src = b * 18;
                    p.d[(panel * blocks + b) * NR + j] = PanelsF16.widen(shortAt(row, src));
                    for (int i = 0; i < 16; i++) {
                        int n = row[src + 2 + i] & 0xff;
                        p.q[at + (b * 32 + i) * HALF] |= (byte) (((n & 0xf) ^ 8) << shift);
                        p.q[at + (b * 32 + 16 + i) * HALF] |= (byte) (((n >>> 4) ^ 8) << shift);
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
        int b = q[panel * columns * HALF + p * HALF + j % HALF];
        int n = j < HALF ? (b << 28) >> 28 : b >> 4;
        return n * d[(panel * (columns / 32) + p / 32) * NR + j];
    }

    @Override
    void dot(int panel, float[] x, int xAt, float[] y, int yAt) {
        VectorNarrowPanels.dotQ4(columns, q, panel * columns * HALF, d, panel * (columns / 32) * NR, x, xAt, y,
                yAt);
    }

    @Override
    void unpack(int panel, float[] dst) {
        int at = panel * columns * HALF;
        int dAt = panel * (columns / 32) * NR;
        if (SIMD) {
            VectorNarrowPanels.unpackQ4(columns, q, at, d, dAt, dst);
            return;
        }
        for (int p = 0; p < columns; p++) {
            int s = dAt + (p / 32) * NR;
            for (int i = 0; i < HALF; i++) {
                int b = q[at + p * HALF + i];
                dst[p * NR + i] = ((b << 28) >> 28) * d[s + i];
                dst[p * NR + HALF + i] = (b >> 4) * d[s + HALF + i];
            }
        }
    }
}
