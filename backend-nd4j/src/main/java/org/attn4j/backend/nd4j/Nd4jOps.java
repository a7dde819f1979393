package org.attn4j.backend.nd4j;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.Dropout;
import org.attn4j.api.spi.ShapeChecks;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.AddOp;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.DivOp;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.MulOp;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.SubOp;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Erf;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The op set on ND4J. Each op checks its operands with {@link ShapeChecks}, computes into freshly allocated
 * detached arrays with libnd4j's native kernels, closes its intermediates, and hands its result to the scope.
 */
final class Nd4jOps implements Ops {
    private static final double SQRT_HALF = Math.sqrt(0.5);
    private static final double SQRT_TWO_OVER_PI = Math.sqrt(2.0 / Math.PI);
    private static final double GELU_TANH_CUBIC = 0.044715;

    private final Nd4jScope scope;

    Nd4jOps(Nd4jScope scope) {
        this.scope = scope;
    }

    @Override
    public Scope scope() {
        return scope;
    }

    private INDArray in(String op, String argument, Tensor tensor) {
        return scope.operand(op, argument, tensor, Nd4jTensor.class).array(op);
    }

    @Override
    public Tensor matmul(Tensor a, Tensor b, boolean transposeA, boolean transposeB) {
        INDArray x = in("matmul", "a", a);
        INDArray y = in("matmul", "b", b);
        ShapeChecks.sameDType("matmul", "a", a, "b", b);
        Shape out = ShapeChecks.matmul(a.shape(), b.shape(), transposeA, transposeB);
        return scope.fresh(out, a.dtype(), t -> {
            INDArray z = t.add(NdArrays.uninitialized(a.dtype(), out));
            Kernels.matmul(broadcastBatch(x, a.shape(), out, t), broadcastBatch(y, b.shape(), out, t), z,
                    transposeA, transposeB, 1.0);
            return z;
        });
    }

    /** Copies an operand up to the result's batch dims when they differ (numpy broadcasting of matmul). */
    private static INDArray broadcastBatch(INDArray x, Shape shape, Shape result, Intermediates t) {
        Shape batch = result.slice(0, result.rank() - 2);
        if (shape.slice(0, shape.rank() - 2).equals(batch)) {
            return x;
        }
        Shape full = batch.append(shape.dim(-2), shape.dim(-1));
        INDArray expanded = t.add(Nd4j.create(x.dataType(), NdArrays.dims(full)));
        Nd4j.exec(new AddOp(new INDArray[] {expanded, x}, new INDArray[] {expanded}));
        return expanded;
    }

    @Override
    public Tensor add(Tensor a, Tensor b) {
        return binary("add", a, b, Kind.ADD);
    }

    @Override
    public Tensor sub(Tensor a, Tensor b) {
        return binary("sub", a, b, Kind.SUB);
    }

    @Override
    public Tensor mul(Tensor a, Tensor b) {
        return binary("mul", a, b, Kind.MUL);
    }

    @Override
    public Tensor div(Tensor a, Tensor b) {
        return binary("div", a, b, Kind.DIV);
    }

    /** The four broadcasting arithmetic ops of libnd4j. */
    enum Kind {
        ADD, SUB, MUL, DIV;

        void exec(INDArray a, INDArray b, INDArray out) {
            INDArray[] in = {a, b};
            INDArray[] z = {out};
            switch (this) {
                case ADD -> Nd4j.exec(new AddOp(in, z));
                case SUB -> Nd4j.exec(new SubOp(in, z));
                case MUL -> Nd4j.exec(new MulOp(in, z));
                case DIV -> Nd4j.exec(new DivOp(in, z));
                default -> throw new AssertionError(this);
            }
        }
    }

    private Tensor binary(String op, Tensor a, Tensor b, Kind kind) {
        INDArray x = in(op, "a", a);
        INDArray y = in(op, "b", b);
        ShapeChecks.sameDType(op, "a", a, "b", b);
        Shape out = ShapeChecks.broadcast(op, a.shape(), b.shape());
        return scope.fresh(out, a.dtype(), t -> {
            INDArray z = t.add(NdArrays.uninitialized(a.dtype(), out));
            kind.exec(x, y, z);
            return z;
        });
    }

    @Override
    public Tensor scale(Tensor x, double factor) {
        INDArray a = in("scale", "x", x);
        return scope.fresh(x.shape(), x.dtype(), t -> a.mul(factor));
    }

    @Override
    public Tensor exp(Tensor x) {
        INDArray a = in("exp", "x", x);
        return scope.fresh(x.shape(), x.dtype(), t -> Transforms.exp(a, true));
    }

    @Override
    public Tensor max(Tensor x, int axis, boolean keepDims) {
        return reduce("max", x, axis, keepDims, (a, ax, t) -> Kernels.maxPropagatingNaN(a, ax, keepDims, t));
    }

    @Override
    public Tensor sum(Tensor x, int axis, boolean keepDims) {
        return reduce("sum", x, axis, keepDims, (a, ax, t) -> a.sum(keepDims, ax));
    }

