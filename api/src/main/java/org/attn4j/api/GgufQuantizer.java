package org.attn4j.api;

import java.nio.ByteBuffer;

/**
 * Quantizes one block of finite numbers into the GGUF types that {@link WeightType#encode} documents beyond Q8_0
 * and Q4_0. Q4_1, Q5_0 and Q5_1 follow ggml's reference quantizers ({@code quantize_row_q4_1_ref} …). The K-types
 * and the IQ4 types take one pass, without ggml's search for the best scales (which its {@code quantize_*} run
 * with an importance matrix): per group of {@link WeightType#groupSize()} numbers,
 * <pre>
 *   symmetric (Q3_K, Q6_K, IQ4_NL, IQ4_XS): s_g = m_g / lowest level, m_g the number of largest |x| in the group
 *   affine (Q2_K, Q4_K, Q5_K):               s_g = (max_g - min(0, min_g)) / top level,  o_g = -min(0, min_g)
 * </pre>
 * then the block's binary16 super-scales {@code d} (and {@code dmin}) so that the largest {@code |s_g|} (and
 * {@code o_g}) takes the largest sub-scale code, each sub-scale code {@code round(s_g / d)} clamped to its bits, and
 * each number the level nearest to {@code (x + o) / (d · code)} (the nearest table entry for the IQ4 types).
 * {@code Math.round} rounds halves up.
 */
final class GgufQuantizer {

    private GgufQuantizer() {
    }

    /**
     * @param t a quantized type other than Q8_0 and Q4_0
     * @param x the numbers, finite
     * @param from where the block's {@code blockSize} numbers start
     * @param out the target, little-endian, the block's bytes zero
     * @param base where the block goes
     */
    static void quantize(WeightType t, float[] x, int from, ByteBuffer out, int base) {
        int n = t.blockSize();
        int[] code = new int[n];
        switch (t) {
            case Q4_1, Q5_1 -> {
                int top = t == WeightType.Q4_1 ? 15 : 31;
                float max = x[from];
                float min = x[from];
                for (int i = 1; i < n; i++) {
                    max = Math.max(max, x[from + i]);
                    min = Math.min(min, x[from + i]);
                }
                float d = (max - min) / top;
                float id = d != 0f ? 1f / d : 0f;
                for (int i = 0; i < n; i++) {
                    code[i] = Math.min(top, (int) ((x[from + i] - min) * id + 0.5f));
                }
                out.putShort(base, Half.fromFloat(d));
                out.putShort(base + 2, Half.fromFloat(min));
            }
            case Q5_0 -> {
                float d = extreme(x, from, n) / -16f;
                float id = d != 0f ? 1f / d : 0f;
                for (int i = 0; i < n; i++) {
                    code[i] = Math.min(31, (int) (x[from + i] * id + 16.5f));
                }
                out.putShort(base, Half.fromFloat(d));
            }
            case IQ4_NL -> {
                short h = Half.fromFloat(extreme(x, from, n) / -127f);
                out.putShort(base, h);
                nearestIq4(x, from, n, Half.toFloat(h), code, 0);
            }
            case Q3_K, Q6_K, IQ4_XS -> symmetric(t, x, from, out, base, code);
            case Q2_K, Q4_K, Q5_K -> affine(t, x, from, out, base, code);
            default -> throw new AssertionError(t);
        }
        GgufBlocks.putCodes(t, out, base, code);
    }

    /** Q3_K, Q6_K, IQ4_XS: signed sub-scales against one binary16 {@code d}. */
    private static void symmetric(WeightType t, float[] x, int from, ByteBuffer out, int base, int[] code) {
        int g = t.groupSize();
        int groups = t.blockSize() / g;
        int lowest = t == WeightType.Q3_K ? -4 : t == WeightType.Q6_K ? -32 : -127;
        int scaleLowest = t == WeightType.Q6_K ? -128 : -32;
        float[] s = new float[groups];
        float big = 0f;
        for (int k = 0; k < groups; k++) {
            s[k] = extreme(x, from + k * g, g) / lowest;
            if (Math.abs(s[k]) > Math.abs(big)) {
                big = s[k];
            }
        }
        short h = Half.fromFloat(big / scaleLowest);
        float d = Half.toFloat(h);
        float id = d != 0f ? 1f / d : 0f;
        int high = 0;
        for (int k = 0; k < groups; k++) {
            int sc = Math.max(scaleLowest, Math.min(-scaleLowest - 1, Math.round(s[k] * id)));
            float a = d * sc;
            switch (t) {
                case Q3_K -> {
                    int c = sc + 32;
                    out.put(base + 96 + k % 8, (byte) (out.get(base + 96 + k % 8) | (c & 0xf) << (4 * (k / 8))));
                    out.put(base + 104 + k % 4, (byte) (out.get(base + 104 + k % 4) | (c >>> 4) << (2 * (k / 4))));
                }
                case Q6_K -> out.put(base + 192 + k, (byte) sc);
                default -> {
                    int c = sc + 32;
                    out.put(base + 4 + k / 2, (byte) (out.get(base + 4 + k / 2) | (c & 0xf) << (4 * (k % 2))));
                    high |= (c >>> 4) << (2 * k);
                }
            }
            if (t == WeightType.IQ4_XS) {
                nearestIq4(x, from + k * g, g, a, code, k * g);
                continue;
            }
            float ia = a != 0f ? 1f / a : 0f;
            for (int i = k * g; i < (k + 1) * g; i++) {
                int level = Math.max(lowest, Math.min(-lowest - 1, Math.round(x[from + i] * ia)));
                code[i] = GgufBlocks.codeOf(t, level);
            }
        }
        switch (t) {
            case Q3_K -> out.putShort(base + 108, h);
            case Q6_K -> out.putShort(base + 208, h);
            default -> {
                out.putShort(base, h);
                out.putShort(base + 2, (short) high);
            }
        }
    }

