package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;
import org.attn4j.api.WeightType;

/**
 * A GGUF weight of a block type beyond Q8_0 and Q4_0 (Q4_1, Q5_0, Q5_1, Q2_K … Q6_K, IQ4_NL, IQ4_XS) in
 * {@link NarrowPanels}, in the form {@link WeightType#decodeLevels} reads every such type into: one signed byte
 * {@code level} per number and, apart, one F32 scale {@code a} and one F32 offset {@code c} per row and group of
 * {@code g = type.groupSize()} columns (16 or 32):
 * <pre>
 *   W[r][p] = fl(fl(level[r][p] · a[r][p / g]) + c[r][p / g])
 * </pre>
 * rounded twice, exactly as ggml's {@code dequantize_row_*} and {@link WeightType#decode}, with the panel layout of
 * {@link PanelsQ8_0} (the levels of one column's {@code NR} rows side by side, the scales and offsets of one group's
 * {@code NR} rows side by side). Where every offset is {@code -0.0} (the symmetric types: Q5_0, Q3_K, Q6_K, the IQ4
 * types) the offsets are not held and a number is {@code fl(level · a)}, the same float. One kernel serves every
 * type with offsets and one every type without. It holds 8 bits per number plus {@code 32 / g} for the scales and
 * as many for the offsets (9 to 12 bits), more than the file's 3.4 to 6.6 bits and well under F32's 32, so the
 * provider does not declare these types in {@code Capabilities.weightTypes()}. The 4-bit types are held in
 * {@link PanelsNibbles}.
 */
final class PanelsLevels extends NarrowPanels {
    private final int group;
    private final byte[] q;
    private final float[] a;
    /** The offsets, or null where every one is {@code -0.0}. */
    private float[] c;

    private PanelsLevels(WeightType type, int rows, int columns) {
        super(rows, columns, 1, type.name());
        this.group = type.groupSize();
        this.q = new byte[panels * NR * columns];
        this.a = new float[panels * NR * (columns / group)];
        this.c = new float[a.length];
    }

    /**
     * @param type a quantized type
     * @param bytes its blocks, row-major, from position 0, checked; read only during this call
     * @param rows {@code W}'s rows
     * @param columns {@code W}'s columns, a multiple of the type's block size
     * @param parallel the pool whose threads build it, whole panels each
     * @return the weight in panels
     */
    static PanelsLevels of(WeightType type, ByteBuffer bytes, int rows, int columns, Parallel parallel) {
        PanelsLevels p = new PanelsLevels(type, rows, columns);
        int groups = columns / p.group;
        float[] c = p.c;
        decodeRows(type, bytes, rows, columns, parallel, (r, level, scale, offset) -> {
            int panel = r / NR;
            int j = r % NR;
            int at = panel * columns * NR + j;
            for (int col = 0; col < columns; col++) {
                p.q[at + col * NR] = level[col];
            }
            for (int k = 0; k < groups; k++) {
                p.a[(panel * groups + k) * NR + j] = scale[k];
                c[(panel * groups + k) * NR + j] = offset[k];
            }
        });
        if (allNegativeZero(p.c, rows, groups)) {
            p.c = null;
        }
        return p;
    }

    /** @return whether the offsets of the real rows are all {@code -0.0} (padding rows hold {@code +0.0}) */
    private static boolean allNegativeZero(float[] c, int rows, int groups) {
        for (int r = 0; r < rows; r++) {
            for (int k = 0; k < groups; k++) {
                if (Float.floatToRawIntBits(c[((r / NR) * groups + k) * NR + r % NR]) != 0x80000000) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    long heldBytes() {
        return q.length + 4L * a.length + (c == null ? 0 : 4L * c.length);
    }

    @Override
    float value(int panel, int p, int j) {
        int s = (panel * (columns / group) + p / group) * NR + j;
        float scaled = q[panel * columns * NR + p * NR + j] * a[s];
        return c == null ? scaled : scaled + c[s];
    }

    @Override
    void dot(int panel, float[] x, int xAt, float[] y, int yAt) {
        if (c == null) {
            VectorNarrowPanels.dotScaledLevels(columns, group, q, panel * columns * NR, a,
                    panel * (columns / group) * NR, x, xAt, y, yAt);
            return;
        }
        VectorNarrowPanels.dotLevels(columns, group, q, panel * columns * NR, a, c, panel * (columns / group) * NR, x,
                xAt, y, yAt);
    }

    @Override
    boolean hasDot2() {
        return true;
    }

    @Override
    void dot2(int panel, float[] x, int xAt, float[] y, int yAt) {
        if (c == null) {
            VectorNarrowPanels.dot2ScaledLevels(columns, group, q, panel * columns * NR, columns * NR, a,
                    panel * (columns / group) * NR, x, xAt, y, yAt);
            return;
        }
        VectorNarrowPanels.dot2Levels(columns, group, q, panel * columns * NR, columns * NR, a, c,
                panel * (columns / group) * NR, x, xAt, y, yAt);
    }

    @Override
    void unpack(int panel, float[] dst) {
        int at = panel * columns * NR;
        int sAt = panel * (columns / group) * NR;
        if (SIMD && c == null) {
            VectorNarrowPanels.unpackScaledLevels(columns, group, q, at, a, sAt, dst);
            return;
        }
        if (SIMD) {
            VectorNarrowPanels.unpackLevels(columns, group, q, at, a, c, sAt, dst);
            return;
        }
        for (int p = 0; p < columns; p++) {
            int s = sAt + (p / group) * NR;
            for (int j = 0; j < NR; j++) {
                float scaled = q[at + p * NR + j] * a[s + j];
                dst[p * NR + j] = c == null ? scaled : scaled + c[s + j];
            }
        }
    }
}