    @Override
    public Tensor mean(Tensor x, int axis, boolean keepDims) {
        return reduce("mean", x, axis, keepDims, (a, ax, t) -> a.mean(keepDims, ax));
    }

    @Override
    public Tensor variance(Tensor x, int axis, boolean keepDims) {
        return reduce("variance", x, axis, keepDims, (a, ax, t) -> a.var(false, ax));
    }

    /** A reduction's body: {@code x}'s array and the normalised axis in, the reduced array out. */
    @FunctionalInterface
    private interface Reduction {
        INDArray apply(INDArray x, int axis, Intermediates t);
    }

    /** Checks {@code x}, the axis and the result shape of reduction {@code op}, then runs {@code body}. */
    private Tensor reduce(String op, Tensor x, int axis, boolean keepDims, Reduction body) {
        INDArray a = in(op, "x", x);
        Shape out = ShapeChecks.reduce(op, x.shape(), axis, keepDims);
        int ax = ShapeChecks.axis(op, x.shape(), axis);
        return scope.fresh(out, x.dtype(), t -> body.apply(a, ax, t));
    }

    @Override
    public Tensor softmax(Tensor x, int axis) {
        INDArray a = in("softmax", "x", x);
        int ax = ShapeChecks.axis("softmax", x.shape(), axis);
        return scope.fresh(x.shape(), x.dtype(), t -> {
            INDArray z = t.add(NdArrays.uninitialized(x.dtype(), x.shape()));
            Kernels.softmax(a, z, ax, t);
            return z;
        });
    }

    /**
     * Normalises in F64 whatever the dtype, as the float64 reference does: the squares of F32 entries past about
     * 1.8e19 overflow F32 and would turn every row that holds one into zeros. Gamma and beta apply in the dtype.
     */
    @Override
    public Tensor layerNorm(Tensor x, Tensor gamma, Tensor beta, double eps) {
        INDArray a = in("layerNorm", "x", x);
        INDArray g = gamma == null ? null : in("layerNorm", "gamma", gamma);
        INDArray b = beta == null ? null : in("layerNorm", "beta", beta);
        ShapeChecks.sameDType("layerNorm", "x", x, "gamma", gamma, "beta", beta);
        ShapeChecks.layerNorm(x.shape(), gamma == null ? null : gamma.shape(), beta == null ? null : beta.shape(),
                eps);
        int last = x.shape().rank() - 1;
        return scope.fresh(x.shape(), x.dtype(), t -> {
            INDArray wide = x.dtype() == DType.F64 ? a : t.add(a.castTo(NdArrays.type(DType.F64)));
            INDArray centred = t.add(NdArrays.uninitialized(DType.F64, x.shape()));
            Kind.SUB.exec(wide, t.add(wide.mean(true, last)), centred);
            INDArray squares = t.add(centred.mul(centred));
            INDArray std = t.add(squares.mean(true, last));
            Transforms.sqrt(std.addi(eps), false);
            Kind.DIV.exec(centred, std, centred);
            INDArray normalised = x.dtype() == DType.F64 ? centred : t.add(centred.castTo(NdArrays.type(x.dtype())));
            if (g != null) {
                Kind.MUL.exec(normalised, g, normalised);
            }
            if (b != null) {
                Kind.ADD.exec(normalised, b, normalised);
            }
            return normalised;
        });
    }

    @Override
    public Tensor relu(Tensor x) {
        INDArray a = in("relu", "x", x);
        return scope.fresh(x.shape(), x.dtype(), t -> Transforms.relu(a, true));
    }

    /**
     * {@code NONE}: {@code 0.5·x·(1 + erf(x/√2))} with libnd4j's erf;
     * {@code TANH}: {@code 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))}.
     */
    @Override
    public Tensor gelu(Tensor x, GeluApproximation approximation) {
        INDArray a = in("gelu", "x", x);
        if (approximation == null) {
            throw new IllegalArgumentException("gelu: argument approximation is null; use GeluApproximation.NONE");
        }
        return scope.fresh(x.shape(), x.dtype(), t -> {
            INDArray z;
            if (approximation == GeluApproximation.NONE) {
                z = a.mul(SQRT_HALF);
                Nd4j.exec(new Erf(z, z));
            } else {
                z = Transforms.pow(a, 3, true);
                z.muli(GELU_TANH_CUBIC).addi(a).muli(SQRT_TWO_OVER_PI);
                Transforms.tanh(z, false);
            }
            z.addi(1.0).muli(0.5).muli(a);
            return z;
        });
    }

