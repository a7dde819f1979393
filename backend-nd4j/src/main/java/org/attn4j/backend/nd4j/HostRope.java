package org.attn4j.backend.nd4j;

import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import org.attn4j.api.DType;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.ReferenceOps;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Rotary position embeddings in one pass of plain Java loops over the native buffers, in F64 whatever the dtype
 * (rounded to it once), with the spi's tables ({@link ReferenceOps#ropeTables}: cosine and sine of each angle times
 * the attention scaling):
 * <pre>
 *   pair t &lt; n of row p: (a, b) = (x[t], x[t + n]) half-split, (x[2t], x[2t + 1]) interleaved
 *   (a, b) -&gt; (a·cos − b·sin, b·cos + a·sin)     the features from 2n on copied
 * </pre>
 * Each product and sum rounds in F64 as the F64 composition's ops would, so the result is that composition's,
 * rounded once to the dtype. libnd4j needs a dozen calls for it (casts, strided copies of the pairs, four
 * multiplies, a subtraction, an addition, the tables' uploads), which made RoPE the largest op but one of a small
 * Llama's decoding step on this backend.
 */
final class HostRope {
    private HostRope() {
    }

    /**
     * @param x {@code [..., L, d]}, C-ordered; not modified
     * @param shape x's shape
     * @param rotary the pairs, their frequencies and layout, at most {@code d/2} pairs
     * @param offset the position of row 0
     * @param dtype the element type
     * @param t receives the intermediates
     * @return a new array of x's shape
     */
    static INDArray rotate(INDArray x, Shape shape, RotaryEmbedding rotary, int offset, DType dtype,
                           Intermediates t) {
        int rows = shape.dim(-2);
        int d = shape.dim(-1);
        int n = rotary.pairs();
        int outer = Math.toIntExact(shape.size() / ((long) rows * d));
        double[][] tables = ReferenceOps.ropeTables(rows, rotary, offset);
        double[] cos = tables[0];
        double[] sin = tables[1];
        boolean interleaved = rotary.layout() == RopeLayout.INTERLEAVED;
        INDArray out = t.add(NdArrays.uninitialized(dtype, shape));
        int block = rows * d;
        double[] v = new double[block];
        DoubleBuffer inD = dtype == DType.F64 ? HostNorms.doubles(x) : null;
        DoubleBuffer toD = dtype == DType.F64 ? HostNorms.doubles(out) : null;
        FloatBuffer inF = dtype == DType.F64 ? null : HostNorms.floats(x);
        FloatBuffer toF = dtype == DType.F64 ? null : HostNorms.floats(out);
        float[] f = dtype == DType.F64 ? null : new float[block];
        for (int o = 0; o < outer; o++) {
            if (inD != null) {
                inD.get(v);
            } else {
                inF.get(f);
                for (int i = 0; i < block; i++) {
                    v[i] = f[i];
                }
            }
            for (int p = 0; p < rows; p++) {
                for (int i = 0; i < n; i++) {
                    double c = cos[p * n + i];
                    double s = sin[p * n + i];
                    int ia = p * d + (interleaved ? 2 * i : i);
                    int ib = p * d + (interleaved ? 2 * i + 1 : i + n);
                    double a = v[ia];
                    double b = v[ib];
                    v[ia] = a * c - b * s;
                    v[ib] = b * c + a * s;
                }
            }
            if (toD != null) {
                toD.put(v);
            } else {
                for (int i = 0; i < block; i++) {
                    f[i] = (float) v[i];
                }
                toF.put(f);
            }
        }
        return out;
    }
}
