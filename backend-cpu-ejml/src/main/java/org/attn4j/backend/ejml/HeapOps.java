package org.attn4j.backend.ejml;

import java.util.ArrayList;
import java.util.List;
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
import org.attn4j.api.spi.Dropout;
import org.attn4j.api.spi.DynamicQuantization;
import org.attn4j.api.spi.Int8Weight;
import org.attn4j.api.spi.ReferenceAttention;
import org.attn4j.api.spi.ShapeChecks;

/**
 * Every op on heap tensors. {@link AbstractOps} validates each call; each compute method here computes into a fresh
 * array, and only then creates the result tensor in the scope, so a rejected call leaves nothing behind.
 */
final class HeapOps extends AbstractOps<HeapTensor> {
    private final HeapScope scope;
    private final Parallel parallel;

    HeapOps(HeapScope scope, Parallel parallel) {
        super(scope, HeapTensor.class);
        this.scope = scope;
        this.parallel = parallel;
    }

    @Override
    protected Tensor computeMatmul(HeapTensor a, HeapTensor b, boolean transposeA, boolean transposeB, Shape out) {
        return scope.wrap(out, MatMul.batched(a, b, transposeA, transposeB, out, parallel));
    }

    @Override
    protected Tensor computeBinary(Binary kind, HeapTensor a, HeapTensor b, Shape out) {
        return scope.wrap(out, Elementwise.binary(kind, a, b, out, parallel));
    }

    @Override
    protected Tensor computeScale(HeapTensor x, double factor) {
        return unary(x, (i, v) -> v * factor);
    }

    @Override
    protected Tensor computeExp(HeapTensor x) {
        return unary(x, (i, v) -> Math.exp(v));
    }

    @Override
    protected Tensor computeRelu(HeapTensor x) {
        return unary(x, (i, v) -> v > 0 || Double.isNaN(v) ? v : 0.0);
    }

    @Override
    protected Tensor computeGelu(HeapTensor x, GeluApproximation approximation) {
        if (approximation == GeluApproximation.TANH) {
            return unary(x, (i, v) -> Elementwise.geluTanh(v));
        }
        return unary(x, (i, v) -> Elementwise.geluExact(v));
    }

    private Tensor unary(HeapTensor t, Elementwise.Unary f) {
        return scope.wrap(t.shape(), Elementwise.map(t, f, parallel));
    }

    @Override
    protected Tensor computeReduce(Reduction kind, HeapTensor x, int axis, boolean keepDims, Shape out) {
        Shape s = x.shape();
        double[] r = Reductions.reduce(kind, x.widened(), outer(s, axis), s.dim(axis), (int) s.stride(axis));
        return scope.fromDoubles(out, r, x.dtype());
    }

    private static int outer(Shape s, int axis) {
        return (int) (s.size() / (s.dim(axis) * s.stride(axis)));
    }

    @Override
    protected Tensor computeSoftmax(HeapTensor x, int axis) {
        Shape s = x.shape();
        double[] r = Reductions.softmax(x.widened(), outer(s, axis), s.dim(axis), (int) s.stride(axis));
        return scope.fromDoubles(s, r, x.dtype());
    }

    @Override
    protected Tensor computeLayerNorm(HeapTensor x, HeapTensor gamma, HeapTensor beta, double eps) {
        return norm(x, null, gamma, beta, eps, false);
    }

    /** The norm of {@code x + residual} in one pass ({@link Norms}). */
    @Override
    protected Tensor computeLayerNorm(HeapTensor x, HeapTensor residual, HeapTensor gamma, HeapTensor beta,
                                      double eps) {
        return norm(x, residual, gamma, beta, eps, false);
    }

    private Tensor norm(HeapTensor x, HeapTensor residual, HeapTensor gamma, HeapTensor beta, double eps,
                        boolean rms) {
        Object out = HeapScope.allocateForWriting(x.dtype(), x.shape());
        Norms.run(x.data(), residual == null ? null : residual.data(), gamma == null ? null : gamma.data(),
                beta == null ? null : beta.data(), eps, rms, out, x.shape().dim(-1), parallel);
        return scope.wrap(x.shape(), out);
    }

