package org.attn4j.backend.nd4j;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ShapeChecks;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Scaled dot-product attention on libnd4j's native kernels, with attn4j's semantics:
 * <pre>
 *   logits  = scale · q·kᵀ          one batched GEMM into a [..., Lq, Lk] array, scale applied as GEMM's alpha
 *   logits += additiveMask          broadcast add, in place
 *   logits += -∞ where mask is false, then where causal and j &gt; i   (host-built additive masks)
 *   weights = softmax(logits)       libnd4j's native softmax, in place; if it answers NaN anywhere (a fully
 *                                   masked row, or NaN/∞ in the logits) the logits are computed again and
 *                                   {@link Kernels#stableSoftmax} gives attn4j's zeros and NaNs
 *   weights = dropout(weights)      the {@link org.attn4j.api.spi.Dropout} hash, not ND4J's random generator
 *   output  = weights·v             one batched GEMM
 * </pre>
 * ND4J's own {@code dot_product_attention} op is not used: its mask is a multiplicative key mask of shape
 * {@code [batch, Lk]}, it has no causal flag, additive mask, explicit scale or seeded dropout, and it answers NaN for
 * a fully masked row. The logits are materialised, so memory grows with {@code Lq·Lk} per (batch, head).
 */
final class Nd4jAttention {

    private Nd4jAttention() {
    }

    /**
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
    static AttentionResult compute(Nd4jScope scope, INDArray q, INDArray k, INDArray v, INDArray additive,
                                   Tensor qt, Tensor kt, Tensor vt, AttentionOptions options) {
        ShapeChecks.AttentionShape shape = ShapeChecks.attention(qt, kt, vt, options);
        DType dtype = qt.dtype();
        int last = shape.weights().rank() - 1;
        try (Intermediates t = new Intermediates()) {
            INDArray logits = t.add(NdArrays.uninitialized(dtype, shape.weights()));
            logits(q, k, additive, options, shape, dtype, logits, t);
            if (!Kernels.softmaxIfFinite(logits, logits, last)) {
                logits(q, k, additive, options, shape, dtype, logits, t);
                Kernels.stableSoftmax(logits, logits, last, t);
            }
            Kernels.dropoutInPlace(logits, options.dropoutP(), options.dropoutSeed(), t);
            INDArray output = t.add(NdArrays.uninitialized(dtype, shape.output()));
            Kernels.matmul(logits, v, output, false, false, 1.0);
            Tensor out = scope.wrap(t.keep(output), shape.output(), dtype);
            Tensor weights = options.returnWeights()
                    ? scope.wrap(t.keep(logits), shape.weights(), dtype) : null;
            return new AttentionResult(out, weights);
        }
    }

    /** Fills {@code logits} with {@code scale·q·kᵀ + additiveMask}, -∞ where the mask or causality forbids. */
    private static void logits(INDArray q, INDArray k, INDArray additive, AttentionOptions options,
                               ShapeChecks.AttentionShape shape, DType dtype, INDArray logits, Intermediates t) {
        Kernels.matmul(q, k, logits, false, true, options.scaleFor(shape.keyDim()));
        if (additive != null) {
            Nd4jOps.Kind.ADD.exec(logits, additive, logits);
        }
        if (options.mask() != null) {
            Nd4jOps.Kind.ADD.exec(logits, t.add(Kernels.additive(options.mask(), dtype)), logits);
        }
        if (options.causal()) {
            Mask causal = Mask.causal(shape.queries(), shape.keys());
            Nd4jOps.Kind.ADD.exec(logits, t.add(Kernels.additive(causal, dtype)), logits);
        }
    }
}
