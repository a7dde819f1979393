package org.attn4j.api;

import java.nio.ByteBuffer;

/**
 * The bit layouts of GGUF's quantized blocks, as ggml defines them ({@code block_q4_0} … {@code block_iq4_xs}), read
 * into and written from one common form: every number of a block is a small integer {@code level} (a signed byte)
 * and every group of {@link WeightType#groupSize()} numbers has a scale {@code a} and an offset {@code c}, with
 * <pre>
 *   value = fl(fl(level · a) + c)
 * </pre>
 * which is what ggml's {@code dequantize_row_*} computes for every type, in the same two roundings: {@code c} is
 * {@code m} for Q4_1/Q5_1, {@code -(dmin·min)} for the K-types with minimums, and {@code -0.0} for the symmetric
 * types (adding {@code -0.0} changes no value, not even the sign of a zero).
 *
 * <p>A level's code is split over at most two bit fields of the block (low and high bits); {@link #LO_BYTE} etc. hold
 * each field's byte and shift per number, computed once; the code becomes a level by subtracting a bias (Q4_0's 8,
 * Q5_0's 16, Q3_K's 4, Q6_K's 32) or, for the IQ4 types, through the {@link #IQ4} table. Q4_K, Q5_K and Q6_K, the
 * types of the files people download most, are read by loops written out for their layouts ({@link #levelsQ4K}
 * …), which give the same levels as the tables and run 2.5 to 3 times as fast.
 */
final class GgufBlocks {
    /** The 16 levels of the IQ4 types, ggml's {@code kvalues_iq4nl}. */
    static final byte[] IQ4 = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

    private static final int TYPES = WeightType.values().length;
    private static final int[][] LO_BYTE = new int[TYPES][];
    private static final int[][] LO_SHIFT = new int[TYPES][];
    private static final int[][] HI_BYTE = new int[TYPES][];
    private static final int[][] HI_SHIFT = new int[TYPES][];

    static {
        for (WeightType t : WeightType.values()) {
            if (!t.isQuantized()) {
                continue;
            }
            int n = t.blockSize();
            int[] lb = new int[n];
            int[] ls = new int[n];
            int[] hb = new int[n];
            int[] hs = new int[n];
            for (int e = 0; e < n; e++) {
                switch (t) {
                    case Q8_0 -> lb[e] = 2 + e;
                    case Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL -> {
                        lb[e] = qsAt(t) + e % 16;
                        ls[e] = 4 * (e / 16);
                        hb[e] = qsAt(t) - 4 + e / 8;
                        hs[e] = e % 8;
                    }
                    case Q2_K, Q3_K -> {
                        lb[e] = (t == WeightType.Q2_K ? 16 : 32) + e / 128 * 32 + e % 32;
                        ls[e] = 2 * (e % 128 / 32);
                        hb[e] = e % 32;
                        hs[e] = e / 32;
                    }
                    case Q4_K, Q5_K -> {
                        lb[e] = (t == WeightType.Q4_K ? 16 : 48) + e / 64 * 32 + e % 32;
                        ls[e] = 4 * (e % 64 / 32);
                        hb[e] = 16 + e % 32;
                        hs[e] = e / 32;
                    }
                    case Q6_K -> {
                        lb[e] = e / 128 * 64 + e % 64;
                        ls[e] = 4 * (e % 128 / 64);
                        hb[e] = 128 + e / 128 * 32 + e % 32;
                        hs[e] = 2 * (e % 128 / 32);
                    }
                    case IQ4_XS -> {
                        lb[e] = 8 + e / 32 * 16 + e % 16;
                        ls[e] = 4 * (e % 32 / 16);
                    }
                    default -> throw new AssertionError(t);
                }
            }
            LO_BYTE[t.ordinal()] = lb;
            LO_SHIFT[t.ordinal()] = ls;
            HI_BYTE[t.ordinal()] = hb;
            HI_SHIFT[t.ordinal()] = hs;
        }
    }

    private GgufBlocks() {
    }

