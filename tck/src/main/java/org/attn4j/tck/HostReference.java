package org.attn4j.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import org.attn4j.api.Backend;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.AbstractOps;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.AbstractTensor;
import org.attn4j.api.spi.Dropout;
import org.attn4j.api.spi.Erf;
import org.attn4j.api.spi.ShapeChecks;
import org.attn4j.api.spi.Strides;

/**
 * The kit's own reference for differential checks, independent of every backend: each primitive of the api
 * computed on the host in double precision by the plainest loop over a row-major {@code double[]}, index
 * arithmetic from {@link Strides}, and everything composite (attention, RMS norm, SiLU, RoPE, cache writes) left to
 * the spi's compositions of those primitives ({@code ReferenceAttention}, {@code ReferenceOps}), as the api
 * specifies them. It exists so that a backend that runs alone (no peer on the class path, no F64 of its own) is
 * still compared on random inputs with something: its results against this reference's F64 ones.
 *
 * <p>Each row is computed by the same loop whatever rows share a call, so it declares batch invariance.
 *
 * <p>Named {@value #NAME} in reports. Not a backend anyone should run: one thread, no care for speed, and no
 * {@code BackendProvider}, so {@code Backends} never sees it.
 */
final class HostReference implements Backend {
    /** How reports name it. */
    static final String NAME = "reference";
    private static final Capabilities CAPABILITIES = Capabilities.builder("host").dtypes(DType.F32, DType.F64)
            .features(Capabilities.Feature.DROPOUT, Capabilities.Feature.ATTENTION_WEIGHTS,
                    Capabilities.Feature.BATCH_INVARIANT).build();
    private static final HostReference INSTANCE = new HostReference();

    private HostReference() {
    }