    @Override
    public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        INDArray a = in("linear", "x", x);
        INDArray w = in("linear", "weight", weight);
        INDArray b = bias == null ? null : in("linear", "bias", bias);
        ShapeChecks.sameDType("linear", "x", x, "weight", weight, "bias", bias);
        Shape out = ShapeChecks.linear(x.shape(), weight.shape(), bias == null ? null : bias.shape());
        int features = weight.shape().dim(1);
        long rows = x.shape().size() / features;
        return scope.fresh(out, x.dtype(), t -> {
            INDArray z = t.add(Nd4j.createUninitializedDetached(a.dataType(), rows, weight.shape().dim(0)));
            Kernels.matmul(a.reshape('c', rows, features), w, z, false, true, 1.0);
            if (b != null) {
                Kind.ADD.exec(z, b, z);
            }
            return z;
        });
    }

    @Override
    public Tensor embedding(Tensor weight, int[] ids, Shape idsShape) {
        INDArray w = in("embedding", "weight", weight);
        if (ids == null || idsShape == null) {
            throw new IllegalArgumentException("embedding: arguments ids and idsShape must not be null");
        }
        Shape out = ShapeChecks.embedding(weight.shape(), ids, idsShape);
        return scope.fresh(out, weight.dtype(), t -> Nd4j.pullRows(w, 1, ids));
    }

    @Override
    public Tensor reshape(Tensor x, int... shape) {
        INDArray a = in("reshape", "x", x);
        Shape out = ShapeChecks.reshape(x.shape(), shape);
        return scope.fresh(out, x.dtype(), t -> a.dup('c'));
    }

    @Override
    public Tensor permute(Tensor x, int... axes) {
        INDArray a = in("permute", "x", x);
        Shape out = ShapeChecks.permute(x.shape(), axes);
        int[] normalized = new int[axes.length];
        for (int i = 0; i < axes.length; i++) {
            normalized[i] = axes[i] < 0 ? axes[i] + axes.length : axes[i];
        }
        return scope.fresh(out, x.dtype(), t -> axes.length == 0 ? a.dup('c') : a.permute(normalized).dup('c'));
    }

    @Override
    public Tensor concat(List<Tensor> parts, int axis) {
        if (parts == null || parts.isEmpty()) {
            throw new IllegalArgumentException("concat: argument parts is " + (parts == null ? "null" : "empty"));
        }
        INDArray[] arrays = new INDArray[parts.size()];
        List<Shape> shapes = new ArrayList<>(parts.size());
        for (int i = 0; i < arrays.length; i++) {
            arrays[i] = in("concat", "parts[" + i + "]", parts.get(i));
            ShapeChecks.sameDType("concat", "parts[0]", parts.get(0), "parts[" + i + "]", parts.get(i));
            shapes.add(parts.get(i).shape());
        }
        Shape out = ShapeChecks.concat(shapes, axis);
        int ax = ShapeChecks.axis("concat", shapes.get(0), axis);
        return scope.fresh(out, parts.get(0).dtype(),
                t -> arrays.length == 1 ? arrays[0].dup('c') : Nd4j.concat(ax, arrays));
    }

    @Override
    public List<Tensor> split(Tensor x, int[] sizes, int axis) {
        INDArray a = in("split", "x", x);
        if (sizes == null) {
            throw new IllegalArgumentException("split: argument sizes is null");
        }
        List<Shape> shapes = ShapeChecks.split(x.shape(), sizes, axis);
        int ax = ShapeChecks.axis("split", x.shape(), axis);
        List<Tensor> pieces = new ArrayList<>(sizes.length);
        long start = 0;
        for (int p = 0; p < sizes.length; p++) {
            INDArrayIndex[] index = new INDArrayIndex[x.shape().rank()];
            for (int i = 0; i < index.length; i++) {
                index[i] = i == ax ? NDArrayIndex.interval(start, start + sizes[p]) : NDArrayIndex.all();
            }
            pieces.add(scope.fresh(shapes.get(p), x.dtype(), t -> a.get(index).dup('c')));
            start += sizes[p];
        }
        return pieces;
    }

    @Override
    public Tensor cast(Tensor x, DType dtype) {
        INDArray a = in("cast", "x", x);
        if (dtype == null) {
            throw new IllegalArgumentException("cast: argument dtype is null");
        }
        return scope.fresh(x.shape(), dtype,
                t -> dtype == x.dtype() ? a.dup('c') : a.castTo(NdArrays.type(dtype)));
    }

    @Override
    public Tensor dropout(Tensor x, double p, long seed) {
        INDArray a = in("dropout", "x", x);
        Dropout.checkProbability("dropout", p);
        return scope.fresh(x.shape(), x.dtype(), t -> {
            INDArray z = t.add(a.dup('c'));
            Kernels.dropoutInPlace(z, p, seed, t);
            return z;
        });
    }

    @Override
    public Tensor additiveMask(Mask mask, DType dtype) {
        scope.checkOpen("additiveMask");
        if (mask == null || dtype == null) {
            throw new IllegalArgumentException("additiveMask: arguments mask and dtype must not be null");
        }
        return scope.fresh(mask.shape(), dtype, t -> Kernels.additive(mask, dtype));
    }

    @Override
    public AttentionResult attention(Tensor q, Tensor k, Tensor v, AttentionOptions options) {
        INDArray qa = in("attention", "q", q);
        INDArray ka = in("attention", "k", k);
        INDArray va = in("attention", "v", v);
        INDArray additive = options == null || options.additiveMask() == null
                ? null : in("attention", "additiveMask", options.additiveMask());
        return Nd4jAttention.attention(scope, qa, ka, va, additive, q, k, v, options);
    }
}
