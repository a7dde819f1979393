package org.attn4j.backend.nd4j;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.AbstractOps;
import org.attn4j.api.spi.ReferenceOps;
import org.attn4j.api.spi.ShapeChecks;
import org.nd4j.linalg.api.buffer.DataType;
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
 * The op set on ND4J. {@link AbstractOps} validates each call; each compute method here computes into freshly
 * allocated detached arrays with libnd4j's native kernels, closes its intermediates, and hands its result to the
 * scope.
 */
final class Nd4jOps extends AbstractOps<Nd4jTensor> {
    private static final double SQRT_HALF = Math.sqrt(0.5);
    private static final double SQRT_TWO_OVER_PI = Math.sqrt(2.0 / Math.PI);
    private static final double GELU_TANH_CUBIC = 0.044715;

    private final Nd4jScope scope;

    Nd4jOps(Nd4jScope scope) {
        super(scope, Nd4jTensor.class);
        this.scope = scope;
    }

    @Override
    protected Tensor computeMatmul(Nd4jTensor a, Nd4jTensor b, boolean transposeA, boolean transposeB, Shape out) {
        INDArray x = a.array("matmul");
        INDArray y = b.array("matmul");
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

    @Override
    protected Tensor computeBinary(Binary kind, Nd4jTensor a, Nd4jTensor b, Shape out) {
        INDArray x = a.array(kind.op());
        INDArray y = b.array(kind.op());
        Kind exec = switch (kind) {
            case ADD -> Kind.ADD;
            case SUB -> Kind.SUB;
            case MUL -> Kind.MUL;
            case DIV -> Kind.DIV;
        };
        return scope.fresh(out, a.dtype(), t -> {
            INDArray z = t.add(NdArrays.uninitialized(a.dtype(), out));
            exec.exec(x, y, z);
            return z;
        });
    }

    @Override
    protected Tensor computeScale(Nd4jTensor x, double factor) {
        INDArray a = x.array("scale");
        return scope.fresh(x.shape(), x.dtype(), t -> a.mul(factor));
    }

    @Override
    protected Tensor computeExp(Nd4jTensor x) {
        INDArray a = x.array("exp");
        return scope.fresh(x.shape(), x.dtype(), t -> Transforms.exp(a, true));
    }

    @Override
    protected Tensor computeReduce(Reduction kind, Nd4jTensor x, int axis, boolean keepDims, Shape out) {
        INDArray a = x.array(kind.op());
        return scope.fresh(out, x.dtype(), t -> switch (kind) {
            case MAX -> Kernels.maxPropagatingNaN(a, axis, keepDims, t);
            case SUM -> a.sum(keepDims, axis);
            case MEAN -> a.mean(keepDims, axis);
            case VARIANCE -> a.var(false, axis);
        });
    }

    @Override
    protected Tensor computeSoftmax(Nd4jTensor x, int axis) {
        INDArray a = x.array("softmax");
        return scope.fresh(x.shape(), x.dtype(), t -> {
            INDArray z = t.add(NdArrays.uninitialized(x.dtype(), x.shape()));
            Kernels.softmax(a, z, axis, t);
            return z;
        });
    }

    /**
     * Normalises in F64 whatever the dtype, as the float64 reference does: the squares of F32 entries past about
     * 1.8e19 overflow F32 and would turn every row that holds one into zeros. Gamma and beta apply in the dtype.
     */
    @Override
    protected Tensor computeLayerNorm(Nd4jTensor x, Nd4jTensor gamma, Nd4jTensor beta, double eps) {
        INDArray a = x.array("layerNorm");
        INDArray g = gamma == null ? null : gamma.array("layerNorm");
        INDArray b = beta == null ? null : beta.array("layerNorm");
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

    /**
     * {@code x / sqrt(mean(x²) + eps) · weight} in five native calls instead of the spi's composition of a dozen,
     * normalised in F64 whatever the dtype, as {@link #computeLayerNorm} and for the same reason; the weight
     * applies in the dtype.
     */
    @Override
    protected Tensor computeRmsNorm(Nd4jTensor x, Nd4jTensor weight, double eps) {
        INDArray a = x.array("rmsNorm");
        INDArray g = weight == null ? null : weight.array("rmsNorm");
        int last = x.shape().rank() - 1;
        return scope.fresh(x.shape(), x.dtype(), t -> {
            INDArray wide = x.dtype() == DType.F64 ? a : t.add(a.castTo(NdArrays.type(DType.F64)));
            INDArray rms = t.add(t.add(wide.mul(wide)).mean(true, last));
            Transforms.sqrt(rms.addi(eps), false);
            INDArray normalised = t.add(NdArrays.uninitialized(DType.F64, x.shape()));
            Kind.DIV.exec(wide, rms, normalised);
            INDArray out = x.dtype() == DType.F64 ? normalised : t.add(normalised.castTo(NdArrays.type(x.dtype())));
            if (g != null) {
                Kind.MUL.exec(out, g, out);
            }
            return out;
        });
    }

    /** {@code x · σ(x)} with libnd4j's sigmoid: two native calls instead of the spi's composition of four. */
    @Override
    protected Tensor computeSilu(Nd4jTensor x) {
        INDArray a = x.array("silu");
        return scope.fresh(x.shape(), x.dtype(), t -> t.add(Transforms.sigmoid(a, true)).muli(a));
    }

    /**
     * Rotary embeddings as elementwise native calls in F64 on strided views of the pairs, whatever the dtype (as
     * {@link #computeRmsNorm}): {@code a' = a·c − b·s}, {@code b' = b·c + a·s} with the cosine and sine tables
     * {@code [L, n]} of {@code ReferenceOps.ropeTables} broadcast over the leading dims; the features past the
     * rotated ones are copied.
     */
    @Override
    protected Tensor computeRope(Nd4jTensor x, RotaryEmbedding rotary, int offset) {
        INDArray a = x.array("rope");
        Shape shape = x.shape();
        int rows = shape.dim(-2);
        int d = shape.dim(-1);
        int n = rotary.pairs();
        long outer = shape.size() / ((long) rows * d);
        double[][] tables = ReferenceOps.ropeTables(rows, rotary, offset);
        boolean interleaved = rotary.layout() == RopeLayout.INTERLEAVED;
        return scope.fresh(shape, x.dtype(), t -> {
            INDArray doubles = x.dtype() == DType.F64 ? a : t.add(a.castTo(DataType.DOUBLE));
            INDArray wide = t.add(doubles.reshape('c', outer, rows, d).dup('c'));
            INDArrayIndex turnedFeatures = NDArrayIndex.interval(0, 2 * n);
            INDArray part = t.add(wide.get(NDArrayIndex.all(), NDArrayIndex.all(), turnedFeatures).dup('c'));
            INDArray pairs = interleaved ? part.reshape('c', outer, rows, n, 2) : part.reshape('c', outer, rows, 2, n);
            int pairAxis = interleaved ? 3 : 2;
            INDArrayIndex[] firstIndex = {NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.all(),
                NDArrayIndex.all()};
            INDArrayIndex[] secondIndex = firstIndex.clone();
            firstIndex[pairAxis] = NDArrayIndex.point(0);
            secondIndex[pairAxis] = NDArrayIndex.point(1);
            INDArray pa = t.add(pairs.get(firstIndex).dup('c'));
            INDArray pb = t.add(pairs.get(secondIndex).dup('c'));
            INDArray cos = t.add(NdArrays.fromHost(tables[0], DType.F64, Shape.of(1, rows, n)));
            INDArray sin = t.add(NdArrays.fromHost(tables[1], DType.F64, Shape.of(1, rows, n)));
            INDArray product = t.add(NdArrays.uninitialized(DType.F64, Shape.of((int) outer, rows, n)));
            INDArray turned = t.add(NdArrays.uninitialized(DType.F64, Shape.of((int) outer, rows, n)));
            Kind.MUL.exec(pa, cos, turned);
            Kind.MUL.exec(pb, sin, product);
            pairs.get(firstIndex).assign(turned.subi(product));
            Kind.MUL.exec(pb, cos, turned);
            Kind.MUL.exec(pa, sin, product);
            pairs.get(secondIndex).assign(turned.addi(product));
            wide.get(NDArrayIndex.all(), NDArrayIndex.all(), turnedFeatures).assign(part);
            INDArray out = x.dtype() == DType.F64 ? wide.dup('c') : wide.castTo(NdArrays.type(x.dtype()));
            return out.reshape('c', NdArrays.dims(shape));
        });
    }

    /** {@code cap · tanh(x / cap)} with libnd4j's tanh, two native calls. */
    @Override
    protected Tensor computeSoftcap(Nd4jTensor x, double cap) {
        INDArray a = x.array("softcap");
        return scope.fresh(x.shape(), x.dtype(), t -> Kernels.softcapInPlace(a.dup('c'), cap));
    }

    @Override
    protected Tensor computeRelu(Nd4jTensor x) {
        INDArray a = x.array("relu");
        return scope.fresh(x.shape(), x.dtype(), t -> Transforms.relu(a, true));
    }

    /**
     * {@code NONE}: {@code 0.5·x·(1 + erf(x/√2))} with libnd4j's erf;
     * {@code TANH}: {@code 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))}.
     */
    @Override
    protected Tensor computeGelu(Nd4jTensor x, GeluApproximation approximation) {
        INDArray a = x.array("gelu");
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
    protected Tensor computeLinear(Nd4jTensor x, Nd4jTensor weight, Nd4jTensor bias, Shape out) {
        INDArray a = x.array("linear");
        INDArray w = weight.array("linear");
        INDArray b = bias == null ? null : bias.array("linear");
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
    protected Tensor computeEmbedding(Nd4jTensor weight, int[] ids, Shape out) {
        INDArray w = weight.array("embedding");
        return scope.fresh(out, weight.dtype(), t -> Nd4j.pullRows(w, 1, ids));
    }

    @Override
    protected Tensor computeReshape(Nd4jTensor x, Shape out) {
        INDArray a = x.array("reshape");
        return scope.fresh(out, x.dtype(), t -> a.dup('c'));
    }

    @Override
    protected Tensor computePermute(Nd4jTensor x, int[] axes, Shape out) {
        INDArray a = x.array("permute");
        return scope.fresh(out, x.dtype(), t -> axes.length == 0 ? a.dup('c') : a.permute(axes).dup('c'));
    }

    @Override
    protected Tensor computeConcat(List<Nd4jTensor> parts, int axis, Shape out) {
        INDArray[] arrays = new INDArray[parts.size()];
        for (int i = 0; i < arrays.length; i++) {
            arrays[i] = parts.get(i).array("concat");
        }
        return scope.fresh(out, parts.get(0).dtype(),
                t -> arrays.length == 1 ? arrays[0].dup('c') : Nd4j.concat(axis, arrays));
    }

    @Override
    protected List<Tensor> computeSplit(Nd4jTensor x, int axis, List<Shape> shapes) {
        INDArray a = x.array("split");
        List<Tensor> pieces = new ArrayList<>(shapes.size());
        long start = 0;
        for (Shape shape : shapes) {
            long size = shape.dim(axis);
            INDArrayIndex[] index = new INDArrayIndex[x.shape().rank()];
            for (int i = 0; i < index.length; i++) {
                index[i] = i == axis ? NDArrayIndex.interval(start, start + size) : NDArrayIndex.all();
            }
            pieces.add(scope.fresh(shape, x.dtype(), t -> a.get(index).dup('c')));
            start += size;
        }
        return pieces;
    }

    /** Writes in place: the slice of the target's array is assigned, and {@code target} itself returned. */
    @Override
    protected Tensor computeWriteSlice(Nd4jTensor target, Nd4jTensor source, int axis, int offset) {
        INDArrayIndex[] index = new INDArrayIndex[target.shape().rank()];
        for (int i = 0; i < index.length; i++) {
            index[i] = i == axis ? NDArrayIndex.interval(offset, offset + source.shape().dim(axis))
                    : NDArrayIndex.all();
        }
        try (Intermediates t = new Intermediates()) {
            target.array("writeSlice").get(index).assign(source.array("writeSlice"));
        }
        return target;
    }

    @Override
    protected Tensor computeCast(Nd4jTensor x, DType dtype) {
        INDArray a = x.array("cast");
        return scope.fresh(x.shape(), dtype,
                t -> dtype == x.dtype() ? a.dup('c') : a.castTo(NdArrays.type(dtype)));
    }

    @Override
    protected Tensor computeDropout(Nd4jTensor x, double p, long seed) {
        INDArray a = x.array("dropout");
        return scope.fresh(x.shape(), x.dtype(), t -> {
            INDArray z = t.add(a.dup('c'));
            Kernels.dropoutInPlace(z, p, seed, t);
            return z;
        });
    }

    @Override
    protected Tensor computeAdditiveMask(Mask mask, DType dtype) {
        return scope.fresh(mask.shape(), dtype, t -> Kernels.additive(mask, dtype));
    }

    @Override
    protected AttentionResult computeAttention(Nd4jTensor q, Nd4jTensor k, Nd4jTensor v, Nd4jTensor additiveMask,
                                               AttentionOptions options, ShapeChecks.AttentionShape shape) {
        return Nd4jAttention.attention(scope, q.array("attention"), k.array("attention"), v.array("attention"),
                additiveMask == null ? null : additiveMask.array("attention"), q, k, v, options);
    }
}
