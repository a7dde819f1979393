package org.attn4j.backend.ejml;

import java.util.ArrayList;
import java.util.List;
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
import org.attn4j.api.spi.Dropout;
import org.attn4j.api.spi.ReferenceAttention;
import org.attn4j.api.spi.ShapeChecks;

/**
 * Every op on heap tensors. Each method checks its operands with {@link HeapScope#operand} and
 * {@link ShapeChecks}, computes into a fresh array, and only then creates the result tensor in the scope, so a
 * rejected call leaves nothing behind.
 */
final class HeapOps implements Ops {
    private final HeapScope scope;
    private final Parallel parallel;

    HeapOps(HeapScope scope, Parallel parallel) {
        this.scope = scope;
        this.parallel = parallel;
    }

    @Override
    public Scope scope() {
        return scope;
    }

    private HeapTensor operand(String op, String argument, Tensor t) {
        return scope.operand(op, argument, t, HeapTensor.class);
    }

    private HeapTensor optional(String op, String argument, Tensor t) {
        return t == null ? null : operand(op, argument, t);
    }

    private static void notNull(String op, String argument, Object value) {
        if (value == null) {
            throw new IllegalArgumentException(op + ": argument " + argument + " is null");
        }
    }

    @Override
    public Tensor matmul(Tensor a, Tensor b, boolean transposeA, boolean transposeB) {
        HeapTensor x = operand("matmul", "a", a);
        HeapTensor y = operand("matmul", "b", b);
        ShapeChecks.sameDType("matmul", "a", x, "b", y);
        Shape out = ShapeChecks.matmul(x.shape(), y.shape(), transposeA, transposeB);
        return scope.wrap(out, MatMul.batched(x, y, transposeA, transposeB, out, parallel));
    }

    @Override
    public Tensor add(Tensor a, Tensor b) {
        return binary("add", Elementwise.Binary.ADD, a, b);
    }

    @Override
    public Tensor sub(Tensor a, Tensor b) {
        return binary("sub", Elementwise.Binary.SUB, a, b);
    }

    @Override
    public Tensor mul(Tensor a, Tensor b) {
        return binary("mul", Elementwise.Binary.MUL, a, b);
    }

    @Override
    public Tensor div(Tensor a, Tensor b) {
        return binary("div", Elementwise.Binary.DIV, a, b);
    }

    private Tensor binary(String op, Elementwise.Binary kind, Tensor a, Tensor b) {
        HeapTensor x = operand(op, "a", a);
        HeapTensor y = operand(op, "b", b);
        ShapeChecks.sameDType(op, "a", x, "b", y);
        Shape out = ShapeChecks.broadcast(op, x.shape(), y.shape());
        return scope.wrap(out, Elementwise.binary(kind, x, y, out, parallel));
    }

    @Override
    public Tensor scale(Tensor x, double factor) {
        return unary("scale", x, (i, v) -> v * factor);
    }

    @Override
    public Tensor exp(Tensor x) {
        return unary("exp", x, (i, v) -> Math.exp(v));
    }

    @Override
    public Tensor relu(Tensor x) {
        return unary("relu", x, (i, v) -> v > 0 || Double.isNaN(v) ? v : 0.0);
    }

    @Override
    public Tensor gelu(Tensor x, GeluApproximation approximation) {
        notNull("gelu", "approximation", approximation);
        if (approximation == GeluApproximation.TANH) {
            return unary("gelu", x, (i, v) -> Elementwise.geluTanh(v));
        }
        return unary("gelu", x, (i, v) -> Elementwise.geluExact(v));
    }

    private Tensor unary(String op, Tensor x, Elementwise.Unary f) {
        HeapTensor t = operand(op, "x", x);
        return scope.wrap(t.shape(), Elementwise.map(t, f));
    }

    @Override
    public Tensor max(Tensor x, int axis, boolean keepDims) {
        return reduce("max", Reductions.Kind.MAX, x, axis, keepDims);
    }

    @Override
    public Tensor sum(Tensor x, int axis, boolean keepDims) {
        return reduce("sum", Reductions.Kind.SUM, x, axis, keepDims);
    }

    @Override
    public Tensor mean(Tensor x, int axis, boolean keepDims) {
        return reduce("mean", Reductions.Kind.MEAN, x, axis, keepDims);
    }

    @Override
    public Tensor variance(Tensor x, int axis, boolean keepDims) {
        return reduce("variance", Reductions.Kind.VARIANCE, x, axis, keepDims);
    }

    private Tensor reduce(String op, Reductions.Kind kind, Tensor x, int axis, boolean keepDims) {
        HeapTensor t = operand(op, "x", x);
        Shape out = ShapeChecks.reduce(op, t.shape(), axis, keepDims);
        int a = ShapeChecks.axis(op, t.shape(), axis);
        Shape s = t.shape();
        double[] r = Reductions.reduce(kind, t.widened(), outer(s, a), s.dim(a), (int) s.stride(a));
        return scope.fromDoubles(out, r, t.dtype());
    }