    /** @return where the 16 bytes of nibbles of a block of 32 start */
    private static int qsAt(WeightType t) {
        return switch (t) {
            case Q4_0, IQ4_NL -> 2;
            case Q4_1 -> 4;
            case Q5_0 -> 6;
            default -> 8;
        };
    }

    /** @return the bits of a code's low field */
    private static int loBits(WeightType t) {
        return switch (t) {
            case Q8_0 -> 8;
            case Q2_K, Q3_K -> 2;
            default -> 4;
        };
    }

    /** @return the bits of a code's high field, 0 where there is none */
    private static int hiBits(WeightType t) {
        return switch (t) {
            case Q5_0, Q5_1, Q3_K, Q5_K -> 1;
            case Q6_K -> 2;
            default -> 0;
        };
    }

    /** @return what a code has subtracted to become a level */
    private static int bias(WeightType t) {
        return switch (t) {
            case Q4_0 -> 8;
            case Q5_0 -> 16;
            case Q3_K -> 4;
            case Q6_K -> 32;
            default -> 0;
        };
    }

    /** The blocks {@link #read} copies out of the buffer at a time, into an array it then reads. */
    private static final int CHUNK_BLOCKS = 64;

    /**
     * Reads blocks into levels, scales and offsets.
     *
     * @param t a quantized type
     * @param in little-endian bytes, not modified
     * @param at where the first block starts
     * @param blocks how many blocks follow each other
     * @param level receives {@code blocks·blockSize} levels from {@code levelAt}
     * @param levelAt where they go
     * @param a receives {@code blocks·blockSize/groupSize} scales from {@code groupAt}
     * @param c receives as many offsets from {@code groupAt}
     * @param groupAt where they go
     */
    static void read(WeightType t, ByteBuffer in, int at, int blocks, byte[] level, int levelAt, float[] a,
                     float[] c, int groupAt) {
        int n = t.blockSize();
        int groups = n / t.groupSize();
        int size = t.blockBytes();
        byte[] chunk = new byte[Math.min(blocks, CHUNK_BLOCKS) * size];
        for (int first = 0; first < blocks; first += CHUNK_BLOCKS) {
            int count = Math.min(CHUNK_BLOCKS, blocks - first);
            in.get(at + first * size, chunk, 0, count * size);
            for (int b = 0; b < count; b++) {
                int base = b * size;
                int out = levelAt + (first + b) * n;
                switch (t) {
                    case Q4_K -> levelsQ4K(chunk, base, level, out);
                    case Q5_K -> levelsQ5K(chunk, base, level, out);
                    case Q6_K -> levelsQ6K(chunk, base, level, out);
                    default -> levels(t, chunk, base, level, out);
                }
                scales(t, chunk, base, a, c, groupAt + (first + b) * groups);
            }
        }
    }

    /**
     * Reads one block's levels from the bit fields {@link #LO_BYTE} etc. name, number by number: every type's
     * layout in one loop.
     *
     * @param t a quantized type
     * @param in the block's bytes at {@code base}
     * @param base where the block starts
     * @param level receives {@code blockSize} levels from {@code out}
     * @param out where they go
     */
    static void levels(WeightType t, byte[] in, int base, byte[] level, int out) {
        int[] lb = LO_BYTE[t.ordinal()];
        int[] ls = LO_SHIFT[t.ordinal()];
        int[] hb = HI_BYTE[t.ordinal()];
        int[] hs = HI_SHIFT[t.ordinal()];
        int loMask = (1 << loBits(t)) - 1;
        int hiBits = hiBits(t);
        int hiMask = (1 << hiBits) - 1;
        int shiftHi = loBits(t);
        int bias = bias(t);
        boolean table = t == WeightType.IQ4_NL || t == WeightType.IQ4_XS;
        for (int e = 0; e < t.blockSize(); e++) {
            int code = ((in[base + lb[e]] & 0xff) >>> ls[e]) & loMask;
            if (hiBits > 0) {
                code |= (((in[base + hb[e]] & 0xff) >>> hs[e]) & hiMask) << shiftHi;
            }
            level[out + e] = table ? IQ4[code] : (byte) (code - bias);
        }
    }