    @Override
    protected Tensor computeLinear(HeapTensor x, HeapTensor weight, HeapTensor bias, Shape out) {
        int in = weight.shape().dim(1);
        int features = weight.shape().dim(0);
        int rows = (int) (x.shape().size() / in);
        Object result = HeapScope.allocate(x.dtype(), out);
        MatMul.linear(rows, features, in, x.data(), weight.data(), bias == null ? null : bias.data(), result,
                parallel);
        return scope.wrap(out, result);
    }

    /** The linear map over a bound weight, its epilogue in the same pass ({@link LinearKernel}). */
    @Override
    protected Tensor computeLinear(HeapTensor x, AbstractWeight weight, HeapTensor bias, Epilogue epilogue,
                                   HeapTensor residual, Shape out) {
        WeightStorage w = ((HeapWeight) weight).storage();
        int rows = (int) (x.shape().size() / w.columns);
        Object result = HeapScope.allocateForWriting(x.dtype(), out);
        if (result instanceof float[] y) {
            LinearKernel.f32(w, x.f32(), rows, bias == null ? null : bias.f32(), epilogue.activation(),
                    epilogue.gated(), residual == null ? null : residual.f32(), y, parallel);
        } else {
            LinearKernel.f64(w, x.f64(), rows, bias == null ? null : bias.f64(), epilogue.activation(),
                    epilogue.gated(), residual == null ? null : residual.f64(), (double[]) result, parallel);
        }
        return scope.wrap(out, result);
    }

    /** The linear map over an I8 weight in integer arithmetic ({@link Int8Linear}). */
    @Override
    protected Tensor computeLinear(HeapTensor x, Int8Weight weight, HeapTensor bias, Epilogue epilogue,
                                   HeapTensor residual, Shape out) {
        int rows = (int) (x.shape().size() / weight.shape().dim(1));
        float[] y = (float[]) HeapScope.allocateForWriting(DType.F32, out);
        Int8Linear.f32(weight, x.f32(), rows, DynamicQuantization.sequenceRows(x.shape()),
                bias == null ? null : bias.f32(), epilogue.activation(),
                epilogue.gated(), residual == null ? null : residual.f32(), y, parallel);
        return scope.wrap(out, y);
    }

    /** Rows of a bound table, copied out of its storage. */
    @Override
    protected Tensor computeEmbedding(AbstractWeight table, int[] ids, Shape idsShape, Shape out) {
        WeightStorage w = ((HeapWeight) table).storage();
        int d = w.columns;
        if (w.f64()) {
            double[] result = (double[]) HeapScope.allocateForWriting(DType.F64, out);
            for (int i = 0; i < ids.length; i++) {
                w.gather(ids[i], result, i * d);
            }
            return scope.wrap(out, result);
        }
        float[] result = (float[]) HeapScope.allocateForWriting(DType.F32, out);
        for (int i = 0; i < ids.length; i++) {
            w.gather(ids[i], result, i * d);
        }
        return scope.wrap(out, result);
    }

    @Override
    protected Tensor computeEmbedding(HeapTensor weight, int[] ids, Shape out) {
        int d = weight.shape().dim(1);
        Object result = HeapScope.allocate(weight.dtype(), out);
        for (int i = 0; i < ids.length; i++) {
            System.arraycopy(weight.data(), ids[i] * d, result, i * d, d);
        }
        return scope.wrap(out, result);
    }

    @Override
    protected Tensor computeReshape(HeapTensor x, Shape out) {
        return scope.view(out, x);
    }

    @Override
    protected Tensor computePermute(HeapTensor x, int[] axes, Shape out) {
        return scope.wrap(out, Layout.permute(x.data(), x.shape(), axes, out));
    }

    @Override
    protected Tensor computeConcat(List<HeapTensor> parts, int axis, Shape out) {
        int inner = (int) out.stride(axis);
        int outer = outer(out, axis);
        Object result = HeapScope.allocate(parts.get(0).dtype(), out);
        int start = 0;
        for (HeapTensor t : parts) {
            int block = t.shape().dim(axis) * inner;
            Layout.blocks(t.data(), result, outer, block, start, out.dim(axis) * inner, false);
            start += block;
        }
        return scope.wrap(out, result);
    }