    private static int outer(Shape s, int axis) {
        return (int) (s.size() / (s.dim(axis) * s.stride(axis)));
    }

    @Override
    public Tensor softmax(Tensor x, int axis) {
        HeapTensor t = operand("softmax", "x", x);
        Shape s = t.shape();
        int a = ShapeChecks.axis("softmax", s, axis);
        double[] r = Reductions.softmax(t.widened(), outer(s, a), s.dim(a), (int) s.stride(a));
        return scope.fromDoubles(s, r, t.dtype());
    }

    @Override
    public Tensor layerNorm(Tensor x, Tensor gamma, Tensor beta, double eps) {
        HeapTensor t = operand("layerNorm", "x", x);
        HeapTensor g = optional("layerNorm", "gamma", gamma);
        HeapTensor b = optional("layerNorm", "beta", beta);
        ShapeChecks.sameDType("layerNorm", "x", t, "gamma", g, "beta", b);
        ShapeChecks.layerNorm(t.shape(), g == null ? null : g.shape(), b == null ? null : b.shape(), eps);
        double[] r = Reductions.layerNorm(t.widened(), t.shape().dim(-1), g == null ? null : g.widened(),
                b == null ? null : b.widened(), eps);
        return scope.fromDoubles(t.shape(), r, t.dtype());
    }

