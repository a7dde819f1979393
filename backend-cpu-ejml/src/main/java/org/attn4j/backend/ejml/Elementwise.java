package org.attn4j.backend.ejml;

import java.util.Arrays;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.AbstractOps.Binary;
import org.attn4j.api.spi.Erf;
import org.attn4j.api.spi.Strides;

/** Elementwise kernels: broadcasting binary ops by stride arithmetic, and unary maps. */
final class Elementwise {

    /** A function of an element's flat index and value. */
    @FunctionalInterface
    interface Unary {
        double apply(long index, double value);
    }

    private static final double SQRT_HALF = 0.7071067811865476;
    private static final double SQRT_TWO_OVER_PI = 0.7978845608028654;

    private Elementwise() {
    }

    /**
     * {@code out[i] = a[ia(i)] op b[ib(i)]} over the broadcast shape, one innermost row at a time.
     *
     * @param op the operation
     * @param a first operand, not modified
     * @param b second operand of a's dtype, not modified
     * @param out the broadcast shape of {@code a} and {@code b}
     * @param parallel the pool for large results
     * @return a new {@code float[]} or {@code double[]} of {@code out.size()} elements
     */
    static Object binary(Binary op, HeapTensor a, HeapTensor b, Shape out, Parallel parallel) {
        if (a.shape().equals(out) && b.shape().equals(out)) {
            return sameShape(op, a, b, out, parallel);
        }
        int rank = out.rank();
        int n = rank == 0 ? 1 : out.dim(-1);
        int[] sa = Strides.broadcast(op.op(), "a", a.shape(), out);
        int[] sb = Strides.broadcast(op.op(), "b", b.shape(), out);
        int la = rank == 0 ? 0 : sa[rank - 1];
        int lb = rank == 0 ? 0 : sb[rank - 1];
        Shape rows = rank == 0 ? Shape.scalar() : out.slice(0, rank - 1);
        int[] rowA = Strides.offsets(rows, Arrays.copyOf(sa, Math.max(0, rank - 1)));
        int[] rowB = Strides.offsets(rows, Arrays.copyOf(sb, Math.max(0, rank - 1)));
        Object result = HeapScope.allocateForWriting(a.dtype(), out);
        if (result instanceof float[] o) {
            float[] x = a.f32();
            float[] y = b.f32();
            parallel.forRange(rowA.length, n, (from, to) -> {
                for (int r = from; r < to; r++) {
                    rowF32(op, x, rowA[r], la, y, rowB[r], lb, o, r * n, n);
                }
            });
        } else {
            double[] o = (double[]) result;
            double[] x = a.f64();
            double[] y = b.f64();
            parallel.forRange(rowA.length, n, (from, to) -> {
                for (int r = from; r < to; r++) {
                    rowF64(op, x, rowA[r], la, y, rowB[r], lb, o, r * n, n);
                }
            });
        }
        return result;
    }

    /** The common case of operands of one shape: one flat run, no broadcast offsets. */
    private static Object sameShape(Binary op, HeapTensor a, HeapTensor b, Shape out, Parallel parallel) {
        Object result = HeapScope.allocateForWriting(a.dtype(), out);
        int n = (int) out.size();
        int grain = Math.max(1, (int) Math.min(n, Parallel.MIN_WORK));
        int pieces = (n + grain - 1) / grain;
        if (result instanceof float[] o) {
            float[] x = a.f32();
            float[] y = b.f32();
            parallel.forRange(pieces, grain, (from, to) -> {
                int start = from * grain;
                rowF32(op, x, start, 1, y, start, 1, o, start, Math.min(n, to * grain) - start);
            });
        } else {
            double[] o = (double[]) result;
            double[] x = a.f64();
            double[] y = b.f64();
            parallel.forRange(pieces, grain, (from, to) -> {
                int start = from * grain;
                rowF64(op, x, start, 1, y, start, 1, o, start, Math.min(n, to * grain) - start);
            });
        }
        return result;
    }