    @Override
    protected List<Tensor> computeSplit(HeapTensor x, int axis, List<Shape> pieces) {
        int inner = (int) x.shape().stride(axis);
        int outer = outer(x.shape(), axis);
        Object[] data = new Object[pieces.size()];
        int start = 0;
        for (int p = 0; p < data.length; p++) {
            int block = pieces.get(p).dim(axis) * inner;
            data[p] = HeapScope.allocate(x.dtype(), pieces.get(p));
            Layout.blocks(data[p], x.data(), outer, block, start, x.shape().dim(axis) * inner, true);
            start += block;
        }
        List<Tensor> out = new ArrayList<>(data.length);
        for (int p = 0; p < data.length; p++) {
            out.add(scope.wrap(pieces.get(p), data[p]));
        }
        return out;
    }

    @Override
    protected Tensor computeCast(HeapTensor x, DType dtype) {
        return x.dtype() == dtype ? scope.view(x.shape(), x) : scope.wrap(x.shape(), Layout.cast(x.data(), dtype));
    }

    @Override
    protected Tensor computeDropout(HeapTensor x, double p, long seed) {
        double keepScale = Dropout.survivorScale(p);
        return unary(x, (i, v) -> Dropout.keep(seed, i, p) ? v * keepScale : 0.0);
    }

    @Override
    protected Tensor computeRmsNorm(HeapTensor x, HeapTensor weight, double eps) {
        return norm(x, null, weight, null, eps, true);
    }

    /** The RMS norm of {@code x + residual} in one pass ({@link Norms}). */
    @Override
    protected Tensor computeRmsNorm(HeapTensor x, HeapTensor residual, HeapTensor weight, double eps) {
        return norm(x, residual, weight, null, eps, true);
    }

    @Override
    protected Tensor computeSilu(HeapTensor x) {
        return unary(x, (i, v) -> DecoderKernels.silu(v));
    }

    @Override
    protected Tensor computeRope(HeapTensor x, RotaryEmbedding rotary, int offset) {
        return scope.wrap(x.shape(), DecoderKernels.rope(x.data(), x.shape().dim(-2), x.shape().dim(-1), rotary,
                offset));
    }

    @Override
    protected Tensor computeSoftcap(HeapTensor x, double cap) {
        return unary(x, (i, v) -> DecoderKernels.softcap(v, cap));
    }

    /** Writes in place: the target's array is filled, and {@code target} itself returned. */
    @Override
    protected Tensor computeWriteSlice(HeapTensor target, HeapTensor source, int axis, int offset) {
        int inner = (int) target.shape().stride(axis);
        Layout.blocks(source.data(), target.data(), outer(source.shape(), axis), source.shape().dim(axis) * inner,
                offset * inner, target.shape().dim(axis) * inner, false);
        return target;
    }

    /**
     * Fused attention ({@link FlashAttention}); with {@code returnWeights} the composed
     * {@link ReferenceAttention}, since the weights are then materialised anyway.
     */
    @Override
    protected AttentionResult computeAttention(HeapTensor q, HeapTensor k, HeapTensor v, HeapTensor additiveMask,
                                               AttentionOptions options, ShapeChecks.AttentionShape shape) {
        if (options.returnWeights()) {
            return ReferenceAttention.compute(this, q, k, v, options);
        }
        Object out = FlashAttention.run(q, k, v, additiveMask, options, shape, parallel);
        return new AttentionResult(scope.wrap(shape.output(), out), null);
    }

    /**
     * Attention straight from the packed projection ({@link FlashAttention#packed}); with {@code returnWeights} the
     * spi's composition, since the weights are then materialised anyway.
     */
    @Override
    protected AttentionResult computePackedAttention(HeapTensor qkv, int heads, int kvHeads, int headDim,
                                                     HeapTensor additiveMask, AttentionOptions options) {
        if (options.returnWeights()) {
            return super.computePackedAttention(qkv, heads, kvHeads, headDim, additiveMask, options);
        }
        Object out = FlashAttention.packed(qkv, heads, kvHeads, headDim, additiveMask, options, parallel);
        Shape s = qkv.shape();
        return new AttentionResult(scope.wrap(Shape.of(s.dim(0), s.dim(1), heads * headDim), out), null);
    }

    @Override
    protected Tensor computeAdditiveMask(Mask mask, DType dtype) {
        int n = (int) mask.shape().size();
        double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            values[i] = mask.allowed(i) ? 0.0 : Double.NEGATIVE_INFINITY;
        }
        return scope.fromDoubles(mask.shape(), values, dtype);
    }
}
