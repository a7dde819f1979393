package org.attn4j.backend.template;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.AbstractOps;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.Dropout;
import org.attn4j.api.spi.Erf;
import org.attn4j.api.spi.ShapeChecks;

/**
 * Every op as the plainest loop that is right. {@link AbstractOps} checks each call first (operands open and of
 * this backend, arguments not null, dtypes and shapes, with the messages every backend gives) and keeps the
 * operands pinned while the op runs; each compute method here then computes in double and lets
 * {@link NaiveScope#wrap} round an F32 result once. Rotary embeddings and soft-capping are loops of their own;
 * attention and the other decoder ops are the spi's compositions of these primitives ({@link AbstractOps}'
 * defaults: {@code ReferenceAttention}, {@code ReferenceOps}).
 */
final class NaiveOps extends AbstractOps<NaiveTensor> {
    private final NaiveScope scope;

    NaiveOps(NaiveScope scope) {
        super(scope, NaiveTensor.class);
        this.scope = scope;
    }

    /** The dimensions before, at and after an axis: a tensor is {@code [outer, n, inner]} around it. */
    private record Around(int outer, int n, int inner) {
        static Around of(Shape s, int axis) {
            int outer = 1;
            for (int i = 0; i < axis; i++) {
                outer *= s.dim(i);
            }
            return new Around(outer, s.dim(axis), (int) s.stride(axis));
        }

        int at(int o, int k, int i) {
            return (o * n + k) * inner + i;
        }
    }

    /** @return the flat index into {@code from} of element {@code index} of {@code to}, which {@code from} broadcasts to */
    private static int broadcastIndex(Shape from, Shape to, int index) {
        int offset = 0;
        int lead = to.rank() - from.rank();
        for (int axis = to.rank() - 1, rest = index; axis >= 0; axis--) {
            int coordinate = rest % to.dim(axis);
            rest /= to.dim(axis);
            int own = axis - lead;
            if (own >= 0 && from.dim(own) != 1) {
                offset += coordinate * (int) from.stride(own);
            }
        }
        return offset;
    }