    private static void rowF32(Binary op, float[] a, int ia, int la, float[] b, int ib, int lb, float[] o, int io,
                               int n) {
        switch (op) {
            case ADD -> {
                for (int i = 0; i < n; i++) {
                    o[io + i] = a[ia + i * la] + b[ib + i * lb];
                }
            }
            case SUB -> {
                for (int i = 0; i < n; i++) {
                    o[io + i] = a[ia + i * la] - b[ib + i * lb];
                }
            }
            case MUL -> {
                for (int i = 0; i < n; i++) {
                    o[io + i] = a[ia + i * la] * b[ib + i * lb];
                }
            }
            case DIV -> {
                for (int i = 0; i < n; i++) {
                    o[io + i] = a[ia + i * la] / b[ib + i * lb];
                }
            }
            default -> throw new AssertionError(op);
        }
    }

    private static void rowF64(Binary op, double[] a, int ia, int la, double[] b, int ib, int lb, double[] o,
                               int io, int n) {
        switch (op) {
            case ADD -> {
                for (int i = 0; i < n; i++) {
                    o[io + i] = a[ia + i * la] + b[ib + i * lb];
                }
            }
            case SUB -> {
                for (int i = 0; i < n; i++) {
                    o[io + i] = a[ia + i * la] - b[ib + i * lb];
                }
            }
            case MUL -> {
                for (int i = 0; i < n; i++) {
                    o[io + i] = a[ia + i * la] * b[ib + i * lb];
                }
            }
            case DIV -> {
                for (int i = 0; i < n; i++) {
                    o[io + i] = a[ia + i * la] / b[ib + i * lb];
                }
            }
            default -> throw new AssertionError(op);
        }
    }

    /** A rough cost of one element of {@link #map}, in multiply-adds: enough to split large maps over the pool. */
    private static final long MAP_WORK = 16;

    /**
     * @param x the operand, not modified
     * @param f the function of the flat index and the value, evaluated in double precision; F32 results are
     *     rounded to nearest; called from several threads at once on large operands
     * @param parallel the pool for large operands
     * @return a new array of x's dtype holding {@code f(i, x[i])}
     */
    static Object map(HeapTensor x, Unary f, Parallel parallel) {
        if (x.dtype() == DType.F32) {
            float[] in = x.f32();
            float[] out = ArrayPool.floats(in.length, false);
            parallel.forRange(in.length, MAP_WORK, (from, to) -> {
                for (int i = from; i < to; i++) {
                    out[i] = (float) f.apply(i, in[i]);
                }
            });
            return out;
        }
        double[] in = x.f64();
        double[] out = ArrayPool.doubles(in.length, false);
        parallel.forRange(in.length, MAP_WORK, (from, to) -> {
            for (int i = from; i < to; i++) {
                out[i] = f.apply(i, in[i]);
            }
        });
        return out;
    }

    /**
     * {@code c[r, j] += bias[j]} for every row {@code r}.
     *
     * @param c {@code [rows, n]}, {@code float[]} or {@code double[]}; modified
     * @param bias {@code [n]} of the same type, not modified
     * @param rows the number of rows
     * @param n the row length
     */
    static void addRows(Object c, Object bias, int rows, int n) {
        if (c instanceof float[] f) {
            float[] b = (float[]) bias;
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < n; j++) {
                    f[r * n + j] += b[j];
                }
            }
        } else {
            double[] d = (double[]) c;
            double[] b = (double[]) bias;
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < n; j++) {
                    d[r * n + j] += b[j];
                }
            }
        }
    }

    /**
     * @param x any double
     * @return {@code gelu(x) = x·Φ(x) = x/2 · (1 + erf(x/√2))}, in PyTorch's form
     */
    static double geluExact(double x) {
        return 0.5 * x * (1.0 + Erf.erf(x * SQRT_HALF));
    }

    /**
     * @param x any double
     * @return {@code x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))}
     */
    static double geluTanh(double x) {
        return 0.5 * x * (1.0 + Math.tanh(SQRT_TWO_OVER_PI * (x + 0.044715 * x * x * x)));
    }
}