    /** Q2_K, Q4_K, Q5_K: unsigned sub-scales and minimums against binary16 {@code d} and {@code dmin}. */
    private static void affine(WeightType t, float[] x, int from, ByteBuffer out, int base, int[] code) {
        int g = t.groupSize();
        int groups = t.blockSize() / g;
        int top = t == WeightType.Q2_K ? 3 : t == WeightType.Q4_K ? 15 : 31;
        int scaleTop = t == WeightType.Q2_K ? 15 : 63;
        float[] s = new float[groups];
        float[] o = new float[groups];
        float maxS = 0f;
        float maxO = 0f;
        for (int k = 0; k < groups; k++) {
            float min = 0f;
            float max = x[from + k * g];
            for (int i = k * g; i < (k + 1) * g; i++) {
                min = Math.min(min, x[from + i]);
                max = Math.max(max, x[from + i]);
            }
            s[k] = (max - min) / top;
            o[k] = -min;
            maxS = Math.max(maxS, s[k]);
            maxO = Math.max(maxO, o[k]);
        }
        short hd = Half.fromFloat(maxS / scaleTop);
        short hm = Half.fromFloat(maxO / scaleTop);
        float d = Half.toFloat(hd);
        float dmin = Half.toFloat(hm);
        for (int k = 0; k < groups; k++) {
            int sc = d != 0f ? Math.min(scaleTop, Math.round(s[k] / d)) : 0;
            int mi = dmin != 0f ? Math.min(scaleTop, Math.round(o[k] / dmin)) : 0;
            float a = d * sc;
            float off = dmin * mi;
            float ia = a != 0f ? 1f / a : 0f;
            for (int i = k * g; i < (k + 1) * g; i++) {
                code[i] = Math.max(0, Math.min(top, Math.round((x[from + i] + off) * ia)));
            }
            if (t == WeightType.Q2_K) {
                out.put(base + k, (byte) (sc | mi << 4));
            } else if (k < 4) {
                out.put(base + 4 + k, (byte) (out.get(base + 4 + k) | sc));
                out.put(base + 8 + k, (byte) (out.get(base + 8 + k) | mi));
            } else {
                out.put(base + 8 + k, (byte) ((sc & 0xf) | (mi & 0xf) << 4));
                out.put(base + k, (byte) (out.get(base + k) | (sc >>> 4) << 6));
                out.put(base + 4 + k, (byte) (out.get(base + 4 + k) | (mi >>> 4) << 6));
            }
        }
        int at = t == WeightType.Q2_K ? 80 : 0;
        out.putShort(base + at, hd);
        out.putShort(base + at + 2, hm);
    }

    /** @return the number of largest magnitude, the first one on ties */
    private static float extreme(float[] x, int from, int n) {
        float amax = 0f;
        float m = 0f;
        for (int i = 0; i < n; i++) {
            if (Math.abs(x[from + i]) > amax) {
                amax = Math.abs(x[from + i]);
                m = x[from + i];
            }
        }
        return m;
    }

    /** Sets {@code code[at + i]} to the index of the IQ4 level nearest to {@code x[from + i] / a}. */
    private static void nearestIq4(float[] x, int from, int n, float a, int[] code, int at) {
        float ia = a != 0f ? 1f / a : 0f;
        for (int i = 0; i < n; i++) {
            float v = x[from + i] * ia;
            int best = 0;
            for (int k = 1; k < 16; k++) {
                if (Math.abs(v - GgufBlocks.IQ4[k]) < Math.abs(v - GgufBlocks.IQ4[best])) {
                    best = k;
                }
            }
            code[at + i] = best;
        }
    }
}