    private Tensor map(NaiveTensor t, DoubleUnaryOperator f) {
        double[] v = t.values();
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = f.applyAsDouble(v[i]);
        }
        return scope.wrap(t.shape(), t.dtype(), out);
    }

    @Override
    protected Tensor computeBinary(Binary kind, NaiveTensor x, NaiveTensor y, Shape out) {
        DoubleBinaryOperator f = switch (kind) {
            case ADD -> Double::sum;
            case SUB -> (u, v) -> u - v;
            case MUL -> (u, v) -> u * v;
            case DIV -> (u, v) -> u / v;
        };
        double[] result = values(out);
        for (int i = 0; i < result.length; i++) {
            result[i] = f.applyAsDouble(x.values()[broadcastIndex(x.shape(), out, i)],
                    y.values()[broadcastIndex(y.shape(), out, i)]);
        }
        return scope.wrap(out, x.dtype(), result);
    }

    @Override
    protected Tensor computeMatmul(NaiveTensor x, NaiveTensor y, boolean transposeA, boolean transposeB,
                                   Shape out) {
        int r = out.rank();
        int m = out.dim(r - 2);
        int n = out.dim(r - 1);
        int k = transposeA ? x.shape().dim(-2) : x.shape().dim(-1);
        Shape batch = out.slice(0, r - 2);
        Shape batchA = x.shape().slice(0, x.shape().rank() - 2);
        Shape batchB = y.shape().slice(0, y.shape().rank() - 2);
        double[] result = values(out);
        for (int p = 0; p < (int) batch.size(); p++) {
            int offA = broadcastIndex(batchA, batch, p) * m * k;
            int offB = broadcastIndex(batchB, batch, p) * k * n;
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double sum = 0;
                    for (int l = 0; l < k; l++) {
                        sum += x.values()[offA + (transposeA ? l * m + i : i * k + l)]
                                * y.values()[offB + (transposeB ? j * k + l : l * n + j)];
                    }
                    result[(p * m + i) * n + j] = sum;
                }
            }
        }
        return scope.wrap(out, x.dtype(), result);
    }

    @Override
    protected Tensor computeScale(NaiveTensor x, double factor) {
        return map(x, v -> v * factor);
    }

    @Override
    protected Tensor computeExp(NaiveTensor x) {
        return map(x, Math::exp);
    }

    @Override
    protected Tensor computeRelu(NaiveTensor x) {
        return map(x, v -> v > 0 || Double.isNaN(v) ? v : 0.0);
    }

    @Override
    protected Tensor computeGelu(NaiveTensor x, GeluApproximation approximation) {
        if (approximation == GeluApproximation.TANH) {
            double c = Math.sqrt(2 / Math.PI);
            return map(x, v -> 0.5 * v * (1 + Math.tanh(c * (v + 0.044715 * v * v * v))));
        }
        return map(x, v -> 0.5 * v * (1 + Erf.erf(v / Math.sqrt(2))));
    }

    /** The reductions over one axis, each from the values along it. */
    private interface AlongAxis {
        double of(double[] values, Around around, int o, int i);
    }

    @Override
    protected Tensor computeReduce(Reduction kind, NaiveTensor t, int axis, boolean keepDims, Shape out) {
        AlongAxis f = switch (kind) {
            case MAX -> NaiveOps::max;
            case SUM -> NaiveOps::sum;
            case MEAN -> (v, a, o, i) -> sum(v, a, o, i) / a.n();
            case VARIANCE -> NaiveOps::variance;
        };
        Around around = Around.of(t.shape(), axis);
        double[] result = new double[around.outer() * around.inner()];
        for (int o = 0; o < around.outer(); o++) {
            for (int i = 0; i < around.inner(); i++) {
                result[o * around.inner() + i] = f.of(t.values(), around, o, i);
            }
        }
        return scope.wrap(out, t.dtype(), result);
    }

    private static double max(double[] v, Around a, int o, int i) {
        double m = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < a.n(); k++) {
            double e = v[a.at(o, k, i)];
            m = Double.isNaN(e) || Double.isNaN(m) ? Double.NaN : Math.max(m, e);
        }
        return m;
    }

    private static double sum(double[] v, Around a, int o, int i) {
        double s = 0;
        for (int k = 0; k < a.n(); k++) {
            s += v[a.at(o, k, i)];
        }
        return s;
    }

    private static double variance(double[] v, Around a, int o, int i) {
        double mean = sum(v, a, o, i) / a.n();
        double s = 0;
        for (int k = 0; k < a.n(); k++) {
            double d = v[a.at(o, k, i)] - mean;
            s += d * d;
        }
        return s / a.n();
    }

    @Override
    protected Tensor computeSoftmax(NaiveTensor t, int axis) {
        Around a = Around.of(t.shape(), axis);
        double[] v = t.values();
        double[] out = new double[v.length];
        for (int o = 0; o < a.outer(); o++) {
            for (int i = 0; i < a.inner(); i++) {
                double m = max(v, a, o, i);
                double s = 0;
                for (int k = 0; k < a.n(); k++) {
                    out[a.at(o, k, i)] = m == Double.NEGATIVE_INFINITY ? 0 : Math.exp(v[a.at(o, k, i)] - m);
                    s += out[a.at(o, k, i)];
                }
                for (int k = 0; k < a.n(); k++) {
                    out[a.at(o, k, i)] = s == 0 ? 0 : out[a.at(o, k, i)] / s;
                }
            }
        }
        return scope.wrap(t.shape(), t.dtype(), out);
    }

    @Override
    protected Tensor computeLayerNorm(NaiveTensor t, NaiveTensor g, NaiveTensor b, double eps) {
        Around a = Around.of(t.shape().append(1), t.shape().rank() - 1);
        double[] v = t.values();
        double[] out = new double[v.length];
        for (int o = 0; o < a.outer(); o++) {
            double mean = sum(v, a, o, 0) / a.n();
            double inv = 1 / Math.sqrt(variance(v, a, o, 0) + eps);
            for (int k = 0; k < a.n(); k++) {
                double y = (v[a.at(o, k, 0)] - mean) * inv;
                out[a.at(o, k, 0)] = y * (g == null ? 1 : g.values()[k]) + (b == null ? 0 : b.values()[k]);
            }
        }
        return scope.wrap(t.shape(), t.dtype(), out);
    }

    @Override
    protected Tensor computeLinear(NaiveTensor t, NaiveTensor w, NaiveTensor b, Shape out) {
        int in = w.shape().dim(1);
        int outFeatures = w.shape().dim(0);
        int rows = Math.toIntExact(t.shape().size() / in);
        double[] result = new double[rows * outFeatures];
        for (int r = 0; r < rows; r++) {
            for (int j = 0; j < outFeatures; j++) {
                double s = b == null ? 0 : b.values()[j];
                for (int l = 0; l < in; l++) {
                    s += t.values()[r * in + l] * w.values()[j * in + l];
                }
                result[r * outFeatures + j] = s;
            }
        }
        return scope.wrap(out, t.dtype(), result);
    }

    @Override
    protected Tensor computeEmbedding(NaiveTensor w, int[] ids, Shape out) {
        int d = w.shape().dim(1);
        double[] result = new double[ids.length * d];
        for (int i = 0; i < ids.length; i++) {
            System.arraycopy(w.values(), ids[i] * d, result, i * d, d);
        }
        return scope.wrap(out, w.dtype(), result);
    }

    @Override
    protected Tensor computeReshape(NaiveTensor t, Shape out) {
        return scope.wrap(out, t.dtype(), t.values().clone());
    }

    @Override
    protected Tensor computePermute(NaiveTensor t, int[] axes, Shape out) {
        double[] result = new double[t.values().length];
        for (int index = 0; index < result.length; index++) {
            int from = 0;
            for (int axis = out.rank() - 1, rest = index; axis >= 0; axis--) {
                from += (rest % out.dim(axis)) * (int) t.shape().stride(axes[axis]);
                rest /= out.dim(axis);
            }
            result[index] = t.values()[from];
        }
        return scope.wrap(out, t.dtype(), result);
    }

    @Override
    protected Tensor computeConcat(List<NaiveTensor> parts, int axis, Shape out) {
        Around a = Around.of(out, axis);
        double[] result = values(out);
        int start = 0;
        for (NaiveTensor t : parts) {
            Around own = Around.of(t.shape(), axis);
            for (int o = 0; o < own.outer(); o++) {
                for (int k = 0; k < own.n(); k++) {
                    for (int i = 0; i < own.inner(); i++) {
                        result[a.at(o, start + k, i)] = t.values()[own.at(o, k, i)];
                    }
                }
            }
            start += own.n();
        }
        return scope.wrap(out, parts.get(0).dtype(), result);
    }

    @Override
    protected List<Tensor> computeSplit(NaiveTensor t, int axis, List<Shape> pieces) {
        Around a = Around.of(t.shape(), axis);
        List<Tensor> out = new ArrayList<>();
        int start = 0;
        for (Shape shape : pieces) {
            int size = shape.dim(axis);
            double[] piece = values(shape);
            for (int o = 0; o < a.outer(); o++) {
                for (int k = 0; k < size; k++) {
                    for (int i = 0; i < a.inner(); i++) {
                        piece[(o * size + k) * a.inner() + i] = t.values()[a.at(o, start + k, i)];
                    }
                }
            }
            out.add(scope.wrap(shape, t.dtype(), piece));
            start += size;
        }
        return out;
    }

    @Override
    protected Tensor computeCast(NaiveTensor t, DType dtype) {
        return scope.wrap(t.shape(), dtype, t.values().clone());
    }

    /**
     * Each row {@code p} of {@code [..., L, d]} at position {@code offset + p}: pair {@code i} of the first
     * {@code 2n} features turned by {@code (offset + p) · ω_i} and scaled by the attention scaling, the rest copied.
     */
    @Override
    protected Tensor computeRope(NaiveTensor t, RotaryEmbedding rotary, int offset) {
        int rows = t.shape().dim(-2);
        int d = t.shape().dim(-1);
        int n = rotary.pairs();
        boolean interleaved = rotary.layout() == RopeLayout.INTERLEAVED;
        double s = rotary.attentionScaling();
        double[] v = t.values();
        double[] out = v.clone();
        for (int row = 0; row < v.length / d; row++) {
            int base = row * d;
            double position = offset + row % rows;
            for (int i = 0; i < n; i++) {
                double angle = position * rotary.inverseFrequency(i);
                double cos = Math.cos(angle) * s;
                double sin = Math.sin(angle) * s;
                int ia = base + (interleaved ? 2 * i : i);
                int ib = interleaved ? ia + 1 : ia + n;
                out[ia] = v[ia] * cos - v[ib] * sin;
                out[ib] = v[ib] * cos + v[ia] * sin;
            }
        }
        return scope.wrap(t.shape(), t.dtype(), out);
    }

    @Override
    protected Tensor computeSoftcap(NaiveTensor t, double cap) {
        return map(t, v -> cap * Math.tanh(v / cap));
    }

    @Override
    protected Tensor computeDropout(NaiveTensor t, double p, long seed) {
        double keep = Dropout.survivorScale(p);
        double[] out = new double[t.values().length];
        for (int i = 0; i < out.length; i++) {
            out[i] = Dropout.keep(seed, i, p) ? t.values()[i] * keep : 0.0;
        }
        return scope.wrap(t.shape(), t.dtype(), out);
    }

    @Override
    protected Tensor computeAdditiveMask(Mask mask, DType dtype) {
        double[] out = new double[Math.toIntExact(mask.shape().size())];
        for (int i = 0; i < out.length; i++) {
            out[i] = mask.allowed(i) ? 0.0 : Double.NEGATIVE_INFINITY;
        }
        return scope.wrap(mask.shape(), dtype, out);
    }

    /**
     * @param shape a result's shape
     * @return a zeroed array for it
     * @throws IllegalArgumentException naming the running op, the shape and the bytes if one Java array cannot
     *     hold it
     */
    static double[] values(Shape shape) {
        ShapeChecks.fits(AbstractScope.runningOp("tensor"), shape, DType.F64, (Integer.MAX_VALUE - 8L) * Double.BYTES,
                "backend naive's limit for one tensor, a Java double[] of 2^31 - 9 elements");
        return new double[(int) shape.size()];
    }
}