    @Override
    public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        HeapTensor t = operand("linear", "x", x);
        HeapTensor w = operand("linear", "weight", weight);
        HeapTensor b = optional("linear", "bias", bias);
        ShapeChecks.sameDType("linear", "x", t, "weight", w, "bias", b);
        Shape out = ShapeChecks.linear(t.shape(), w.shape(), b == null ? null : b.shape());
        int in = w.shape().dim(1);
        int features = w.shape().dim(0);
        int rows = (int) (t.shape().size() / in);
        Object result = HeapScope.allocate(t.dtype(), out);
        MatMul.linear(rows, features, in, t.data(), w.data(), b == null ? null : b.data(), result, parallel);
        return scope.wrap(out, result);
    }

    @Override
    public Tensor embedding(Tensor weight, int[] ids, Shape idsShape) {
        HeapTensor w = operand("embedding", "weight", weight);
        notNull("embedding", "ids", ids);
        notNull("embedding", "idsShape", idsShape);
        Shape out = ShapeChecks.embedding(w.shape(), ids, idsShape);
        int d = w.shape().dim(1);
        Object result = HeapScope.allocate(w.dtype(), out);
        for (int i = 0; i < ids.length; i++) {
            System.arraycopy(w.data(), ids[i] * d, result, i * d, d);
        }
        return scope.wrap(out, result);
    }

    @Override
    public Tensor reshape(Tensor x, int... shape) {
        HeapTensor t = operand("reshape", "x", x);
        notNull("reshape", "shape", shape);
        return scope.wrap(ShapeChecks.reshape(t.shape(), shape), t.data());
    }

    @Override
    public Tensor permute(Tensor x, int... axes) {
        HeapTensor t = operand("permute", "x", x);
        notNull("permute", "axes", axes);
        Shape out = ShapeChecks.permute(t.shape(), axes);
        int[] source = Strides.of(t.shape());
        int[] strides = new int[axes.length];
        for (int i = 0; i < axes.length; i++) {
            strides[i] = source[axes[i] < 0 ? axes[i] + axes.length : axes[i]];
        }
        return scope.wrap(out, Layout.gather(t.data(), Strides.offsets(out, strides)));
    }

    @Override
    public Tensor concat(List<Tensor> parts, int axis) {
        notNull("concat", "parts", parts);
        List<HeapTensor> ts = new ArrayList<>(parts.size());
        List<Shape> shapes = new ArrayList<>(parts.size());
        Object[] named = new Object[2 * parts.size()];
        for (int i = 0; i < parts.size(); i++) {
            HeapTensor t = operand("concat", "parts[" + i + "]", parts.get(i));
            ts.add(t);
            shapes.add(t.shape());
            named[2 * i] = "parts[" + i + "]";
            named[2 * i + 1] = t;
        }
        Shape out = ShapeChecks.concat(shapes, axis);
        if (named.length > 0) {
            ShapeChecks.sameDType("concat", named);
        }
        int a = ShapeChecks.axis("concat", out, axis);
        int inner = (int) out.stride(a);
        int outer = outer(out, a);
        Object result = HeapScope.allocate(ts.get(0).dtype(), out);
        int start = 0;
        for (HeapTensor t : ts) {
            int block = t.shape().dim(a) * inner;
            Layout.blocks(t.data(), result, outer, block, start, out.dim(a) * inner, false);
            start += block;
        }
        return scope.wrap(out, result);
    }

    @Override
    public List<Tensor> split(Tensor x, int[] sizes, int axis) {
        HeapTensor t = operand("split", "x", x);
        notNull("split", "sizes", sizes);
        List<Shape> shapes = ShapeChecks.split(t.shape(), sizes, axis);
        int a = ShapeChecks.axis("split", t.shape(), axis);
        int inner = (int) t.shape().stride(a);
        int outer = outer(t.shape(), a);
        Object[] pieces = new Object[shapes.size()];
        int start = 0;
        for (int p = 0; p < pieces.length; p++) {
            int block = sizes[p] * inner;
            pieces[p] = HeapScope.allocate(t.dtype(), shapes.get(p));
            Layout.blocks(pieces[p], t.data(), outer, block, start, t.shape().dim(a) * inner, true);
            start += block;
        }
        List<Tensor> out = new ArrayList<>(pieces.length);
        for (int p = 0; p < pieces.length; p++) {
            out.add(scope.wrap(shapes.get(p), pieces[p]));
        }
        return out;
    }

    @Override
    public Tensor cast(Tensor x, DType dtype) {
        HeapTensor t = operand("cast", "x", x);
        notNull("cast", "dtype", dtype);
        return scope.wrap(t.shape(), Layout.cast(t.data(), dtype));
    }

    @Override
    public Tensor dropout(Tensor x, double p, long seed) {
        Dropout.checkProbability("dropout", p);
        double keepScale = Dropout.survivorScale(p);
        return unary("dropout", x, (i, v) -> Dropout.keep(seed, i, p) ? v * keepScale : 0.0);
    }

    @Override
    public Tensor rmsNorm(Tensor x, Tensor weight, double eps) {
        HeapTensor t = operand("rmsNorm", "x", x);
        HeapTensor w = optional("rmsNorm", "weight", weight);
        ShapeChecks.sameDType("rmsNorm", "x", t, "weight", w);
        ShapeChecks.rmsNorm(t.shape(), w == null ? null : w.shape(), eps);
        return scope.wrap(t.shape(), DecoderKernels.rmsNorm(t.data(), t.shape().dim(-1), w == null ? null : w.data(),
                eps));
    }

    @Override
    public Tensor silu(Tensor x) {
        return unary("silu", x, (i, v) -> DecoderKernels.silu(v));
    }

    @Override
    public Tensor rope(Tensor x, RopeLayout layout, double base, int offset) {
        HeapTensor t = operand("rope", "x", x);
        notNull("rope", "layout", layout);
        ShapeChecks.rope(t.shape(), base, offset);
        return scope.wrap(t.shape(), DecoderKernels.rope(t.data(), t.shape().dim(-2), t.shape().dim(-1), layout,
                base, offset));
    }

    /** Writes in place: the target's array is filled, and {@code target} itself returned. */
    @Override
    public Tensor writeSlice(Tensor target, Tensor source, int axis, int offset) {
        HeapTensor t = operand("writeSlice", "target", target);
        HeapTensor s = operand("writeSlice", "source", source);
        ShapeChecks.sameDType("writeSlice", "target", t, "source", s);
        int a = ShapeChecks.writeSlice(t.shape(), s.shape(), axis, offset);
        int inner = (int) t.shape().stride(a);
        Layout.blocks(s.data(), t.data(), outer(s.shape(), a), s.shape().dim(a) * inner, offset * inner,
                t.shape().dim(a) * inner, false);
        return t;
    }

    /**
     * Fused attention ({@link FlashAttention}); with {@code returnWeights} the composed
     * {@link ReferenceAttention}, since the weights are then materialised anyway.
     */
    @Override
    public AttentionResult attention(Tensor q, Tensor k, Tensor v, AttentionOptions options) {
        HeapTensor tq = operand("attention", "q", q);
        HeapTensor tk = operand("attention", "k", k);
        HeapTensor tv = operand("attention", "v", v);
        notNull("attention", "options", options);
        HeapTensor additive = optional("attention", "additiveMask", options.additiveMask());
        ShapeChecks.AttentionShape shape = ShapeChecks.attention(tq, tk, tv, options);
        if (options.returnWeights()) {
            return ReferenceAttention.compute(this, q, k, v, options);
        }
        Object out = FlashAttention.run(tq, tk, tv, additive, options, shape, parallel);
        return new AttentionResult(scope.wrap(shape.output(), out), null);
    }

    @Override
    public Tensor additiveMask(Mask mask, DType dtype) {
        scope.checkOpen("additiveMask");
        notNull("additiveMask", "mask", mask);
        notNull("additiveMask", "dtype", dtype);
        int n = (int) mask.shape().size();
        double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            values[i] = mask.allowed(i) ? 0.0 : Double.NEGATIVE_INFINITY;
        }
        return scope.fromDoubles(mask.shape(), values, dtype);
    }
}
