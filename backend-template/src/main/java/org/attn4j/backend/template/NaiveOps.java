package org.attn4j.backend.template;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.Dropout;
import org.attn4j.api.spi.Erf;
import org.attn4j.api.spi.ReferenceAttention;
import org.attn4j.api.spi.ReferenceOps;
import org.attn4j.api.spi.ShapeChecks;

/**
 * Every op as the plainest loop that is right. Each method first checks its operands ({@code AbstractScope.operand}:
 * open, of this backend) and shapes ({@link ShapeChecks}, so the messages match every other backend's), then
 * computes in double and lets {@link NaiveScope#wrap} round an F32 result once. Attention and the decoder ops are
 * the spi's compositions of these primitives ({@link ReferenceAttention}, {@link ReferenceOps}).
 */
final class NaiveOps implements Ops {
    private final NaiveScope scope;

    NaiveOps(NaiveScope scope) {
        this.scope = scope;
    }

    @Override
    public Scope scope() {
        return scope;
    }

    static void notNull(String op, String argument, Object value) {
        if (value == null) {
            throw new IllegalArgumentException(op + ": argument " + argument + " is null");
        }
    }

    private NaiveTensor operand(String op, String argument, Tensor t) {
        return scope.operand(op, argument, t, NaiveTensor.class);
    }

    private NaiveTensor optional(String op, String argument, Tensor t) {
        return t == null ? null : operand(op, argument, t);
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

    private Tensor map(String op, Tensor x, DoubleUnaryOperator f) {
        NaiveTensor t = operand(op, "x", x);
        double[] v = t.values();
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = f.applyAsDouble(v[i]);
        }
        return scope.wrap(t.shape(), t.dtype(), out);
    }

    private Tensor zip(String op, Tensor a, Tensor b, DoubleBinaryOperator f) {
        NaiveTensor x = operand(op, "a", a);
        NaiveTensor y = operand(op, "b", b);
        ShapeChecks.sameDType(op, "a", x, "b", y);
        Shape out = ShapeChecks.broadcast(op, x.shape(), y.shape());
        double[] result = values(out);
        for (int i = 0; i < result.length; i++) {
            result[i] = f.applyAsDouble(x.values()[broadcastIndex(x.shape(), out, i)],
                    y.values()[broadcastIndex(y.shape(), out, i)]);
        }
        return scope.wrap(out, x.dtype(), result);
    }

