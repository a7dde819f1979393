package org.attn4j.backend.nd4j;

import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import org.attn4j.api.DType;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.ReferenceOps;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Rotary position embeddings in one pass of plain Java loops over the native buffers, with the spi's angle tables
 * ({@link ReferenceOps#ropeTables}, in F64, rounded to the dtype as the composition's tensors are):
 * <pre>
 *   pair t of row p: (a, b) = (x[t], x[t + d/2]) half-split, (x[2t], x[2t + 1]) interleaved
 *   (a, b) -&gt; (a·cos − b·sin, b·cos + a·sin)     each product rounded to the dtype, as the composition's ops
 * </pre>
 * The composition takes a dozen native calls (split, four multiplies, a subtraction, an addition, a concat, the
 * tables' uploads), which made RoPE the largest op of a small Llama's decoding step on this backend.
 */
final class HostRope {
    private HostRope() {
    }

    /**
     * @param x {@code [..., L, d]}, C-ordered, {@code d} even; not modified
     * @param shape x's shape
     * @param layout how the pairs are laid out
     * @param base the frequency base
     * @param offset the position of row 0
     * @param dtype the element type
     * @param t receives the intermediates
     * @return a new array of x's shape
     */
    static INDArray rotate(INDArray x, Shape shape, RopeLayout layout, double base, int offset, DType dtype,
                           Intermediates t) {
        int rows = shape.dim(-2);
        int d = shape.dim(-1);
        int half = d / 2;
        int outer = Math.toIntExact(shape.size() / ((long) rows * d));
        double[][] tables = ReferenceOps.ropeTables(rows, d, base, offset);
        boolean interleaved = layout == RopeLayout.INTERLEAVED;
        INDArray out = t.add(NdArrays.uninitialized(dtype, shape));
        int block = rows * d;
        if (dtype == DType.F64) {
            DoubleBuffer in = HostNorms.doubles(x);
            DoubleBuffer to = HostNorms.doubles(out);
            double[] v = new double[block];
            for (int o = 0; o < outer; o++) {
                in.get(v);
                for (int p = 0; p < rows; p++) {
                    for (int i = 0; i < half; i++) {
                        double c = tables[0][p * half + i];
                        double s = tables[1][p * half + i];
                        int ia = p * d + (interleaved ? 2 * i : i);
                        int ib = p * d + (interleaved ? 2 * i + 1 : i + half);
                        double a = v[ia];
                        double b = v[ib];
                        v[ia] = a * c - b * s;
                        v[ib] = b * c + a * s;
                    }
                }
                to.put(v);
            }
        } else {
            float[] cos = new float[rows * half];
            float[] sin = new float[rows * half];
            for (int i = 0; i < cos.length; i++) {
                cos[i] = (float) tables[0][i];
                sin[i] = (float) tables[1][i];
            }
            FloatBuffer in = HostNorms.floats(x);
            FloatBuffer to = HostNorms.floats(out);
            float[] v = new float[block];
            for (int o = 0; o < outer; o++) {
                in.get(v);
                for (int p = 0; p < rows; p++) {
                    for (int i = 0; i < half; i++) {
                        float c = cos[p * half + i];
                        float s = sin[p * half + i];
                        int ia = p * d + (interleaved ? 2 * i : i);
                        int ib = p * d + (interleaved ? 2 * i + 1 : i + half);
                        float a = v[ia];
                        float b = v[ib];
                        v[ia] = a * c - b * s;
                        v[ib] = b * c + a * s;
                    }
                }
                to.put(v);
            }
        }
        return out;
    }
}
