package org.attn4j.backend.ejml;

import org.attn4j.api.Shape;
import org.attn4j.api.spi.Strides;
import org.ejml.data.DMatrixRMaj;
import org.ejml.data.FMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.CommonOps_FDRM;
import org.ejml.dense.row.CommonOps_MT_DDRM;
import org.ejml.dense.row.CommonOps_MT_FDRM;

/**
 * Matrix products. F32 products run on {@link VectorGemmF32} where {@link Simd} admits the Vector API, except small
 * or thin ones, and {@code linear} with fewer than {@link VectorFewRowsLinearF32#MAX_ROWS} input rows on
 * {@link VectorFewRowsLinearF32}; the rest run on EJML. A batch with many elements spreads them over the backend's pool; a single
 * large product is split by the SIMD kernel itself or runs EJML's own multi-threaded kernels.
 */
final class MatMul {

    /** Multiply-adds from which a single product is worth EJML's multi-threaded kernel. */
    private static final long CONCURRENT_WORK = 1L << 18;
    /** Multiply-adds from which an F32 product runs on the SIMD kernel rather than on EJML. */
    private static final long SIMD_WORK = 1L << 12;
    private static final int SIMD_MIN_COLUMNS = 8;
    private static final int SIMD_MIN_ROWS = 2;
    /** Multiply-adds per batch element from which a batch with few elements splits each product instead. */
    private static final long SPLIT_WORK = 1L << 22;

    private MatMul() {
    }

    /**
     * {@code out[b] = op(a[b])·op(b[b])} for every index {@code b} of the broadcast batch dims.
     *
     * @param a {@code [..., m, k]} or, transposed, {@code [..., k, m]}; not modified
     * @param b {@code [..., k, n]} or, transposed, {@code [..., n, k]}; not modified
     * @param transposeA use {@code aᵀ}
     * @param transposeB use {@code bᵀ}
     * @param out the result shape {@code [..., m, n]} from {@code ShapeChecks.matmul}
     * @param parallel the pool
     * @return a new array of {@code out.size()} elements
     */
    static Object batched(HeapTensor a, HeapTensor b, boolean transposeA, boolean transposeB, Shape out,
                          Parallel parallel) {
        int rank = out.rank();
        int m = out.dim(-2);
        int n = out.dim(-1);
        int k = transposeA ? a.shape().dim(-2) : a.shape().dim(-1);
        Shape batch = out.slice(0, rank - 2);
        int count = (int) batch.size();
        Object result = HeapScope.allocateForWriting(a.dtype(), out);
        long work = (long) m * n * k;
        if (a.data() instanceof float[] fa && simd(m, n, k)) {
            float[] fb = (float[]) b.data();
            float[] fc = (float[]) result;
            if (count == 1) {
                VectorGemmF32.multiply(m, n, k, fa, 0, transposeA, fb, 0, transposeB, null, fc, 0, parallel);
                return result;
            }
            int[] offA = batchOffsets(a.shape(), batch, m * k);
            int[] offB = batchOffsets(b.shape(), batch, k * n);
            if (count >= 2 * parallel.threads() || work < SPLIT_WORK) {
                parallel.forRange(count, work, (from, to) -> {
                    for (int i = from; i < to; i++) {
                        VectorGemmF32.multiply(m, n, k, fa, offA[i], transposeA, fb, offB[i], transposeB, null,
                                fc, i * m * n, null);
                    }
                });
            } else {
                for (int i = 0; i < count; i++) {
                    VectorGemmF32.multiply(m, n, k, fa, offA[i], transposeA, fb, offB[i], transposeB, null, fc,
                            i * m * n, parallel);
                }
            }
            return result;
        }
        if (count == 1) {
            gemm(parallel.threads() > 1 && work >= CONCURRENT_WORK, transposeA, transposeB, m, n, k, a.data(),
                    b.data(), result);
            return result;
        }
        int[] offA = batchOffsets(a.shape(), batch, m * k);
        int[] offB = batchOffsets(b.shape(), batch, k * n);
        parallel.forRange(count, work, (from, to) -> {
            Object ta = HeapScope.allocate(a.dtype(), (long) m * k);
            Object tb = HeapScope.allocate(a.dtype(), (long) k * n);
            Object tc = HeapScope.allocate(a.dtype(), (long) m * n);
            for (int i = from; i < to; i++) {
                System.arraycopy(a.data(), offA[i], ta, 0, m * k);
                System.arraycopy(b.data(), offB[i], tb, 0, k * n);
                gemm(false, transposeA, transposeB, m, n, k, ta, tb, tc);
                System.arraycopy(tc, 0, result, i * m * n, m * n);
            }
        });
        return result;
    }

    /**
     * {@code out = x·wᵀ (+ bias)}, the product of {@code Ops.linear}.
     *
     * @param rows rows of {@code x} and {@code out}
     * @param features rows of {@code w}, columns of {@code out}
     * @param in columns of {@code x} and {@code w}
     * @param x {@code [rows, in]}, {@code w} {@code [features, in]}, {@code bias} {@code [features]} or
     *     {@code null}; all of one type, {@code float[]} or {@code double[]}, not modified
     * @param out {@code [rows, features]}, same type; overwritten
     * @param parallel the pool
     */
    static void linear(int rows, int features, int in, Object x, Object w, Object bias, Object out,
                       Parallel parallel) {
        if (x instanceof float[] fx && Simd.enabled() && rows < VectorFewRowsLinearF32.MAX_ROWS
                && (long) rows * features * in >= SIMD_WORK) {
            VectorFewRowsLinearF32.linear(rows, features, in, fx, (float[]) w, (float[]) bias, (float[]) out,
                    parallel);
            return;
        }
        if (x instanceof float[] fx && simd(rows, features, in)) {
            VectorGemmF32.multiply(rows, features, in, fx, 0, false, (float[]) w, 0, true, (float[]) bias,
                    (float[]) out, 0, parallel);
            return;
        }
        boolean concurrent = parallel.threads() > 1 && (long) rows * in * features >= Parallel.MIN_WORK * 8;
        gemm(concurrent, false, true, rows, features, in, x, w, out);
        if (bias != null) {
            Elementwise.addRows(out, bias, rows, features);
        }
    }