    @Override
    public Tensor matmul(Tensor a, Tensor b, boolean transposeA, boolean transposeB) {
        NaiveTensor x = operand("matmul", "a", a);
        NaiveTensor y = operand("matmul", "b", b);
        ShapeChecks.sameDType("matmul", "a", x, "b", y);
        Shape out = ShapeChecks.matmul(x.shape(), y.shape(), transposeA, transposeB);
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
    public Tensor add(Tensor a, Tensor b) {
        return zip("add", a, b, Double::sum);
    }

    @Override
    public Tensor sub(Tensor a, Tensor b) {
        return zip("sub", a, b, (u, v) -> u - v);
    }

    @Override
    public Tensor mul(Tensor a, Tensor b) {
        return zip("mul", a, b, (u, v) -> u * v);
    }

    @Override
    public Tensor div(Tensor a, Tensor b) {
        return zip("div", a, b, (u, v) -> u / v);
    }

    @Override
    public Tensor scale(Tensor x, double factor) {
        return map("scale", x, v -> v * factor);
    }

    @Override
    public Tensor exp(Tensor x) {
        return map("exp", x, Math::exp);
    }

    @Override
    public Tensor relu(Tensor x) {
        return map("relu", x, v -> v > 0 || Double.isNaN(v) ? v : 0.0);
    }

    @Override
    public Tensor gelu(Tensor x, GeluApproximation approximation) {
        notNull("gelu", "approximation", approximation);
        if (approximation == GeluApproximation.TANH) {
            double c = Math.sqrt(2 / Math.PI);
            return map("gelu", x, v -> 0.5 * v * (1 + Math.tanh(c * (v + 0.044715 * v * v * v))));
        }
        return map("gelu", x, v -> 0.5 * v * (1 + Erf.erf(v / Math.sqrt(2))));
    }

    /** The reductions over one axis, each from the values along it. */
    private interface Reduction {
        double of(double[] values, Around around, int o, int i);
    }

    private Tensor reduce(String op, Tensor x, int axis, boolean keepDims, Reduction f) {
        NaiveTensor t = operand(op, "x", x);
        Shape out = ShapeChecks.reduce(op, t.shape(), axis, keepDims);
        Around around = Around.of(t.shape(), ShapeChecks.axis(op, t.shape(), axis));
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
    public Tensor max(Tensor x, int axis, boolean keepDims) {
        return reduce("max", x, axis, keepDims, NaiveOps::max);
    }

    @Override
    public Tensor sum(Tensor x, int axis, boolean keepDims) {
        return reduce("sum", x, axis, keepDims, NaiveOps::sum);
    }

    @Override
    public Tensor mean(Tensor x, int axis, boolean keepDims) {
        return reduce("mean", x, axis, keepDims, (v, a, o, i) -> sum(v, a, o, i) / a.n());
    }

    @Override
    public Tensor variance(Tensor x, int axis, boolean keepDims) {
        return reduce("variance", x, axis, keepDims, NaiveOps::variance);
    }

    @Override
    public Tensor softmax(Tensor x, int axis) {
        NaiveTensor t = operand("softmax", "x", x);
        Around a = Around.of(t.shape(), ShapeChecks.axis("softmax", t.shape(), axis));
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
    public Tensor layerNorm(Tensor x, Tensor gamma, Tensor beta, double eps) {
        NaiveTensor t = operand("layerNorm", "x", x);
        NaiveTensor g = optional("layerNorm", "gamma", gamma);
        NaiveTensor b = optional("layerNorm", "beta", beta);
        ShapeChecks.sameDType("layerNorm", "x", t, "gamma", g, "beta", b);
        ShapeChecks.layerNorm(t.shape(), g == null ? null : g.shape(), b == null ? null : b.shape(), eps);
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
    public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        NaiveTensor t = operand("linear", "x", x);
        NaiveTensor w = operand("linear", "weight", weight);
        NaiveTensor b = optional("linear", "bias", bias);
        ShapeChecks.sameDType("linear", "x", t, "weight", w, "bias", b);
        Shape out = ShapeChecks.linear(t.shape(), w.shape(), b == null ? null : b.shape());
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
    public Tensor embedding(Tensor weight, int[] ids, Shape idsShape) {
        NaiveTensor w = operand("embedding", "weight", weight);
        notNull("embedding", "ids", ids);
        notNull("embedding", "idsShape", idsShape);
        Shape out = ShapeChecks.embedding(w.shape(), ids, idsShape);
        int d = w.shape().dim(1);
        double[] result = new double[ids.length * d];
        for (int i = 0; i < ids.length; i++) {
            System.arraycopy(w.values(), ids[i] * d, result, i * d, d);
        }
        return scope.wrap(out, w.dtype(), result);
    }

    @Override
    public Tensor reshape(Tensor x, int... shape) {
        NaiveTensor t = operand("reshape", "x", x);
        notNull("reshape", "shape", shape);
        return scope.wrap(ShapeChecks.reshape(t.shape(), shape), t.dtype(), t.values().clone());
    }

    @Override
    public Tensor permute(Tensor x, int... axes) {
        NaiveTensor t = operand("permute", "x", x);
        notNull("permute", "axes", axes);
        Shape out = ShapeChecks.permute(t.shape(), axes);
        double[] result = new double[t.values().length];
        for (int index = 0; index < result.length; index++) {
            int from = 0;
            for (int axis = out.rank() - 1, rest = index; axis >= 0; axis--) {
                from += (rest % out.dim(axis)) * (int) t.shape().stride(t.shape().normalizeAxis(axes[axis]));
                rest /= out.dim(axis);
            }
            result[index] = t.values()[from];
        }
        return scope.wrap(out, t.dtype(), result);
    }

    @Override
    public Tensor concat(List<Tensor> parts, int axis) {
        notNull("concat", "parts", parts);
        List<NaiveTensor> ts = new ArrayList<>();
        List<Shape> shapes = new ArrayList<>();
        Object[] named = new Object[2 * parts.size()];
        for (int p = 0; p < parts.size(); p++) {
            ts.add(operand("concat", "parts[" + p + "]", parts.get(p)));
            shapes.add(ts.get(p).shape());
            named[2 * p] = "parts[" + p + "]";
            named[2 * p + 1] = ts.get(p);
        }
        Shape out = ShapeChecks.concat(shapes, axis);
        ShapeChecks.sameDType("concat", named);
        Around a = Around.of(out, ShapeChecks.axis("concat", out, axis));
        double[] result = values(out);
        int start = 0;
        for (NaiveTensor t : ts) {
            Around own = Around.of(t.shape(), ShapeChecks.axis("concat", t.shape(), axis));
            for (int o = 0; o < own.outer(); o++) {
                for (int k = 0; k < own.n(); k++) {
                    for (int i = 0; i < own.inner(); i++) {
                        result[a.at(o, start + k, i)] = t.values()[own.at(o, k, i)];
                    }
                }
            }
            start += own.n();
        }
        return scope.wrap(out, ts.get(0).dtype(), result);
    }

    @Override
    public List<Tensor> split(Tensor x, int[] sizes, int axis) {
        NaiveTensor t = operand("split", "x", x);
        notNull("split", "sizes", sizes);
        List<Shape> shapes = ShapeChecks.split(t.shape(), sizes, axis);
        Around a = Around.of(t.shape(), ShapeChecks.axis("split", t.shape(), axis));
        List<Tensor> out = new ArrayList<>();
        int start = 0;
        for (int p = 0; p < sizes.length; p++) {
            double[] piece = values(shapes.get(p));
            for (int o = 0; o < a.outer(); o++) {
                for (int k = 0; k < sizes[p]; k++) {
                    for (int i = 0; i < a.inner(); i++) {
                        piece[(o * sizes[p] + k) * a.inner() + i] = t.values()[a.at(o, start + k, i)];
                    }
                }
            }
            out.add(scope.wrap(shapes.get(p), t.dtype(), piece));
            start += sizes[p];
        }
        return out;
    }

    @Override
    public Tensor cast(Tensor x, DType dtype) {
        NaiveTensor t = operand("cast", "x", x);
        notNull("cast", "dtype", dtype);
        return scope.wrap(t.shape(), dtype, t.values().clone());
    }

    @Override
    public Tensor dropout(Tensor x, double p, long seed) {
        Dropout.checkProbability("dropout", p);
        NaiveTensor t = operand("dropout", "x", x);
        double keep = Dropout.survivorScale(p);
        double[] out = new double[t.values().length];
        for (int i = 0; i < out.length; i++) {
            out[i] = Dropout.keep(seed, i, p) ? t.values()[i] * keep : 0.0;
        }
        return scope.wrap(t.shape(), t.dtype(), out);
    }

    @Override
    public Tensor additiveMask(Mask mask, DType dtype) {
        scope.checkOpen("additiveMask");
        notNull("additiveMask", "mask", mask);
        notNull("additiveMask", "dtype", dtype);
        double[] out = new double[Math.toIntExact(mask.shape().size())];
        for (int i = 0; i < out.length; i++) {
            out[i] = mask.allowed(i) ? 0.0 : Double.NEGATIVE_INFINITY;
        }
        return scope.wrap(mask.shape(), dtype, out);
    }

    @Override
    public Tensor rmsNorm(Tensor x, Tensor weight, double eps) {
        return ReferenceOps.rmsNorm(this, x, weight, eps);
    }

    @Override
    public Tensor silu(Tensor x) {
        return ReferenceOps.silu(this, x);
    }

    @Override
    public Tensor rope(Tensor x, RopeLayout layout, double base, int offset) {
        return ReferenceOps.rope(this, x, layout, base, offset);
    }

    @Override
    public Tensor writeSlice(Tensor target, Tensor source, int axis, int offset) {
        return ReferenceOps.writeSlice(this, target, source, axis, offset);
    }

    @Override
    public AttentionResult attention(Tensor q, Tensor k, Tensor v, AttentionOptions options) {
        return ReferenceAttention.compute(this, q, k, v, options);
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
