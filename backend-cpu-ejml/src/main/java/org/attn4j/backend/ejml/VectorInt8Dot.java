package org.attn4j.backend.ejml;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;
import org.attn4j.api.spi.DynamicQuantization;
import org.attn4j.api.spi.Int8Weight;

/**
 * The int8 × int8 → int32 products of {@link Int8Linear} with the Vector API, at the backend's width
 * ({@link Vectors#F32}: {@code L} int lanes). Each step loads {@code 2L} bytes of the input row and of four weight
 * rows, widens them to {@code 2L} shorts, multiplies in int16 (exact: both factors lie in {@code [-128, 127]}, so a
 * product's magnitude is at most 2^14), widens the products' two halves to ints and adds them to four int32
 * accumulators; the columns past the last whole step are added one by one. Sums wrap in int32 as ONNX's
 * {@code MatMulInteger} does. Loaded only when {@link Simd#enabled()}.
 */
final class VectorInt8Dot {
    private static final VectorSpecies<Integer> I = VectorSpecies.of(int.class, Vectors.F32.vectorShape());
    private static final int LANES = I.length();
    private static final VectorSpecies<Short> S = VectorSpecies.of(short.class, VectorShape.forBitSize(32 * LANES));
    private static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(16 * LANES));
    private static final int STEP = 2 * LANES;

    private VectorInt8Dot() {
    }

    /**
     * One row of the product: {@code y[yAt + j] = a.dequantize(Σ_p (a[i][p] - a_z)·(q[j][p] - z[j]), i, s[j])} for
     * every weight row {@code j}.
     *
     * @param w the weight
     * @param a the quantized input
     * @param i the input row
     * @param y the product, overwritten in the row
     * @param yAt where the row starts
     */
    static void row(Int8Weight w, DynamicQuantization a, int i, float[] y, int yAt) {
        int in = w.shape().dim(1);
        int features = w.shape().dim(0);
        byte[] x = a.numbers();
        byte[] q = w.numbers();
        float[] scales = w.scales();
        int[] zeros = w.zeroPoints();
        int[] sums = w.rowSums();
        int xAt = i * in;
        int j = 0;
        for (; j + 4 <= features; j += 4) {
            IntVector acc0 = IntVector.zero(I);
            IntVector acc1 = IntVector.zero(I);
            IntVector acc2 = IntVector.zero(I);
            IntVector acc3 = IntVector.zero(I);
            int w0 = j * in;
            int w1 = w0 + in;
            int w2 = w1 + in;
            int w3 = w2 + in;
            int p = 0;
            for (; p + STEP <= in; p += STEP) {
                ShortVector xs = widen(x, xAt + p);
                acc0 = add(acc0, xs.mul(widen(q, w0 + p)));
                acc1 = add(acc1, xs.mul(widen(q, w1 + p)));
                acc2 = add(acc2, xs.mul(widen(q, w2 + p)));
                acc3 = add(acc3, xs.mul(widen(q, w3 + p)));
            }
            int r0 = acc0.reduceLanes(VectorOperators.ADD);
            int r1 = acc1.reduceLanes(VectorOperators.ADD);
            int r2 = acc2.reduceLanes(VectorOperators.ADD);
            int r3 = acc3.reduceLanes(VectorOperators.ADD);
            for (; p < in; p++) {
                int v = x[xAt + p];
                r0 += v * q[w0 + p];
                r1 += v * q[w1 + p];
                r2 += v * q[w2 + p];
                r3 += v * q[w3 + p];
            }
            y[yAt + j] = a.dequantize(a.correct(r0, i, in, zeros[j], sums[j]), i, scales[j]);
            y[yAt + j + 1] = a.dequantize(a.correct(r1, i, in, zeros[j + 1], sums[j + 1]), i, scales[j + 1]);
            y[yAt + j + 2] = a.dequantize(a.correct(r2, i, in, zeros[j + 2], sums[j + 2]), i, scales[j + 2]);
            y[yAt + j + 3] = a.dequantize(a.correct(r3, i, in, zeros[j + 3], sums[j + 3]), i, scales[j + 3]);
        }
        for (; j < features; j++) {
            y[yAt + j] = a.dequantize(w.dot(a, i, j), i, scales[j]);
        }
    }

    private static ShortVector widen(byte[] v, int at) {
        return (ShortVector) ByteVector.fromArray(B, v, at).convertShape(VectorOperators.B2S, S, 0);
    }

    private static IntVector add(IntVector acc, ShortVector products) {
        IntVector lo = (IntVector) products.convertShape(VectorOperators.S2I, I, 0);
        IntVector hi = (IntVector) products.convertShape(VectorOperators.S2I, I, 1);
        return acc.add(lo).add(hi);
    }
}