    /**
     * {@link #levels} for Q4_K, the type of most of the weights people download, written out: four runs of 32 bytes
     * at 16, each byte's low nibble the level of number {@code 64j + l}, its high nibble that of {@code 64j + 32 + l}.
     * About 2.5 times as fast as the loop over the tables, where loading a GGUF file spends much of its time.
     */
    static void levelsQ4K(byte[] in, int base, byte[] level, int out) {
        for (int j = 0; j < 4; j++) {
            int q = base + 16 + 32 * j;
            int o = out + 64 * j;
            for (int l = 0; l < 32; l++) {
                int v = in[q + l];
                level[o + l] = (byte) (v & 15);
                level[o + 32 + l] = (byte) ((v >> 4) & 15);
            }
        }
    }

    /**
     * {@link #levels} for Q5_K written out, as ggml's {@code dequantize_row_q5_K} reads it: Q4_K's nibbles at 48,
     * and the fifth bit of number {@code 32i + l} in bit {@code i} of byte {@code 16 + l}.
     */
    static void levelsQ5K(byte[] in, int base, byte[] level, int out) {
        for (int j = 0; j < 4; j++) {
            int q = base + 48 + 32 * j;
            int o = out + 64 * j;
            for (int l = 0; l < 32; l++) {
                int v = in[q + l];
                int h = in[base + 16 + l] >> (2 * j);
                level[o + l] = (byte) ((v & 15) | (h & 1) << 4);
                level[o + 32 + l] = (byte) (((v >> 4) & 15) | (h & 2) << 3);
            }
        }
    }

    /**
     * {@link #levels} for Q6_K written out, as ggml's {@code dequantize_row_q6_K} reads it: per half of 128 numbers,
     * 64 bytes of nibbles at {@code 64h} and 32 bytes of 2-bit high parts at {@code 128 + 32h}; number
     * {@code 128h + 32i + l} takes the low ({@code i < 2}) or high nibble of byte {@code 64h + l} ({@code i} even)
     * or {@code 64h + 32 + l} ({@code i} odd), and bits {@code 2i, 2i + 1} of byte {@code 128 + 32h + l}; minus 32.
     */
    static void levelsQ6K(byte[] in, int base, byte[] level, int out) {
        for (int h = 0; h < 2; h++) {
            int ql = base + 64 * h;
            int qh = base + 128 + 32 * h;
            int o = out + 128 * h;
            for (int l = 0; l < 32; l++) {
                int lo0 = in[ql + l];
                int lo1 = in[ql + 32 + l];
                int hi = in[qh + l];
                level[o + l] = (byte) (((lo0 & 15) | (hi & 3) << 4) - 32);
                level[o + 32 + l] = (byte) (((lo1 & 15) | ((hi >> 2) & 3) << 4) - 32);
                level[o + 64 + l] = (byte) ((((lo0 >> 4) & 15) | ((hi >> 4) & 3) << 4) - 32);
                level[o + 96 + l] = (byte) ((((lo1 >> 4) & 15) | ((hi >> 6) & 3) << 4) - 32);
            }
        }
    }