    /** @return the reference; it holds no state, so one serves every thread */
    static HostReference instance() {
        return INSTANCE;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public Scope newScope() {
        return new HostScope(this);
    }

    /** A scope on the heap; {@link AbstractScope} keeps ownership and closing. */
    private static final class HostScope extends AbstractScope {
        private final Ops ops = new HostOps(this);

        HostScope(Backend backend) {
            super(backend);
        }

        @Override
        public Ops ops() {
            checkOpen("ops");
            return ops;
        }

        @Override
        public Tensor tensor(float[] data, Shape shape) {
            checkOpen("tensor");
            ShapeChecks.data("tensor", data == null ? -1 : data.length, shape);
            double[] values = new double[data.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = data[i];
            }
            return make(shape, DType.F32, values);
        }

        @Override
        public Tensor tensor(double[] data, Shape shape) {
            checkOpen("tensor");
            ShapeChecks.data("tensor", data == null ? -1 : data.length, shape);
            return make(shape, DType.F64, data.clone());
        }

        @Override
        public Tensor zeros(Shape shape, DType dtype) {
            checkOpen("zeros");
            ShapeChecks.notNull("zeros", "dtype", dtype);
            ShapeChecks.fits("zeros", shape, dtype, (Integer.MAX_VALUE - 8L) * dtype.byteSize(),
                    "the kit's host reference, one Java array per tensor");
            return make(shape, dtype, new double[Math.toIntExact(shape.size())]);
        }

        HostTensor make(Shape shape, DType dtype, double[] values) {
            return new HostTensor(this, shape, dtype, values);
        }
    }

    /** Row-major values in double; an F32 tensor's are rounded to float when it is made. */
    private static final class HostTensor extends AbstractTensor {
        private double[] values;

        HostTensor(AbstractScope owner, Shape shape, DType dtype, double[] values) {
            super(owner, shape, dtype);
            if (dtype == DType.F32) {
                for (int i = 0; i < values.length; i++) {
                    values[i] = (float) values[i];
                }
            }
            this.values = values;
        }

        double[] values() {
            return values;
        }

        @Override
        public float[] toFloatArray() {
            return reading("toFloatArray", () -> {
                float[] out = new float[values.length];
                for (int i = 0; i < out.length; i++) {
                    out[i] = (float) values[i];
                }
                return out;
            });
        }

        @Override
        public double[] toDoubleArray() {
            return reading("toDoubleArray", () -> values.clone());
        }

        @Override
        protected void release() {
            values = null;
        }
    }

    /** The primitives; {@link AbstractOps} checks every call before it gets here. */
    private static final class HostOps extends AbstractOps<HostTensor> {
        private final HostScope scope;

        HostOps(HostScope scope) {
            super(scope, HostTensor.class);
            this.scope = scope;
        }

        /** @return the elements of {@code t} in the order the strides visit the index space {@code space} */
        private static double[] gather(HostTensor t, Shape space, int[] strides) {
            int[] offsets = Strides.offsets(space, strides);
            double[] out = new double[offsets.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = t.values()[offsets[i]];
            }
            return out;
        }

        private Tensor map(HostTensor x, DoubleUnaryOperator f) {
            double[] out = x.values().clone();
            for (int i = 0; i < out.length; i++) {
                out[i] = f.applyAsDouble(out[i]);
            }
            return scope.make(x.shape(), x.dtype(), out);
        }

        @Override
        protected Tensor computeMatmul(HostTensor a, HostTensor b, boolean transposeA, boolean transposeB,
                                       Shape out) {
            int r = out.rank();
            int m = out.dim(r - 2);
            int n = out.dim(r - 1);
            int k = a.shape().dim(transposeA ? -2 : -1);
            Shape batch = out.slice(0, r - 2);
            int[] batchA = Strides.offsets(batch, Strides.broadcast("matmul", "a",
                    a.shape().slice(0, a.shape().rank() - 2), batch));
            int[] batchB = Strides.offsets(batch, Strides.broadcast("matmul", "b",
                    b.shape().slice(0, b.shape().rank() - 2), batch));
            double[] result = new double[Math.toIntExact(out.size())];
            for (int p = 0; p < batchA.length; p++) {
                int offA = batchA[p] * m * k;
                int offB = batchB[p] * k * n;
                for (int i = 0; i < m; i++) {
                    for (int j = 0; j < n; j++) {
                        double s = 0;
                        for (int l = 0; l < k; l++) {
                            s += a.values()[offA + (transposeA ? l * m + i : i * k + l)]
                                    * b.values()[offB + (transposeB ? j * k + l : l * n + j)];
                        }
                        result[(p * m + i) * n + j] = s;
                    }
                }
            }
            return scope.make(out, a.dtype(), result);
        }

        @Override
        protected Tensor computeBinary(Binary kind, HostTensor a, HostTensor b, Shape out) {
            double[] x = gather(a, out, Strides.broadcast(kind.op(), "a", a.shape(), out));
            double[] y = gather(b, out, Strides.broadcast(kind.op(), "b", b.shape(), out));
            for (int i = 0; i < x.length; i++) {
                x[i] = switch (kind) {
                    case ADD -> x[i] + y[i];
                    case SUB -> x[i] - y[i];
                    case MUL -> x[i] * y[i];
                    case DIV -> x[i] / y[i];
                };
            }
            return scope.make(out, a.dtype(), x);
        }

        @Override
        protected Tensor computeScale(HostTensor x, double factor) {
            return map(x, v -> v * factor);
        }

        @Override
        protected Tensor computeExp(HostTensor x) {
            return map(x, Math::exp);
        }

        @Override
        protected Tensor computeSoftcap(HostTensor x, double cap) {
            return map(x, v -> cap * Math.tanh(v / cap));
        }

        @Override
        protected Tensor computeRelu(HostTensor x) {
            return map(x, v -> v < 0 ? 0.0 : v);
        }

        @Override
        protected Tensor computeGelu(HostTensor x, GeluApproximation approximation) {
            if (approximation == GeluApproximation.TANH) {
                double c = Math.sqrt(2 / Math.PI);
                return map(x, v -> 0.5 * v * (1 + Math.tanh(c * (v + 0.044715 * v * v * v))));
            }
            return map(x, v -> 0.5 * v * (1 + Erf.erf(v / Math.sqrt(2))));
        }

        /** The values along one axis at each position of the others: {@code lines()[j]} is one line. */
        private static double[][] lines(HostTensor x, int axis) {
            Shape s = x.shape();
            int n = s.dim(axis);
            int stride = (int) s.stride(axis);
            double[][] lines = new double[Math.toIntExact(s.size() / n)][n];
            int line = 0;
            for (int outer = 0; outer < s.size() / ((long) n * stride); outer++) {
                for (int inner = 0; inner < stride; inner++, line++) {
                    for (int j = 0; j < n; j++) {
                        lines[line][j] = x.values()[(outer * n + j) * stride + inner];
                    }
                }
            }
            return lines;
        }

        /** Writes lines back in the layout {@link #lines} read them from. */
        private static double[] unlines(double[][] lines, Shape s, int axis) {
            int n = s.dim(axis);
            int stride = (int) s.stride(axis);
            double[] out = new double[Math.toIntExact(s.size())];
            for (int line = 0; line < lines.length; line++) {
                for (int j = 0; j < n; j++) {
                    out[(line / stride * n + j) * stride + line % stride] = lines[line][j];
                }
            }
            return out;
        }

        private static double sum(double[] v) {
            double s = 0;
            for (double x : v) {
                s += x;
            }
            return s;
        }

        private static double variance(double[] v) {
            double mean = sum(v) / v.length;
            double s = 0;
            for (double x : v) {
                s += (x - mean) * (x - mean);
            }
            return s / v.length;
        }

        private static double max(double[] v) {
            double m = Double.NEGATIVE_INFINITY;
            for (double x : v) {
                if (Double.isNaN(x)) {
                    return Double.NaN;
                }
                m = Math.max(m, x);
            }
            return m;
        }

        @Override
        protected Tensor computeReduce(Reduction kind, HostTensor x, int axis, boolean keepDims, Shape out) {
            double[][] lines = lines(x, axis);
            double[] result = new double[lines.length];
            for (int i = 0; i < lines.length; i++) {
                result[i] = switch (kind) {
                    case MAX -> max(lines[i]);
                    case SUM -> sum(lines[i]);
                    case MEAN -> sum(lines[i]) / lines[i].length;
                    case VARIANCE -> variance(lines[i]);
                };
            }
            return scope.make(out, x.dtype(), result);
        }

        @Override
        protected Tensor computeSoftmax(HostTensor x, int axis) {
            double[][] lines = lines(x, axis);
            for (double[] line : lines) {
                double m = max(line);
                double total = 0;
                for (int j = 0; j < line.length; j++) {
                    line[j] = m == Double.NEGATIVE_INFINITY ? 0 : Math.exp(line[j] - m);
                    total += line[j];
                }
                for (int j = 0; j < line.length; j++) {
                    line[j] = total == 0 ? 0 : line[j] / total;
                }
            }
            return scope.make(x.shape(), x.dtype(), unlines(lines, x.shape(), axis));
        }

        @Override
        protected Tensor computeLayerNorm(HostTensor x, HostTensor gamma, HostTensor beta, double eps) {
            int last = x.shape().rank() - 1;
            double[][] lines = lines(x, last);
            for (double[] line : lines) {
                double mean = sum(line) / line.length;
                double inverse = 1 / Math.sqrt(variance(line) + eps);
                for (int j = 0; j < line.length; j++) {
                    line[j] = (line[j] - mean) * inverse * (gamma == null ? 1 : gamma.values()[j])
                            + (beta == null ? 0 : beta.values()[j]);
                }
            }
            return scope.make(x.shape(), x.dtype(), unlines(lines, x.shape(), last));
        }

        @Override
        protected Tensor computeLinear(HostTensor x, HostTensor weight, HostTensor bias, Shape out) {
            int in = weight.shape().dim(1);
            int features = weight.shape().dim(0);
            int rows = Math.toIntExact(x.shape().size() / in);
            double[] result = new double[rows * features];
            for (int r = 0; r < rows; r++) {
                for (int f = 0; f < features; f++) {
                    double s = 0;
                    for (int l = 0; l < in; l++) {
                        s += x.values()[r * in + l] * weight.values()[f * in + l];
                    }
                    result[r * features + f] = bias == null ? s : s + bias.values()[f];
                }
            }
            return scope.make(out, x.dtype(), result);
        }

        @Override
        protected Tensor computeEmbedding(HostTensor weight, int[] ids, Shape out) {
            int d = weight.shape().dim(1);
            double[] result = new double[ids.length * d];
            for (int i = 0; i < ids.length; i++) {
                System.arraycopy(weight.values(), ids[i] * d, result, i * d, d);
            }
            return scope.make(out, weight.dtype(), result);
        }

        @Override
        protected Tensor computeReshape(HostTensor x, Shape out) {
            return scope.make(out, x.dtype(), x.values().clone());
        }

        @Override
        protected Tensor computePermute(HostTensor x, int[] axes, Shape out) {
            int[] own = Strides.contiguous(x.shape());
            int[] strides = new int[axes.length];
            for (int i = 0; i < axes.length; i++) {
                strides[i] = own[axes[i]];
            }
            return scope.make(out, x.dtype(), gather(x, out, strides));
        }

        @Override
        protected Tensor computeConcat(List<HostTensor> parts, int axis, Shape out) {
            double[] result = new double[Math.toIntExact(out.size())];
            int at = 0;
            int outer = Math.toIntExact(out.size() / ((long) out.dim(axis) * out.stride(axis)));
            int row = out.dim(axis) * (int) out.stride(axis);
            for (HostTensor part : parts) {
                int block = part.shape().dim(axis) * (int) part.shape().stride(axis);
                for (int o = 0; o < outer; o++) {
                    System.arraycopy(part.values(), o * block, result, o * row + at, block);
                }
                at += block;
            }
            return scope.make(out, parts.get(0).dtype(), result);
        }

        @Override
        protected List<Tensor> computeSplit(HostTensor x, int axis, List<Shape> pieces) {
            List<Tensor> out = new ArrayList<>();
            int outer = Math.toIntExact(x.shape().size() / ((long) x.shape().dim(axis) * x.shape().stride(axis)));
            int row = x.shape().dim(axis) * (int) x.shape().stride(axis);
            int at = 0;
            for (Shape piece : pieces) {
                int block = piece.dim(axis) * (int) piece.stride(axis);
                double[] values = new double[outer * block];
                for (int o = 0; o < outer; o++) {
                    System.arraycopy(x.values(), o * row + at, values, o * block, block);
                }
                out.add(scope.make(piece, x.dtype(), values));
                at += block;
            }
            return out;
        }

        @Override
        protected Tensor computeCast(HostTensor x, DType dtype) {
            return scope.make(x.shape(), dtype, x.values().clone());
        }

        @Override
        protected Tensor computeDropout(HostTensor x, double p, long seed) {
            double survivor = Dropout.survivorScale(p);
            double[] out = new double[x.values().length];
            for (int i = 0; i < out.length; i++) {
                out[i] = Dropout.keep(seed, i, p) ? x.values()[i] * survivor : 0;
            }
            return scope.make(x.shape(), x.dtype(), out);
        }

        @Override
        protected Tensor computeAdditiveMask(Mask mask, DType dtype) {
            boolean[] allowed = mask.toArray();
            double[] out = new double[allowed.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = allowed[i] ? 0 : Double.NEGATIVE_INFINITY;
            }
            return scope.make(mask.shape(), dtype, out);
        }
    }
}
