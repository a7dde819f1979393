package org.attn4j.backend.nd4j;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.VisibleKeys;
import org.bytedeco.javacpp.Pointer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.transforms.custom.SoftMax;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Attention straight from a packed projection {@code qkv [B, L, (H + 2·H_kv)·d]}, with no permute copy: head
 * {@code h} of batch item {@code b} is the {@code [L, d]} matrix at column {@code h·d} of rows {@code b·L …},
 * rows {@code W = (H + 2·H_kv)·d} apart, which CBLAS reads where it lies ({@code lda = W}); its key and value heads
 * are at columns {@code (H + h/g)·d} and {@code (H + H_kv + h/g)·d}, {@code g = H / H_kv}; and the output head
 * is written at column {@code h·d} of {@code out [B, L, H·d]} ({@code ldc = H·d}).
 * <pre>
 *   S[b, h] = scale · Q_bh·K_bhᵀ                  one ?gemm per (b, h) into logits [B, H, L, L]
 *   S = c · tanh(S / c)                           with a logit soft-cap c ({@link Kernels#softcapInPlace})
 *   S += additiveMask, -∞ where the mask or the visible keys forbid      (broadcast adds)
 *   W = softmax(S), dropout(W)                    libnd4j's softmax; its NaN answers recomputed stably
 *   out[b, :, h·d …] = W[b, h]·V_bh               one ?gemm per (b, h)
 * </pre>
 * libnd4j's softmax answers NaN for an all −∞ slice, where attn4j wants zeros, so a non-finite answer is recomputed
 * with the stable softmax. One native sum ({@link Kernels#surelyFinite}) checks the smaller array: the weights
 * {@code [B, H, L, L]} when they are returned or {@code L ≤ d}, else the output {@code [B, L, H·d]}, {@code L/d}
 * times smaller. A NaN weight that dropout keeps makes its output row NaN, and one that dropout drops is dropped
 * from the stable weights too, so a finite output is the output of the stable weights.
 * The weights, {@code [B, H, L, L]}, exist anyway and are returned when asked. A call whose logits exceed
 * {@link Nd4jAttention#LOGITS_PER_BLOCK} takes the composition, whose attention is tiled.
 */
final class PackedAttention {
    private PackedAttention() {
    }

    /**
     * @param qkv {@code [B, L, (H + 2·H_kv)·d]}
     * @param heads {@code H}
     * @return whether the {@code [B, H, L, L]} logits fit the route's budget
     */
    static boolean suits(Shape qkv, int heads) {
        return (long) qkv.dim(0) * heads * qkv.dim(1) * qkv.dim(1) <= Nd4jAttention.LOGITS_PER_BLOCK;
    }

    /**
     * @param scope receives the output and, if asked, the weights
     * @param qkv the packed projection, C-ordered; not modified
     * @param additive the additive mask's array, broadcastable to {@code [B, H, L, L]}, or null; not modified
     * @param heads {@code H}
     * @param kvHeads {@code H_kv}, dividing {@code H}
     * @param headDim {@code d}
     * @param options masks, scale, dropout, causality, window, key length and returned weights
     * @param dtype the element type
     * @return output {@code [B, L, H·d]} and, if asked, weights {@code [B, H, L, L]}
     */
    static AttentionResult compute(Nd4jScope scope, INDArray qkv, INDArray additive, int heads, int kvHeads,
                                   int headDim, AttentionOptions options, DType dtype) {
        Layout layout = new Layout((int) qkv.size(0), (int) qkv.size(1), heads, kvHeads, headDim);
        Shape weightsShape = Shape.of(layout.batch, heads, layout.length, layout.length);
        Shape outShape = Shape.of(layout.batch, layout.length, heads * headDim);
        try (Intermediates t = new Intermediates()) {
            Pointer base = BlasProducts.address(qkv);
            INDArray weights = t.add(NdArrays.uninitialized(dtype, weightsShape));
            Pointer s = BlasProducts.address(weights);
            logits(base, s, weights, additive, layout, options, dtype, t);
            boolean checkWeights = options.returnWeights() || layout.length <= headDim;
            if (!checkWeights) {
                Nd4j.exec(new SoftMax(weights, weights, 3));
            } else if (!Kernels.softmaxIfFinite(weights, weights, 3)) {
                logits(base, s, weights, additive, layout, options, dtype, t);
                Kernels.stableSoftmax(weights, weights, 3, t);
            }
            INDArray output = t.add(NdArrays.uninitialized(dtype, outShape));
            Pointer o = BlasProducts.address(output);
            weigh(base, weights, o, layout, options, t);
            if (!checkWeights && !Kernels.surelyFinite(output)) {
                logits(base, s, weights, additive, layout, options, dtype, t);
                Kernels.stableSoftmax(weights, weights, 3, t);
                weigh(base, weights, o, layout, options, t);
            }
            AttentionResult result = new AttentionResult(scope.wrap(t.keep(output), outShape, dtype),
                    options.returnWeights() ? scope.wrap(t.keep(weights), weightsShape, dtype) : null);
            return result;
        }
    }

    /** {@code out[b, :, h·d …] = dropout(W)[b, h]·V_bh}, one ?gemm per (b, h); dropout applies in place. */
    private static void weigh(Pointer base, INDArray weights, Pointer out, Layout layout, AttentionOptions options,
                              Intermediates t) {
        Kernels.dropoutInPlace(weights, options.dropoutP(), options.dropoutSeed(), t);
        Pointer s = BlasProducts.address(weights);
        int l = layout.length;
        int d = layout.headDim;
        for (int b = 0; b < layout.batch; b++) {
            for (int h = 0; h < layout.heads; h++) {
                BlasProducts.gemm(false, l, d, l, 1.0, s.getPointer(layout.logits(b, h)), l,
                        base.getPointer(layout.value(b, h)), layout.width, 0.0,
                        out.getPointer((long) b * l * layout.heads * d + (long) h * d), layout.heads * d);
            }
        }
    }

    /** Fills the logits with {@code scale·q·kᵀ} per (b, h), soft-caps them if asked and adds every mask. */
    private static void logits(Pointer base, Pointer s, INDArray logits, INDArray additive, Layout layout,
                               AttentionOptions options, DType dtype, Intermediates t) {
        int l = layout.length;
        double scale = options.scaleFor(layout.headDim);
        for (int b = 0; b < layout.batch; b++) {
            for (int h = 0; h < layout.heads; h++) {
                BlasProducts.gemm(true, l, l, layout.headDim, scale, base.getPointer(layout.query(b, h)),
                        layout.width, base.getPointer(layout.key(b, h)), layout.width, 0.0,
                        s.getPointer(layout.logits(b, h)), l);
            }
        }
        if (options.logitSoftcap() > 0) {
            Kernels.softcapInPlace(logits, options.logitSoftcap());
        }
        if (additive != null) {
            Nd4jOps.Kind.ADD.exec(logits, additive, logits);
        }
        if (options.mask() != null) {
            Nd4jOps.Kind.ADD.exec(logits, t.add(Kernels.additive(options.mask(), dtype)), logits);
        }
        Mask visible = new VisibleKeys(options, l, l).mask(l, l);
        if (visible != null) {
            Nd4jOps.Kind.ADD.exec(logits, t.add(Kernels.additive(visible, dtype)), logits);
        }
    }

    /** Where each head's rows start in the packed projection and in the logits, in elements. */
    private record Layout(int batch, int length, int heads, int kvHeads, int headDim, int width, int group) {
        Layout(int batch, int length, int heads, int kvHeads, int headDim) {
            this(batch, length, heads, kvHeads, headDim, (heads + 2 * kvHeads) * headDim, heads / kvHeads);
        }

        long query(int b, int h) {
            return (long) b * length * width + (long) h * headDim;
        }

        long key(int b, int h) {
            return (long) b * length * width + (long) (heads + h / group) * headDim;
        }

        long value(int b, int h) {
            return (long) b * length * width + (long) (heads + kvHeads + h / group) * headDim;
        }

        long logits(int b, int h) {
            return ((long) b * heads + h) * length * length;
        }
    }
}
