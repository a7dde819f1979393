package org.attn4j.backend.ejml;

import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.spi.ReferenceOps;

/**
 * The decoder ops on heap arrays: rotary embeddings, SiLU and soft-capping, each one pass over its
 * input, computed in double precision and rounded to the operand's type.
 */
final class DecoderKernels {

    private DecoderKernels() {
    }

    /**
     * @param v the input
     * @return {@code v / (1 + e^-v)}
     */
    static double silu(double v) {
        return v / (1.0 + Math.exp(-v));
    }

    /**
     * @param x {@code [outer, rows, d]}, {@code float[]} or {@code double[]}, not modified
     * @param rows {@code L}
     * @param d the head dimension, at least {@code rotary.dimension()}
     * @param rotary the frequencies, scaling and pair layout
     * @param offset the position of row 0
     * @return the rotated rows (features past {@code rotary.dimension()} copied), a new array of x's type
     */
    static Object rope(Object x, int rows, int d, RotaryEmbedding rotary, int offset) {
        double[][] tables = ReferenceOps.ropeTables(rows, rotary, offset);
        double[] cos = tables[0];
        double[] sin = tables[1];
        int half = rotary.pairs();
        boolean halfSplit = rotary.layout() == RopeLayout.HALF_SPLIT;
        int pairStride = halfSplit ? 1 : 2;
        int partner = halfSplit ? half : 1;
        float[] fin = x instanceof float[] f ? f : null;
        double[] din = x instanceof double[] g ? g : null;
        int length = fin != null ? fin.length : din.length;
        float[] fout = fin == null ? null : ArrayPool.floats(length, false);
        double[] dout = din == null ? null : ArrayPool.doubles(length, false);
        System.arraycopy(x, 0, fin != null ? fout : dout, 0, length);
        for (int rowBase = 0, p = 0; rowBase < length; rowBase += d, p = (p + 1) % rows) {
            for (int i = 0; i < half; i++) {
                int ia = rowBase + i * pairStride;
                int ib = ia + partner;
                double c = cos[p * half + i];
                double s = sin[p * half + i];
                if (fin != null) {
                    double a = fin[ia];
                    double b = fin[ib];
                    fout[ia] = (float) (a * c - b * s);
                    fout[ib] = (float) (b * c + a * s);
                } else {
                    double a = din[ia];
                    double b = din[ib];
                    dout[ia] = a * c - b * s;
                    dout[ib] = b * c + a * s;
                }
            }
        }
        return fin != null ? fout : dout;
    }

    /**
     * @param v the input
     * @param cap positive
     * @return {@code cap · tanh(v / cap)}
     */
    static double softcap(double v, double cap) {
        return cap * Math.tanh(v / cap);
    }
}
