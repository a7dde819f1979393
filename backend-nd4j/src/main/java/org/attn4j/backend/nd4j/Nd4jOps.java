package org.attn4j.backend.nd4j;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.GeluApproximation;
import org.attn4j.api.Mask;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.AbstractOps;
import org.attn4j.api.spi.AbstractWeight;
import org.attn4j.api.spi.ShapeChecks;
import org.bytedeco.javacpp.Pointer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.AddOp;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.DivOp;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.MulOp;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.SubOp;
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
    /** The most slabs a split copies one {@code memcpy} at a time. */
    private static final int MEMCPY_SLABS = 64;
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

    /** Normalises in F64 whatever the dtype, in one pass per row ({@link HostNorms}). */
    @Override
    protected Tensor computeLayerNorm(Nd4jTensor x, Nd4jTensor gamma, Nd4jTensor beta, double eps) {
        return computeLayerNorm(x, null, gamma, beta, eps);
    }

    /** {@code layerNorm(x + residual)}: the add happens in the same pass as the norm ({@link HostNorms}). */
    @Override
    protected Tensor computeLayerNorm(Nd4jTensor x, Nd4jTensor residual, Nd4jTensor gamma, Nd4jTensor beta,
                                      double eps) {
        return norm("layerNorm", x, residual, gamma, beta, eps, false);
    }

    /** {@code x / sqrt(mean(x²) + eps) · weight}, in F64 whatever the dtype, in one pass per row ({@link HostNorms}). */
    @Override
    protected Tensor computeRmsNorm(Nd4jTensor x, Nd4jTensor weight, double eps) {
        return computeRmsNorm(x, null, weight, eps);
    }

    /** {@code rmsNorm(x + residual)}: the add happens in the same pass as the norm ({@link HostNorms}). */
    @Override
    protected Tensor computeRmsNorm(Nd4jTensor x, Nd4jTensor residual, Nd4jTensor weight, double eps) {
        return norm("rmsNorm", x, residual, weight, null, eps, true);
    }

    private Tensor norm(String op, Nd4jTensor x, Nd4jTensor residual, Nd4jTensor gamma, Nd4jTensor beta, double eps,
                        boolean rms) {
        INDArray a = x.array(op);
        INDArray r = residual == null ? null : residual.array(op);
        INDArray g = gamma == null ? null : gamma.array(op);
        INDArray b = beta == null ? null : beta.array(op);
        return scope.fresh(x.shape(), x.dtype(), t -> HostNorms.normalise(a, r, g, b, eps, rms, x.dtype(), x.shape(),
                t));
    }

    /** {@code x · σ(x)}: one native call, libnd4j's swish ({@link Kernels#activate}). */
    @Override
    protected Tensor computeSilu(Nd4jTensor x) {
        return activation("silu", x, Activation.SILU);
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
     * {@code NONE}: {@code x/2 · erfc(-x/√2)} with libnd4j's erfc; {@code TANH}: {@code x · σ(2√(2/π)·(x +
     * 0.044715·x³))}, which is {@code x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³)))} ({@link Kernels#activate}).
     */
    @Override
    protected Tensor computeGelu(Nd4jTensor x, GeluApproximation approximation) {
        return activation("gelu", x, approximation == GeluApproximation.TANH ? Activation.GELU_TANH : Activation.GELU);
    }

    private Tensor activation(String op, Nd4jTensor x, Activation activation) {
        INDArray a = x.array(op);
        return scope.fresh(x.shape(), x.dtype(), t -> {
            INDArray z = t.add(a.dup('c'));
            Kernels.activate(z, activation, t);
            return z;
        });
    }

    /** {@code x·Wᵀ + b} over a weight tensor, on CBLAS like a bound weight ({@link Nd4jLinear}). */
    @Override
    protected Tensor computeLinear(Nd4jTensor x, Nd4jTensor weight, Nd4jTensor bias, Shape out) {
        INDArray a = x.array("linear");
        INDArray w = weight.array("linear");
        INDArray b = bias == null ? null : bias.array("linear");
        return scope.fresh(out, x.dtype(), t -> Nd4jLinear.compute(a, BlasProducts.address(w), weight.shape(), b,
                Epilogue.none(), null, x.dtype(), t));
    }

    /** The product with its epilogue on CBLAS, the weight read where it lies ({@link Nd4jLinear}). */
    @Override
    protected Tensor computeLinear(Nd4jTensor x, AbstractWeight weight, Nd4jTensor bias, Epilogue epilogue,
                                   Nd4jTensor residual, Shape out) {
        Nd4jWeight w = (Nd4jWeight) weight;
        INDArray a = x.array("linear");
        Pointer address = w.address("linear");
        INDArray b = bias == null ? null : bias.array("linear");
        INDArray r = residual == null ? null : residual.array("linear");
        return scope.fresh(out, x.dtype(), t -> Nd4jLinear.compute(a, address, w.shape(), b, epilogue, r, x.dtype(),
                t));
    }

    @Override
    protected Tensor computeEmbedding(Nd4jTensor weight, int[] ids, Shape out) {
        INDArray w = weight.array("embedding");
        return scope.fresh(out, weight.dtype(), t -> gather(BlasProducts.address(w), weight.shape().dim(1), ids,
                weight.dtype(), t));
    }

    /** Copies the rows of a bound table, one {@code memcpy} per id. */
    @Override
    protected Tensor computeEmbedding(AbstractWeight table, int[] ids, Shape idsShape, Shape out) {
        Nd4jWeight w = (Nd4jWeight) table;
        Pointer address = w.address("embedding");
        return scope.fresh(out, w.dtype(), t -> gather(address, w.shape().dim(1), ids, w.dtype(), t));
    }

    private static INDArray gather(Pointer table, int d, int[] ids, DType dtype, Intermediates t) {
        INDArray z = t.add(NdArrays.uninitialized(dtype, Shape.of(ids.length, d)));
        Pointer to = BlasProducts.address(z);
        long row = (long) d * dtype.byteSize();
        for (int i = 0; i < ids.length; i++) {
            Pointer.memcpy(to.getPointer((long) i * d), table.getPointer((long) ids[i] * d), row);
        }
        return z;
    }

    /** One {@code memcpy} into a new array: the elements' order does not change. */
    @Override
    protected Tensor computeReshape(Nd4jTensor x, Shape out) {
        INDArray a = x.array("reshape");
        return scope.fresh(out, x.dtype(), t -> copy(a, out, x.dtype(), t));
    }

    private static INDArray copy(INDArray a, Shape shape, DType dtype, Intermediates t) {
        INDArray z = t.add(NdArrays.uninitialized(dtype, shape));
        Pointer.memcpy(BlasProducts.address(z), BlasProducts.address(a), a.length() * dtype.byteSize());
        return z;
    }

    /**
     * Rotations in one pass of host loops in F64 ({@link HostRope}) instead of a dozen native calls (casts, strided
     * copies of the pairs, four multiplies, a subtraction, an addition, the tables' uploads).
     */
    @Override
    protected Tensor computeRope(Nd4jTensor x, RotaryEmbedding rotary, int offset) {
        INDArray a = x.array("rope");
        return scope.fresh(x.shape(), x.dtype(), t -> HostRope.rotate(a, x.shape(), rotary, offset, x.dtype(), t));
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

    /**
     * Each piece copied out by {@code memcpy}, one per slab of the piece (the product of the dims before the axis),
     * when there are at most {@value #MEMCPY_SLABS} slabs; else by libnd4j from a view.
     */
    @Override
    protected List<Tensor> computeSplit(Nd4jTensor x, int axis, List<Shape> shapes) {
        INDArray a = x.array("split");
        Shape s = x.shape();
        long outer = s.size() / s.stride(axis) / s.dim(axis);
        long inner = s.stride(axis);
        List<Tensor> pieces = new ArrayList<>(shapes.size());
        long start = 0;
        for (Shape shape : shapes) {
            long size = shape.dim(axis);
            long from = start;
            if (outer <= MEMCPY_SLABS) {
                pieces.add(scope.fresh(shape, x.dtype(), t -> {
                    INDArray z = t.add(NdArrays.uninitialized(x.dtype(), shape));
                    Pointer to = BlasProducts.address(z);
                    Pointer in = BlasProducts.address(a);
                    long slab = size * inner;
                    for (long o = 0; o < outer; o++) {
                        Pointer.memcpy(to.getPointer(o * slab), in.getPointer((o * s.dim(axis) + from) * inner),
                                slab * x.dtype().byteSize());
                    }
                    return z;
                }));
            } else {
                INDArrayIndex[] index = new INDArrayIndex[s.rank()];
                for (int i = 0; i < index.length; i++) {
                    index[i] = i == axis ? NDArrayIndex.interval(from, from + size) : NDArrayIndex.all();
                }
                pieces.add(scope.fresh(shape, x.dtype(), t -> a.get(index).dup('c')));
            }
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

    /**
     * Attention read straight from the packed projection and written head by head into {@code [B, L, H·d]}
     * ({@link PackedAttention}), or the composition when its logits would exceed the budget.
     */
    @Override
    protected AttentionResult computePackedAttention(Nd4jTensor qkv, int heads, int kvHeads, int headDim,
                                                     Nd4jTensor additiveMask, AttentionOptions options) {
        if (!PackedAttention.suits(qkv.shape(), heads)) {
            return super.computePackedAttention(qkv, heads, kvHeads, headDim, additiveMask, options);
        }
        return PackedAttention.compute(scope, qkv.array("packedAttention"),
                additiveMask == null ? null : additiveMask.array("packedAttention"), heads, kvHeads, headDim,
                options, qkv.dtype());
    }
}
