package org.attn4j.backend.nd4j;

import static org.bytedeco.openblas.global.openblas_nolapack.CblasNoTrans;
import static org.bytedeco.openblas.global.openblas_nolapack.CblasRowMajor;
import static org.bytedeco.openblas.global.openblas_nolapack.CblasTrans;
import static org.bytedeco.openblas.global.openblas_nolapack.cblas_dgemm;
import static org.bytedeco.openblas.global.openblas_nolapack.cblas_dgemv;
import static org.bytedeco.openblas.global.openblas_nolapack.cblas_sgemm;
import static org.bytedeco.openblas.global.openblas_nolapack.cblas_sgemv;

import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Batched products of a few rows, problem by problem, straight to the CBLAS of the OpenBLAS that ND4J's own GEMMs
 * run on: one {@code ?gemv} per problem when it has one row, else one {@code ?gemm}. libnd4j's batched matmul costs
 * far more for such shapes: for 12 problems of one row against 512 keys of 64 (decoding), one call took 240–340 µs
 * and the loop of matrix-vector products 40–65 µs; against 4,096 keys 2.4–3.7 ms and 0.3–0.65 ms (OpenBLAS 0.3.19
 * packs both operands of a GEMM even when one is a single row).
 */
final class BlasProducts {

    private BlasProducts() {
    }

    /**
     * {@code c[p] = alpha · a[p]·op(b[p])} for every problem {@code p}, if every operand's rows have unit stride.
     *
     * @param a {@code [P, m, k]}; not modified
     * @param b {@code [P, n, k]} if {@code transposeB}, else {@code [P, k, n]}; may be a view; not modified
     * @param c {@code [P, m, n]}; modified (overwritten)
     * @param transposeB use {@code b[p]ᵀ}
     * @param alpha the factor applied to the product
     * @return false, computing nothing, if an operand's dtype or layout does not fit (the caller then uses libnd4j's
     *     matmul)
     */
    static boolean multiply(INDArray a, INDArray b, INDArray c, boolean transposeB, double alpha) {
        DataType type = c.dataType();
        if (!fits(a, type) || !fits(b, type) || !fits(c, type)) {
            return false;
        }
        int m = Math.toIntExact(a.size(1));
        int k = Math.toIntExact(a.size(2));
        int n = Math.toIntExact(c.size(2));
        int lda = leading(a);
        int ldb = leading(b);
        int ldc = leading(c);
        boolean doubles = type == DataType.DOUBLE;
        for (long p = 0, problems = c.size(0); p < problems; p++) {
            long ao = start(a) + p * a.stride(0);
            long bo = start(b) + p * b.stride(0);
            long co = start(c) + p * c.stride(0);
            if (doubles) {
                DoublePointer pa = ((DoublePointer) a.data().addressPointer()).getPointer(ao);
                DoublePointer pb = ((DoublePointer) b.data().addressPointer()).getPointer(bo);
                DoublePointer pc = ((DoublePointer) c.data().addressPointer()).getPointer(co);
                if (m == 1) {
                    cblas_dgemv(CblasRowMajor, transposeB ? CblasNoTrans : CblasTrans, transposeB ? n : k,
                            transposeB ? k : n, alpha, pb, ldb, pa, 1, 0.0, pc, 1);
                } else {
                    cblas_dgemm(CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans, m, n, k, alpha,
                            pa, lda, pb, ldb, 0.0, pc, ldc);
                }
            } else {
                FloatPointer pa = ((FloatPointer) a.data().addressPointer()).getPointer(ao);
                FloatPointer pb = ((FloatPointer) b.data().addressPointer()).getPointer(bo);
                FloatPointer pc = ((FloatPointer) c.data().addressPointer()).getPointer(co);
                if (m == 1) {
                    cblas_sgemv(CblasRowMajor, transposeB ? CblasNoTrans : CblasTrans, transposeB ? n : k,
                            transposeB ? k : n, (float) alpha, pb, ldb, pa, 1, 0f, pc, 1);
                } else {
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans, m, n, k,
                            (float) alpha, pa, lda, pb, ldb, 0f, pc, ldc);
                }
            }
        }
        return true;
    }

    /**
     * @return whether {@code x} is a rank-3 array of {@code type} whose rows are contiguous and whose every element
     *     lies inside its buffer
     */
    private static boolean fits(INDArray x, DataType type) {
        if (x.rank() != 3 || x.dataType() != type || x.stride(2) != 1 && x.size(2) != 1
                || x.size(1) > 1 && (x.stride(1) < x.size(2) || x.stride(1) > Integer.MAX_VALUE)) {
            return false;
        }
        long last = start(x) + (x.size(0) - 1) * x.stride(0) + (x.size(1) - 1) * x.stride(1) + x.size(2) - 1;
        return start(x) >= 0 && last < x.data().length();
    }

    /**
     * @return the index of {@code x}'s first element from its buffer's address: the buffer of a view may already
     *     start at the view's offset
     */
    private static long start(INDArray x) {
        return x.offset() - x.data().offset();
    }

    /** @return the distance between rows of {@code x}'s matrices, as BLAS wants it (at least the row length) */
    private static int leading(INDArray x) {
        return x.size(1) == 1 ? (int) Math.max(1, x.size(2)) : Math.toIntExact(x.stride(1));
    }
}
