package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import org.attn4j.api.WeightType;

/**
 * A GGUF weight whose levels are 4-bit codes from 0 to 15 with a scale and an offset per group ({@link #TYPES}:
 * Q4_1, Q4_K, and Q2_K's 2-bit codes) in {@link NarrowPanels}: the form of {@link PanelsLevels},
 * <pre>
 *   W[r][p] = fl(fl(level[r][p] · a[r][p / g]) + c[r][p / g])          g = type.groupSize() (16 or 32)
 * </pre>
 * with two levels per byte in the nibble layout of {@link PanelsQ4_0}: within a panel, column {@code p} takes
 * {@code NR / 2} bytes, byte {@code i} holding lane {@code i}'s level in its low nibble, unsigned, and lane
 * {@code i + NR/2}'s in its high nibble as the two's complement 4-bit number {@code level - 8}, so that the byte
 * masked to its high nibble is {@code 16 · (level - 8)} as a signed byte and widens to a float without a shift
 * (x86 has no byte shift). Holds 4 bits per number plus {@code 64 / g} for the scales and offsets (6 bits for Q4_K
 * against the file's 4.5), where {@link PanelsLevels} would hold 10: a decoding step reads 40 % fewer bytes.
 */
final class PanelsNibbles extends NarrowPanels {
    /** The types stored here: every level is a code from 0 to 15 ({@code WeightType.decodeLevels}). */
    static final Set<WeightType> TYPES = EnumSet.of(WeightType.Q4_1, WeightType.Q4_K, WeightType.Q2_K);
    private static final int HALF = NR / 2;
    private final int group;
    private final byte[] q;
    private final float[] a;
    private final float[] c;

    private PanelsNibbles(WeightType type, int rows, int columns) {
        super(rows, columns, 0.5, type.name());
        this.group = type.groupSize();
        this.q = new byte[panels * HALF * columns];
        this.a = new float[panels * NR * (columns / group)];
        this.c = new float[a.length];
    }

    /**
     * @param type one of {@link #TYPES}
     * @param bytes its blocks, row-major, from position 0, checked; read only during this call
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns, a multiple of the type's block size
     * @param parallel the pool whose threads build it, whole panels each
     * @return the weight in panels
     */
    static PanelsNibbles of(WeightType type, ByteBuffer bytes, int rows, int columns, Parallel parallel) {
        if (!TYPES.contains(type)) {
            throw new IllegalArgumentException("weight: " + type + " levels do not fit 4 bits");
        }
        PanelsNibbles p = new PanelsNibbles(type, rows, columns);
        int groups = columns / p.group;
        decodeRows(type, bytes, rows, columns, parallel, (r, level, scale, offset) -> {
            int panel = r / NR;
            int j = r % NR;
            int at = panel * columns * HALF + j % HALF;
            boolean low = j < HALF;
            for (int col = 0; col < columns; col++) {
                p.q[at + col * HALF] |= (byte) (low ? level[col] : (level[col] ^ 8) << 4);
            }
            for (int k = 0; k < groups; k++) {
                p.a[(panel * groups + k) * NR + j] = scale[k];
                p.c[(panel * groups + k) * NR + j] = offset[k];
            }
        });
        return p;
    }

    @Override
    long heldBytes() {
        return q.length + 4L * a.length + 4L * c.length;
    }

    @Override
    float value(int panel, int p, int j) {
        int s = (panel * (columns / group) + p / group) * NR + j;
        return level(q[panel * columns * HALF + p * HALF + j % HALF], j) * a[s] + c[s];
    }

    /** @return lane {@code j}'s level in its byte of a column: the low nibble for the first half, else the high */
    private static int level(byte b, int j) {
        return j < HALF ? b & 0xf : ((b >> 4) & 0xf) ^ 8;
    }

    @Override
    void dot(int panel, float[] x, int xAt, float[] y, int yAt) {
        VectorNarrowPanels.dotNibbles(columns, group, q, panel * columns * HALF, a, c,
                panel * (columns / group) * NR, x, xAt, y, yAt);
    }

    @Override
    boolean hasDot2() {
        return true;
    }

    @Override
    void dot2(int panel, float[] x, int xAt, float[] y, int yAt) {
        VectorNarrowPanels.dot2Nibbles(columns, group, q, panel * columns * HALF, columns * HALF, a, c,
                panel * (columns / group) * NR, x, xAt, y, yAt);
    }

    @Override
    void unpack(int panel, float[] dst) {
        int at = panel * columns * HALF;
        int sAt = panel * (columns / group) * NR;
        if (SIMD) {
            VectorNarrowPanels.unpackNibbles(columns, group, q, at, a, c, sAt, dst);
            return;
        }
        for (int p = 0; p < columns; p++) {
            int s = sAt + (p / group) * NR;
            for (int j = 0; j < NR; j++) {
                dst[p * NR + j] = level(q[at + p * HALF + j % HALF], j) * a[s + j] + c[s + j];
            }
        }
    }
}
