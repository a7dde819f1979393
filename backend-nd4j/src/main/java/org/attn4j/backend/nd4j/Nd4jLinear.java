package org.attn4j.backend.nd4j;

import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Shape;
import org.bytedeco.javacpp.Pointer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * {@code linear} with its epilogue straight on OpenBLAS's CBLAS: the weight {@code W [N, in]} is read where it lies
 * as the transposed operand, and the bias rides in the product's {@code beta}.
 * <pre>
 *   y = b (each row)                      memcpy copies that double
 *   y = x·Wᵀ + y                          one ?gemm; for at most {@value #GEMV_ROWS} rows one ?gemv per row
 *   z = act(y)                            in place (libnd4j)
 *   gated:  z = act(y[:, 0, n)) ⊙ y[:, n, 2n)   the gate's half copied out and activated, one multiply in place
 *   z += residual                         ?axpy, in blocks OpenBLAS keeps on the calling thread
 * </pre>
 * The product is the very call of {@code linear(x, W, b)} (gated: over all 2n rows at once, not one product per
 * half), and each epilogue step the same float operation as the composition's op, so the fused op equals its
 * composition to the last bit; the residual is not folded into the product's {@code beta} for the same reason
 * (a GEMM that adds {@code C} before its last panel of {@code k} rounds differently, which a sum that cancels
 * shows). libnd4j's {@code matmul} costs a graph context, shape buffers and a custom-op dispatch per call, and
 * hands a single-row problem to GEMM, which packs the whole weight for one row; for a decoding step's
 * matrix-vector products the difference is an order of magnitude (see the README).
 */
final class Nd4jLinear {
    /** Input rows up to which each row is one matrix-vector product instead of one GEMM for all. */
    static final int GEMV_ROWS = 4;

    private Nd4jLinear() {
    }

    /**
     * @param x {@code [..., in]}, C-ordered; not modified
     * @param weight the address of {@code W [N, in]}, row-major, of {@code x}'s element type; not modified
     * @param weightShape {@code [N, in]}
     * @param bias {@code [N]} or null; not modified
     * @param epilogue the activation and gate ({@code N = 2n} when gated)
     * @param residual the result's shape, or null; not modified
     * @param dtype the element type of x and the result
     * @param t receives the intermediates
     * @return a new {@code [rows, n]} array, {@code rows} the product of x's leading dims
     */
    static INDArray compute(INDArray x, Pointer weight, Shape weightShape, INDArray bias, Epilogue epilogue,
                            INDArray residual, DType dtype, Intermediates t) {
        int in = weightShape.dim(1);
        int rows = Math.toIntExact(x.length() / in);
        int width = weightShape.dim(0);
        INDArray y = t.add(NdArrays.uninitialized(dtype, Shape.of(rows, width)));
        Pointer ys = BlasProducts.address(y);
        product(BlasProducts.address(x), weight, bias == null ? null : BlasProducts.address(bias), ys, rows, width,
                in, dtype.byteSize());
        INDArray z = y;
        if (epilogue.gated()) {
            int n = width / 2;
            z = t.add(y.get(NDArrayIndex.all(), NDArrayIndex.interval(0, n)).dup('c'));
            Kernels.activate(z, epilogue.activation(), t);
            Nd4jOps.Kind.MUL.exec(z, y.get(NDArrayIndex.all(), NDArrayIndex.interval(n, width)), z);
        } else {
            Kernels.activate(z, epilogue.activation(), t);
        }
        if (residual != null) {
            BlasProducts.addInto(BlasProducts.address(z), BlasProducts.address(residual), z.length());
        }
        return z;
    }

    /** {@code z = x·Wᵀ + b}, with {@code b} repeated on every row, or {@code x·Wᵀ} without. */
    private static void product(Pointer x, Pointer w, Pointer bias, Pointer z, int rows, int n, int in, int bytes) {
        if (bias != null) {
            BlasProducts.fillRows(z, bias, rows, n, bytes);
        }
        double beta = bias == null ? 0.0 : 1.0;
        if (rows <= GEMV_ROWS) {
            for (int row = 0; row < rows; row++) {
                BlasProducts.gemv(false, n, in, 1.0, w, in, x.getPointer((long) row * in),
                        z.getPointer((long) row * n), beta);
            }
        } else {
            BlasProducts.gemm(true, rows, n, in, 1.0, x, in, w, in, beta, z, n);
        }
    }
}