    /**
     * Whether an F32 product of these sizes runs on {@link VectorGemmF32}: when {@link Simd} admits the Vector API
     * and the product is large enough that packing pays; EJML keeps the small and the thin ones.
     */
    private static boolean simd(int m, int n, int k) {
        return Simd.enabled() && (long) m * n * k >= SIMD_WORK && n >= SIMD_MIN_COLUMNS && m >= SIMD_MIN_ROWS;
    }

    private static int[] batchOffsets(Shape x, Shape batch, int matrixSize) {
        int[] strides = Strides.broadcast("matmul", "batch dims", x.slice(0, x.rank() - 2), batch);
        for (int i = 0; i < strides.length; i++) {
            strides[i] *= matrixSize;
        }
        return Strides.offsets(batch, strides);
    }

    /**
     * {@code c = op(a)·op(b)} on arrays holding exactly one matrix each.
     *
     * @param concurrent use EJML's multi-threaded kernel
     * @param transposeA whether {@code a} is stored {@code [k, m]}
     * @param transposeB whether {@code b} is stored {@code [n, k]}
     * @param m rows of the result
     * @param n columns of the result
     * @param k the inner dimension
     * @param a {@code float[]} or {@code double[]}, not modified
     * @param b same type as {@code a}, not modified
     * @param c same type, {@code m·n} elements; modified (overwritten)
     */
    private static void gemm(boolean concurrent, boolean transposeA, boolean transposeB, int m, int n, int k, Object a,
                     Object b, Object c) {
        if (a instanceof float[] fa) {
            FMatrixRMaj x = transposeA ? FMatrixRMaj.wrap(k, m, fa) : FMatrixRMaj.wrap(m, k, fa);
            FMatrixRMaj y = transposeB ? FMatrixRMaj.wrap(n, k, (float[]) b) : FMatrixRMaj.wrap(k, n, (float[]) b);
            FMatrixRMaj z = FMatrixRMaj.wrap(m, n, (float[]) c);
            if (concurrent) {
                gemmConcurrentF32(transposeA, transposeB, x, y, z);
            } else {
                gemmF32(transposeA, transposeB, x, y, z);
            }
        } else {
            DMatrixRMaj x = transposeA ? DMatrixRMaj.wrap(k, m, (double[]) a) : DMatrixRMaj.wrap(m, k, (double[]) a);
            DMatrixRMaj y = transposeB ? DMatrixRMaj.wrap(n, k, (double[]) b) : DMatrixRMaj.wrap(k, n, (double[]) b);
            DMatrixRMaj z = DMatrixRMaj.wrap(m, n, (double[]) c);
            if (concurrent) {
                gemmConcurrentF64(transposeA, transposeB, x, y, z);
            } else {
                gemmF64(transposeA, transposeB, x, y, z);
            }
        }
    }

    private static void gemmF32(boolean ta, boolean tb, FMatrixRMaj x, FMatrixRMaj y, FMatrixRMaj z) {
        if (ta && tb) {
            CommonOps_FDRM.multTransAB(x, y, z);
        } else if (ta) {
            CommonOps_FDRM.multTransA(x, y, z);
        } else if (tb) {
            CommonOps_FDRM.multTransB(x, y, z);
        } else {
            CommonOps_FDRM.mult(x, y, z);
        }
    }

    private static void gemmConcurrentF32(boolean ta, boolean tb, FMatrixRMaj x, FMatrixRMaj y, FMatrixRMaj z) {
        if (ta && tb) {
            CommonOps_MT_FDRM.multTransAB(x, y, z);
        } else if (ta) {
            CommonOps_MT_FDRM.multTransA(x, y, z);
        } else if (tb) {
            CommonOps_MT_FDRM.multTransB(x, y, z);
        } else {
            CommonOps_MT_FDRM.mult(x, y, z);
        }
    }

    private static void gemmF64(boolean ta, boolean tb, DMatrixRMaj x, DMatrixRMaj y, DMatrixRMaj z) {
        if (ta && tb) {
            CommonOps_DDRM.multTransAB(x, y, z);
        } else if (ta) {
            CommonOps_DDRM.multTransA(x, y, z);
        } else if (tb) {
            CommonOps_DDRM.multTransB(x, y, z);
        } else {
            CommonOps_DDRM.mult(x, y, z);
        }
    }

    private static void gemmConcurrentF64(boolean ta, boolean tb, DMatrixRMaj x, DMatrixRMaj y, DMatrixRMaj z) {
        if (ta && tb) {
            CommonOps_MT_DDRM.multTransAB(x, y, z);
        } else if (ta) {
            CommonOps_MT_DDRM.multTransA(x, y, z);
        } else if (tb) {
            CommonOps_MT_DDRM.multTransB(x, y, z);
        } else {
            CommonOps_MT_DDRM.mult(x, y, z);
        }
    }
}
