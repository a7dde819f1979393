package org.attn4j.backend.nd4j;

import org.attn4j.api.Activation;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Shape;
import org.bytedeco.javacpp.Pointer;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * {@code linear} with its epilogue straight on OpenBLAS's CBLAS: the weight {@code W [N, in]} is read where it lies
 * as the transposed operand, and the bias and the residual ride in the product's {@code beta}.
 * <pre>
 *   z = b (each row)  or  residual  or  nothing        memcpy copies that double, or one memcpy
 *   z = x·W[r0, r0 + n)ᵀ + beta·z                       one ?gemm; for at most {@value #GEMV_ROWS} rows one ?gemv per row
 *   z = act(z)                                         in place (libnd4j)
 *   gated:  u = x·W[n, 2n)ᵀ + b_u,  z = act(z) ⊙ u    a second product over the up rows, one multiply in place
 *   z += residual                                      ?axpy, when the activation or the gate came first
 * </pre>
 * libnd4j's {@code matmul} costs a graph context, shape buffers and a custom-op dispatch per call, and hands a
 * single-row problem to GEMM, which packs the whole weight for one row; for a decoding step's matrix-vector
 * products the difference is an order of magnitude (see the README).
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
        boolean gated = epilogue.gated();
        int n = gated ? weightShape.dim(0) / 2 : weightShape.dim(0);
        int bytes = dtype.byteSize();
        Pointer xs = BlasProducts.address(x);
        Pointer b = bias == null ? null : BlasProducts.address(bias);
        Pointer r = residual == null ? null : BlasProducts.address(residual);
        INDArray z = t.add(NdArrays.uninitialized(dtype, Shape.of(rows, n)));
        Pointer zs = BlasProducts.address(z);
        boolean residualInProduct = r != null && b == null && !gated
                && epilogue.activation() == Activation.IDENTITY;
        product(xs, weight, residualInProduct ? r : b, !residualInProduct, zs, rows, n, in, bytes);
        if (gated) {
            INDArray u = t.add(NdArrays.uninitialized(dtype, Shape.of(rows, n)));
            product(xs, weight.getPointer((long) n * in), b == null ? null : b.getPointer(n), true,
                    BlasProducts.address(u), rows, n, in, bytes);
            Kernels.activate(z, epilogue.activation(), t);
            Nd4jOps.Kind.MUL.exec(z, u, z);
        } else {
            Kernels.activate(z, epilogue.activation(), t);
        }
        if (r != null && !residualInProduct) {
            BlasProducts.addInto(zs, r, (long) rows * n);
        }
        return z;
    }

    /**
     * {@code z = x·Wᵀ + start}, {@code start} a row repeated, a whole matrix, or nothing.
     *
     * @param start {@code n} elements when {@code repeat}, {@code rows·n} otherwise; or null for zeros
     */
    private static void product(Pointer x, Pointer w, Pointer start, boolean repeat, Pointer z, int rows, int n,
                                int in, int bytes) {
        if (start != null && repeat) {
            BlasProducts.fillRows(z, start, rows, n, bytes);
        } else if (start != null) {
            Pointer.memcpy(z, start, (long) rows * n * bytes);
        }
        double beta = start == null ? 0.0 : 1.0;
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
