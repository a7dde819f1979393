package org.attn4j.backend.ejml;

import org.attn4j.api.RopeLayout;
import org.attn4j.api.spi.ReferenceOps;

/**
 * The decoder ops on heap arrays: rotary embeddings and SiLU, each one pass over its input, computed
 * in double precision and rounded to the operand's type.
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
     * @param d the head dimension, even
     * @param layout which features form a pair
     * @param base the frequency base
     * @param offset the position of row 0
     * @return the rotated rows, a new array of x's type
     */
    static Object rope(Object x, int rows, int d, RopeLayout layout, double base, int offset) {
        double[][] tables = ReferenceOps.ropeTables(rows, d, base, offset);
        double[] cos = tables[0];
        double[] sin = tables[1];
        int half = d / 2;
        int pairStride = layout == RopeLayout.HALF_SPLIT ? 1 : 2;
        int partner = layout == RopeLayout.HALF_SPLIT ? half : 1;
        int length = x instanceof float[] f ? f.length : ((double[]) x).length;
        float[] fin = x instanceof float[] f ? f : null;
        double[] din = x instanceof double[] g ? g : null;
        float[] fout = fin == null ? null : new float[length];
        double[] dout = din == null ? null : new double[length];
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
}
