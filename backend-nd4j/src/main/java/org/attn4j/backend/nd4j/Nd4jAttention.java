package org.attn4j.backend.nd4j;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ReferenceAttention;
import org.attn4j.api.spi.ShapeChecks;
import org.attn4j.api.spi.VisibleKeys;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Scaled dot-product attention with attn4j's semantics, by one of four routes:
 * <ul>
 *   <li>a problem of at most {@link HostAttention#MAX_WORK} multiply-adds without a decoding option: {@link
 *       HostAttention}'s plain loops on host copies, since a dozen native launches would cost more than the
 *       arithmetic;</li>
 *   <li>otherwise, without returned weights, a call of at most {@link DecodeAttention#MAX_QUERIES} queries or with
 *       a decoding option (grouped queries, a window, a key length, a bottom-right diagonal): {@link
 *       DecodeAttention}, on views of the key/value cache over the keys the queries see, no copy;</li>
 *   <li>otherwise, without returned weights: {@link TiledAttention}, the online softmax over tiles, memory
 *       O(L·d) per head;</li>
 *   <li>otherwise, with returned weights (which are {@code [..., Lq, Lk]} anyway), the whole weights at once:
 * <pre>
 *   logits  = scale · q·kᵀ          one batched GEMM into a [..., Lq, Lk] array, scale applied as GEMM's alpha
 *   logits  = c·tanh(logits / c)    only with a logit soft-cap c, in place
 *   logits += additiveMask          broadcast add, in place
 *   logits += -∞ where mask is false, then where causal and j &gt; i   (host-built additive masks)
 *   weights = softmax(logits)       libnd4j's native softmax, in place; if it answers NaN anywhere (a fully
 *                                   masked row, or NaN/∞ in the logits) the logits are computed again and
 *                                   {@link Kernels#stableSoftmax} gives attn4j's zeros and NaNs
 *   weights = dropout(weights)      the {@link org.attn4j.api.spi.Dropout} hash of the index in [..., Lq, Lk]
 *   output  = weights·v             one batched GEMM
 * </pre></li>
 * </ul>
 * Calls with a decoding option that {@link DecodeAttention} does not take (returned weights, or more logits than
 * {@link #LOGITS_PER_BLOCK}) are composed by {@link ReferenceAttention} from this backend's own ops.
 * ND4J's own {@code dot_product_attention} op is not used: its mask is a multiplicative key mask of shape
 * {@code [batch, Lk]}, it has no causal flag, additive mask, explicit scale or seeded dropout, and it answers NaN
 * for a fully masked row.
 */
final class Nd4jAttention {
    /** The most logits one tile set of {@link TiledAttention} holds: 2^23 elements, 32 MB in F32. */
    static final long LOGITS_PER_BLOCK = 1L << 23;

    private Nd4jAttention() {
    }

    /**
     * Picks the route for the call (see the class javadoc).
     *
     * @param scope receives the output and, if asked, the weights
     * @param q {@code [..., Lq, d_k]} as an array; not modified
     * @param k {@code [..., Lk, d_k]} as an array; not modified
     * @param v {@code [..., Lk, d_v]} as an array; not modified
     * @param additive the additive mask's array, or null
     * @param qt the tensor of {@code q}, for shape checks
     * @param kt the tensor of {@code k}
     * @param vt the tensor of {@code v}
     * @param options masks, scale, dropout and returned weights
     * @return the output {@code [..., Lq, d_v]} and, if asked, the weights {@code [..., Lq, Lk]}
     */
    static AttentionResult attention(Nd4jScope scope, INDArray q, INDArray k, INDArray v, INDArray additive,
                                     Tensor qt, Tensor kt, Tensor vt, AttentionOptions options) {
        ShapeChecks.AttentionShape shape = ShapeChecks.attention(qt, kt, vt, options);
        AttentionOptions simple = VisibleKeys.simplified(options, shape);
        boolean decoding = VisibleKeys.beyondTopLeftCausal(simple, shape);
        if (!decoding && HostAttention.suits(shape)) {
            return onHost(scope, q, k, v, additive, simple, shape, qt.dtype());
        }
        if (DecodeAttention.suits(simple, shape, LOGITS_PER_BLOCK)) {
            return new AttentionResult(scope.fresh(shape.output(), qt.dtype(), t ->
                    DecodeAttention.compute(q, k, v, additive, simple, shape, qt.dtype(), t)), null);
        }
        if (decoding) {
            return ReferenceAttention.compute(scope.ops(), qt, kt, vt, options);
        }
        return compute(scope, q, k, v, additive, qt, kt, vt, simple, LOGITS_PER_BLOCK);
    }

    private static AttentionResult onHost(Nd4jScope scope, INDArray q, INDArray k, INDArray v, INDArray additive,
                                          AttentionOptions options, ShapeChecks.AttentionShape shape,
                                          DType dtype) {
        double[] weights = options.returnWeights() ? new double[(int) shape.weights().size()] : null;
        double[] out = HostAttention.compute(NdArrays.toDoubles(q), NdArrays.toDoubles(k), NdArrays.toDoubles(v),
                additive == null ? null : NdArrays.toDoubles(additive),
                additive == null ? null : options.additiveMask().shape(), options, shape, weights,
                dtype == DType.F32);
        Tensor output = scope.fresh(shape.output(), dtype, t -> NdArrays.fromHost(out, dtype, shape.output()));
        Tensor w = weights == null ? null
                : scope.fresh(shape.weights(), dtype, t -> NdArrays.fromHost(weights, dtype, shape.weights()));
        return new AttentionResult(output, w);
    }

    /**
     * The native routes: {@link TiledAttention} without returned weights, the whole weights with them.
     *
     * @param scope receives the output and, if asked, the weights
     * @param q {@code [..., Lq, d_k]} as an array; not modified
     * @param k {@code [..., Lk, d_k]} as an array; not modified
     * @param v {@code [..., Lk, d_v]} as an array; not modified
     * @param additive the additive mask's array, or null
     * @param qt the tensor of {@code q}, for shape checks
     * @param kt the tensor of {@code k}
     * @param vt the tensor of {@code v}
     * @param options masks, scale, dropout and returned weights
     * @param logitsPerBlock the most logits one tile set may hold
     * @return the output {@code [..., Lq, d_v]} and, if asked, the weights {@code [..., Lq, Lk]}
     */
    static AttentionResult compute(Nd4jScope scope, INDArray q, INDArray k, INDArray v, INDArray additive,
                                   Tensor qt, Tensor kt, Tensor vt, AttentionOptions options, long logitsPerBlock) {
        ShapeChecks.AttentionShape shape = ShapeChecks.attention(qt, kt, vt, options);
        DType dtype = qt.dtype();
        if (!options.returnWeights()) {
            return new AttentionResult(scope.fresh(shape.output(), dtype, t ->
                    TiledAttention.compute(q, k, v, additive, options, shape, dtype, logitsPerBlock, t)), null);
        }
        try (Intermediates t = new Intermediates()) {
            INDArray weights = t.add(weights(q, k, additive, options, shape, dtype, t));
            INDArray output = t.add(NdArrays.uninitialized(dtype, shape.output()));
            Kernels.matmul(weights, v, output, false, false, 1.0);
            Tensor out = scope.wrap(t.keep(output), shape.output(), dtype);
            return new AttentionResult(out, scope.wrap(t.keep(weights), shape.weights(), dtype));
        }
    }

    /** @return the softmax weights {@code [..., Lq, Lk]}, after dropout, as a new array */
    private static INDArray weights(INDArray q, INDArray k, INDArray additive, AttentionOptions options,
                                    ShapeChecks.AttentionShape shape, DType dtype, Intermediates t) {
        INDArray logits = NdArrays.uninitialized(dtype, shape.weights());
        try {
            int last = shape.weights().rank() - 1;
            logits(q, k, additive, options, shape, dtype, logits, t);
            if (!Kernels.softmaxIfFinite(logits, logits, last)) {
                logits(q, k, additive, options, shape, dtype, logits, t);
                Kernels.stableSoftmax(logits, logits, last, t);
            }
            Kernels.dropoutInPlace(logits, options.dropoutP(), options.dropoutSeed(), t);
            return logits;
        } catch (RuntimeException | Error e) {
            logits.close();
            throw e;
        }
    }

    /**
     * Fills {@code logits} with {@code scale·q·kᵀ} (soft-capped if asked) {@code + additiveMask}, -∞ where the mask
     * or causality forbids.
     */
    private static void logits(INDArray q, INDArray k, INDArray additive, AttentionOptions options,
                               ShapeChecks.AttentionShape shape, DType dtype, INDArray logits, Intermediates t) {
        Kernels.matmul(q, k, logits, false, true, options.scaleFor(shape.keyDim()));
        if (options.logitSoftcap() > 0) {
            Kernels.softcapInPlace(logits, options.logitSoftcap());
        }
        if (additive != null) {
            Nd4jOps.Kind.ADD.exec(logits, additive, logits);
        }
        if (options.mask() != null) {
            Nd4jOps.Kind.ADD.exec(logits, t.add(Kernels.additive(options.mask(), dtype)), logits);
        }
        if (options.causal()) {
            Nd4jOps.Kind.ADD.exec(logits, t.add(Kernels.additive(Mask.causal(shape.queries(), shape.keys()), dtype)),
                    logits);
        }
    }
}
