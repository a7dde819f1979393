package org.attn4j.backend.nd4j;

import static org.bytedeco.openblas.global.openblas_nolapack.CblasNoTrans;
import static org.bytedeco.openblas.global.openblas_nolapack.CblasRowMajor;
import static org.bytedeco.openblas.global.openblas_nolapack.CblasTrans;
import static org.bytedeco.openblas.global.openblas_nolapack.cblas_daxpy;
import static org.bytedeco.openblas.global.openblas_nolapack.cblas_dgemm;
import static org.bytedeco.openblas.global.openblas_nolapack.cblas_dgemv;
import static org.bytedeco.openblas.global.openblas_nolapack.cblas_saxpy;
import static org.bytedeco.openblas.global.openblas_nolapack.cblas_sgemm;
import static org.bytedeco.openblas.global.openblas_nolapack.cblas_sgemv;

import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;
import org.nd4j.linalg.api.buffer.DataBuffer;
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
    /** The most elements OpenBLAS's matrix-vector product keeps on the calling thread: below 2304·4. */
    static final long SINGLE_THREADED = 2304 * 4 - 1;
    /** The largest matrix-vector product issued in single-threaded blocks. */
    static final long CHUNKED_UP_TO = 1L << 17;
    /** The longest {@code ?axpy} OpenBLAS keeps on the calling thread (its {@code interface/axpy.c}). */
    static final int SINGLE_THREADED_AXPY = 10_000;

    private BlasProducts() {
    }

    /**
     * {@code c[p] = alpha · a[p]·op(b[p])} for every problem {@code p}.
     *
     * @param a {@code [P, m, k]}; not modified
     * @param b {@code [P, n, k]} if {@code transposeB}, else {@code [P, k, n]}; not modified
     * @param c {@code [P, m, n]}; modified (overwritten)
     * @param problems {@code P}
     * @param m rows of {@code a} and {@code c}
     * @param n columns of {@code c}
     * @param k the inner dimension
     * @param transposeB use {@code b[p]ᵀ}
     * @param alpha the factor applied to the product
     * @return false, computing nothing, if an operand is null or the dtypes differ (the caller then uses libnd4j's
     *     matmul)
     */
    static boolean multiply(Operand a, Operand b, Operand c, int problems, int m, int n, int k, boolean transposeB,
                            double alpha) {
        if (a == null || b == null || c == null || a.type != c.type || b.type != c.type) {
            return false;
        }
        for (long p = 0; p < problems; p++) {
            Pointer pa = a.at(p);
            Pointer pb = b.at(p);
            Pointer pc = c.at(p);
            if (m == 1) {
                gemv(!transposeB, transposeB ? n : k, transposeB ? k : n, alpha, pb, b.leading, pa, pc, 0.0);
            } else if (c.type == DataType.DOUBLE) {
                cblas_dgemm(CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans, m, n, k, alpha,
                        (DoublePointer) pa, a.leading, (DoublePointer) pb, b.leading, 0.0, (DoublePointer) pc,
                        c.leading);
            } else {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans, m, n, k,
                        (float) alpha, (FloatPointer) pa, a.leading, (FloatPointer) pb, b.leading, 0f,
                        (FloatPointer) pc, c.leading);
            }
        }
        return true;
    }

    /**
     * {@code y = alpha · A·x + beta · y}, or {@code alpha · Aᵀ·x + beta · y} when {@code transpose}, for a row-major
     * {@code A} of {@code rows × cols}. OpenBLAS runs a matrix-vector product of fewer than 2304·4 elements on the calling thread
     * and a larger one on all its threads (its {@code interface/gemv.c}); waking them costs more than such a product
     * saves, and on a loaded machine a woken thread waits for a core: a GPT-2 step with 518 cached keys spent 15–28 ms
     * instead of about 1 ms in attention. So a product of at most {@value #CHUNKED_UP_TO} elements is issued in
     * blocks of rows that stay below that threshold (for {@code Aᵀ·x}, each block accumulating into {@code y}).
     */
    static void gemv(boolean transpose, int rows, int cols, double alpha, Pointer a, int lda, Pointer x, Pointer y,
                     double beta) {
        int chunk = (long) rows * cols <= CHUNKED_UP_TO ? (int) Math.max(1, SINGLE_THREADED / cols) : rows;
        for (int r = 0; r < rows; r += chunk) {
            int count = Math.min(chunk, rows - r);
            Pointer block = a.getPointer((long) r * lda);
            Pointer in = transpose ? x.getPointer(r) : x;
            Pointer out = transpose ? y : y.getPointer(r);
            double b = transpose && r > 0 ? 1.0 : beta;
            int op = transpose ? CblasTrans : CblasNoTrans;
            if (a instanceof DoublePointer) {
                cblas_dgemv(CblasRowMajor, op, count, cols, alpha, (DoublePointer) block, lda, (DoublePointer) in, 1,
                        b, (DoublePointer) out, 1);
            } else {
                cblas_sgemv(CblasRowMajor, op, count, cols, (float) alpha, (FloatPointer) block, lda,
                        (FloatPointer) in, 1, (float) b, (FloatPointer) out, 1);
            }
        }
    }

    /**
     * {@code C = alpha · A·op(B) + beta · C}, row-major, in the precision of the pointers (F32 or F64).
     *
     * @param transposeB use {@code Bᵀ}: {@code B} is stored {@code [n, k]}
     * @param m rows of {@code A} and {@code C}
     * @param n columns of {@code C}
     * @param k the inner dimension
     * @param alpha the factor of the product
     * @param a {@code [m, k]} with rows {@code lda} apart; not modified
     * @param lda the distance between rows of {@code A}
     * @param b {@code [k, n]} (or {@code [n, k]}) with rows {@code ldb} apart; not modified
     * @param ldb the distance between rows of {@code B}
     * @param beta the factor of {@code C}'s old contents (0: they are not read)
     * @param c {@code [m, n]} with rows {@code ldc} apart; modified
     * @param ldc the distance between rows of {@code C}
     */
    static void gemm(boolean transposeB, int m, int n, int k, double alpha, Pointer a, int lda, Pointer b, int ldb,
                     double beta, Pointer c, int ldc) {
        int op = transposeB ? CblasTrans : CblasNoTrans;
        if (c instanceof DoublePointer) {
            cblas_dgemm(CblasRowMajor, CblasNoTrans, op, m, n, k, alpha, (DoublePointer) a, lda, (DoublePointer) b,
                    ldb, beta, (DoublePointer) c, ldc);
        } else {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, op, m, n, k, (float) alpha, (FloatPointer) a, lda,
                    (FloatPointer) b, ldb, (float) beta, (FloatPointer) c, ldc);
        }
    }

    /**
     * {@code z += r}, elementwise over {@code n} elements, in blocks that OpenBLAS keeps on the calling thread.
     *
     * @param z the sum; modified
     * @param r the addend, of {@code z}'s element type; not modified
     * @param n the element count
     */
    static void addInto(Pointer z, Pointer r, long n) {
        for (long i = 0; i < n; i += SINGLE_THREADED_AXPY) {
            int count = (int) Math.min(SINGLE_THREADED_AXPY, n - i);
            if (z instanceof DoublePointer) {
                cblas_daxpy(count, 1.0, (DoublePointer) r.getPointer(i), 1, (DoublePointer) z.getPointer(i), 1);
            } else {
                cblas_saxpy(count, 1f, (FloatPointer) r.getPointer(i), 1, (FloatPointer) z.getPointer(i), 1);
            }
        }
    }

    /**
     * Writes one row into every row of a row-major {@code [rows, n]} matrix, by copies that double each time.
     *
     * @param z {@code [rows, n]}, contiguous; modified
     * @param row {@code n} elements of {@code z}'s type; not modified
     * @param rows at least 1
     * @param n the row length
     * @param elementBytes 4 or 8
     */
    static void fillRows(Pointer z, Pointer row, int rows, int n, int elementBytes) {
        Pointer.memcpy(z, row, (long) n * elementBytes);
        for (long filled = 1; filled < rows; filled *= 2) {
            long copy = Math.min(filled, rows - filled);
            Pointer.memcpy(z.getPointer(filled * n), z, copy * n * elementBytes);
        }
    }

    /**
     * @param x a C-ordered, contiguous F32 or F64 array
     * @return the address of its first element (a {@link FloatPointer} or {@link DoublePointer})
     * @throws IllegalStateException if {@code x} is not such an array or does not lie inside its buffer
     */
    static Pointer address(INDArray x) {
        DataType type = x.dataType();
        DataBuffer data = x.data();
        long start = x.offset() - data.offset();
        if (type != DataType.FLOAT && type != DataType.DOUBLE || x.ordering() != 'c'
                || (x.length() > 1 && x.elementWiseStride() != 1) || start < 0 || start + x.length() > data.length()) {
            throw new IllegalStateException("nd4j: an operand of " + type + " " + java.util.Arrays.toString(x.shape())
                    + " is not a contiguous array inside its buffer");
        }
        return data.addressPointer().getPointer(start);
    }

    /**
     * One operand's matrices as BLAS sees them, taken from a whole C-contiguous array, so that a call makes no ND4J
     * view (nor the buffer view ND4J makes for a view at an offset).
     *
     * @param type the element type, F32 or F64
     * @param base the address of the array's buffer
     * @param start the index of the operand's first element from {@code base}
     * @param step the distance between problems
     * @param leading the distance between rows
     */
    record Operand(DataType type, Pointer base, long start, long step, int leading) {
        /**
         * @param x a C-contiguous F32 or F64 array of {@code problems·length·dim} elements, viewed as
         *     {@code [P, L, dim]}
         * @param problems {@code P}
         * @param length {@code L}
         * @param dim the row length
         * @param first the first row taken from each problem
         * @param count how many rows, from {@code first}
         * @return rows {@code [first, first + count)} of every problem; null if {@code x} is not such an array or
         *     the rows do not lie inside its buffer
         */
        static Operand rows(INDArray x, long problems, long length, long dim, long first, long count) {
            DataType type = x.dataType();
            if (type != DataType.FLOAT && type != DataType.DOUBLE || x.ordering() != 'c'
                    || x.elementWiseStride() != 1 || x.length() != problems * length * dim || first < 0
                    || count < 1 || first + count > length || dim < 1 || dim > Integer.MAX_VALUE) {
                return null;
            }
            DataBuffer data = x.data();
            long start = x.offset() - data.offset() + first * dim;
            long last = start + (problems - 1) * length * dim + count * dim - 1;
            if (start < 0 || last >= data.length()) {
                return null;
            }
            return new Operand(type, data.addressPointer(), start, length * dim, (int) dim);
        }

        /** @return the address of problem {@code p}'s matrix */
        <P extends Pointer> P at(long p) {
            return base.getPointer(start + p * step);
        }
    }
}