    /** Reads one block's scales and offsets into {@code a[g..]} and {@code c[g..]}, as ggml computes them. */
    private static void scales(WeightType t, byte[] in, int base, float[] a, float[] c, int g) {
        switch (t) {
            case Q8_0, Q4_0, Q5_0, IQ4_NL -> {
                a[g] = half(in, base);
                c[g] = -0f;
            }
            case Q4_1, Q5_1 -> {
                a[g] = half(in, base);
                c[g] = half(in, base + 2);
            }
            case Q2_K -> {
                float d = half(in, base + 80);
                float dmin = half(in, base + 82);
                for (int i = 0; i < 16; i++) {
                    int sc = in[base + i] & 0xff;
                    a[g + i] = d * (sc & 0xf);
                    c[g + i] = -(dmin * (sc >>> 4));
                }
            }
            case Q3_K -> {
                float d = half(in, base + 108);
                for (int i = 0; i < 16; i++) {
                    int lo = ((in[base + 96 + i % 8] & 0xff) >>> (4 * (i / 8))) & 0xf;
                    int hi = ((in[base + 104 + i % 4] & 0xff) >>> (2 * (i / 4))) & 3;
                    a[g + i] = d * ((lo | hi << 4) - 32);
                    c[g + i] = -0f;
                }
            }
            case Q4_K, Q5_K -> {
                float d = half(in, base);
                float dmin = half(in, base + 2);
                for (int j = 0; j < 8; j++) {
                    a[g + j] = d * scaleK(in, base + 4, j);
                    c[g + j] = -(dmin * minK(in, base + 4, j));
                }
            }
            case Q6_K -> {
                float d = half(in, base + 208);
                for (int i = 0; i < 16; i++) {
                    a[g + i] = d * in[base + 192 + i];
                    c[g + i] = -0f;
                }
            }
            case IQ4_XS -> {
                float d = half(in, base);
                int high = (in[base + 2] & 0xff) | (in[base + 3] & 0xff) << 8;
                for (int i = 0; i < 8; i++) {
                    int lo = ((in[base + 4 + i / 2] & 0xff) >>> (4 * (i % 2))) & 0xf;
                    int hi = (high >>> (2 * i)) & 3;
                    a[g + i] = d * ((lo | hi << 4) - 32);
                    c[g + i] = -0f;
                }
            }
            default -> throw new AssertionError(t);
        }
    }

    /** The 6-bit scale {@code j} of Q4_K/Q5_K's 12 packed bytes at {@code s}. */
    private static int scaleK(byte[] in, int s, int j) {
        if (j < 4) {
            return in[s + j] & 63;
        }
        return (in[s + j + 4] & 0xf) | ((in[s + j - 4] & 0xff) >>> 6) << 4;
    }

    /** The 6-bit minimum {@code j} of Q4_K/Q5_K's 12 packed bytes at {@code s}. */
    private static int minK(byte[] in, int s, int j) {
        if (j < 4) {
            return in[s + j + 4] & 63;
        }
        return ((in[s + j + 4] & 0xff) >>> 4) | ((in[s + j] & 0xff) >>> 6) << 4;
    }

    /** @return the little-endian binary16 at {@code at}, widened */
    private static float half(byte[] in, int at) {
        return Half.toFloat((short) ((in[at] & 0xff) | in[at + 1] << 8));
    }

    /**
     * @param t a quantized type
     * @return the offsets, within a block, of its binary16 fields (the scales every number depends on)
     */
    static int[] halfFields(WeightType t) {
        return switch (t) {
            case Q8_0, Q4_0, Q5_0, IQ4_NL, IQ4_XS -> new int[] {0};
            case Q4_1, Q5_1, Q4_K, Q5_K -> new int[] {0, 2};
            case Q2_K -> new int[] {80, 82};
            case Q3_K -> new int[] {108};
            case Q6_K -> new int[] {208};
            default -> new int[0];
        };
    }

    /**
     * Writes one block of codes: every number's code into its bit fields. The block's bytes must be zero.
     *
     * @param t a quantized type
     * @param out the target, little-endian
     * @param base where the block starts
     * @param code the codes (levels plus the bias, or IQ4 indices), {@code blockSize} of them
     */
    static void putCodes(WeightType t, ByteBuffer out, int base, int[] code) {
        int[] lb = LO_BYTE[t.ordinal()];
        int[] ls = LO_SHIFT[t.ordinal()];
        int[] hb = HI_BYTE[t.ordinal()];
        int[] hs = HI_SHIFT[t.ordinal()];
        int loBits = loBits(t);
        int loMask = (1 << loBits) - 1;
        for (int e = 0; e < t.blockSize(); e++) {
            out.put(base + lb[e], (byte) (out.get(base + lb[e]) | (code[e] & loMask) << ls[e]));
            if (hiBits(t) > 0) {
                int hi = (code[e] >>> loBits) & ((1 << hiBits(t)) - 1);
                out.put(base + hb[e], (byte) (out.get(base + hb[e]) | hi << hs[e]));
            }
        }
    }

    /** @return the code of a level: the level plus the type's bias */
    static int codeOf(WeightType t, int level) {
        return level + bias(t);
    }
}
