package org.attn4j.api;

import java.util.List;

/**
 * The primitives a transformer needs. Every result is a new tensor owned by {@link #scope()}; operands may come
 * from any open scope of the same backend and are never modified, except by {@link #writeSlice}, which exists
 * to fill preallocated caches. Shapes are row-major, axes may be negative (counted from the end), and binary
 * ops broadcast by numpy rules. Operands of one op share one dtype.
 *
 * <p>Errors: a shape or dtype mismatch throws {@link IllegalArgumentException} naming the op, the argument and
 * the shapes; a closed tensor or scope throws {@link IllegalStateException}. NaN and infinities follow IEEE 754.
 */
public interface Ops {

    /** @return the scope that owns every result */
    Scope scope();

    /**
     * Batched matrix product {@code a·b}.
     *
     * @param a {@code [..., m, k]}
     * @param b {@code [..., k, n]}; the batch dims {@code ...} broadcast
     * @return {@code [..., m, n]}
     */
    default Tensor matmul(Tensor a, Tensor b) {
        return matmul(a, b, false, false);
    }

    /**
     * Batched matrix product {@code op(a)·op(b)} where {@code op} transposes the last two axes when asked.
     *
     * @param a {@code [..., m, k]}, or {@code [..., k, m]} when {@code transposeA}
     * @param b {@code [..., k, n]}, or {@code [..., n, k]} when {@code transposeB}; batch dims broadcast
     * @param transposeA use {@code aᵀ}
     * @param transposeB use {@code bᵀ}
     * @return {@code [..., m, n]}
     */
    Tensor matmul(Tensor a, Tensor b, boolean transposeA, boolean transposeB);

    /**
     * @param a first operand
     * @param b second operand, broadcast against {@code a}
     * @return {@code a + b}
     */
    Tensor add(Tensor a, Tensor b);

    /**
     * @param a first operand
     * @param b second operand, broadcast against {@code a}
     * @return {@code a - b}
     */
    Tensor sub(Tensor a, Tensor b);

    /**
     * @param a first operand
     * @param b second operand, broadcast against {@code a}
     * @return {@code a ⊙ b}, elementwise
     */
    Tensor mul(Tensor a, Tensor b);

    /**
     * @param a first operand
     * @param b second operand, broadcast against {@code a}
     * @return {@code a / b}, elementwise
     */
    Tensor div(Tensor a, Tensor b);

    /**
     * @param x any shape
     * @param factor the multiplier
     * @return {@code factor · x}
     */
    Tensor scale(Tensor x, double factor);

    /**
     * @param x any shape
     * @return {@code e^x}, elementwise
     */
    Tensor exp(Tensor x);

    /**
     * @param x any shape of rank at least 1
     * @param axis the axis to reduce
     * @param keepDims keep the reduced axis with size 1
     * @return the maximum along {@code axis} (NaN if any element is NaN)
     */
    Tensor max(Tensor x, int axis, boolean keepDims);

    /**
     * @param x any shape of rank at least 1
     * @param axis the axis to reduce
     * @param keepDims keep the reduced axis with size 1
     * @return the sum along {@code axis}
     */
    Tensor sum(Tensor x, int axis, boolean keepDims);

    /**
     * @param x any shape of rank at least 1
     * @param axis the axis to reduce
     * @param keepDims keep the reduced axis with size 1
     * @return the mean along {@code axis}
     */
    Tensor mean(Tensor x, int axis, boolean keepDims);

    /**
     * @param x any shape of rank at least 1
     * @param axis the axis to reduce
     * @param keepDims keep the reduced axis with size 1
     * @return the population variance {@code mean((x - mean(x))²)} along {@code axis}, divided by N
     */
    Tensor variance(Tensor x, int axis, boolean keepDims);

    /**
     * Numerically stable softmax {@code e^(x - max) / Σ e^(x - max)} along {@code axis}. A slice whose entries
     * are all {@code -∞} (a fully masked row) yields all zeros, not NaN.
     *
     * @param x any shape of rank at least 1
     * @param axis the axis along which the result sums to 1
     * @return the same shape as {@code x}
     */
    Tensor softmax(Tensor x, int axis);

    /**
     * Layer normalisation over the last axis: {@code (x - mean) / sqrt(var + eps) · gamma + beta}, with the
     * biased variance, as PyTorch's {@code nn.LayerNorm(d)}.
     *
     * @param x {@code [..., d]}
     * @param gamma {@code [d]}, or null for ones
     * @param beta {@code [d]}, or null for zeros
     * @param eps added to the variance, at least 0
     * @return {@code [..., d]}
     */
    Tensor layerNorm(Tensor x, Tensor gamma, Tensor beta, double eps);

    /**
     * Residual add and layer normalisation in one pass, as BERT's post-norm blocks and ONNX Runtime's
     * {@code SkipLayerNormalization}: {@code layerNorm(x + residual, gamma, beta, eps)}.
     *
     * @param x {@code [..., d]}
     * @param residual the shape and dtype of {@code x}
     * @param gamma {@code [d]}, or null for ones
     * @param beta {@code [d]}, or null for zeros
     * @param eps added to the variance, at least 0
     * @return {@code [..., d]}
     */
    Tensor layerNorm(Tensor x, Tensor residual, Tensor gamma, Tensor beta, double eps);

    /**
     * @param x any shape
     * @return {@code max(x, 0)}, elementwise
     */
    Tensor relu(Tensor x);

    /**
     * @param x any shape
     * @param approximation the exact erf form or GPT-2's tanh form
     * @return {@code gelu(x)}, elementwise
     */
    Tensor gelu(Tensor x, GeluApproximation approximation);

    /**
     * The affine map of PyTorch's {@code nn.Linear}: {@code x·Wᵀ + b}.
     *
     * @param x {@code [..., in]}
     * @param weight {@code [out, in]}
     * @param bias {@code [out]}, or null
     * @return {@code [..., out]}
     */
    Tensor linear(Tensor x, Tensor weight, Tensor bias);

    /**
     * Gathers rows of an embedding table.
     *
     * @param weight {@code [V, d]}
     * @param ids token ids in {@code [0, V)}, row-major; not modified
     * @param idsShape the shape of {@code ids}, for example {@code [batch, seq]}
     * @return {@code idsShape + [d]}
     */
    Tensor embedding(Tensor weight, int[] ids, Shape idsShape);

    /**
     * The affine map of PyTorch's {@code nn.Linear} over a bound weight, with its epilogue:
     * <pre>
     *   plain:  y = act(x·Wᵀ + b) + residual
     *   gated:  y = act(x·W_gᵀ + b_g) ⊙ (x·W_uᵀ + b_u) + residual      W = [W_g; W_u]
     * </pre>
     * The weight is read in its storage type and the products accumulate in F32 (F64 for F64 activations), so the
     * result equals the same map over the weight's {@link Weight#toFloatArray() values} within F32 rounding. F32
     * activations take weights of every type but {@link WeightType#F64}; F64 activations take F64 weights only.
     *
     * <p>Over an {@link WeightType#I8} weight the product is integer arithmetic, as ONNX's
     * {@code DynamicQuantizeLinear → MatMulInteger → Cast → Mul} computes it. {@code x} is quantized to uint8 one
     * sequence at a time: every axis but the last two indexes separate sequences, so each matrix {@code x[b…]} of
     * {@code x [..., L, in]} has its own range, and an {@code x} of rank 2 (or 1) is one sequence. Over a sequence
     * {@code S}:
     * <pre>
     *   lo = min(0, min x[S]),  hi = max(0, max x[S]),  a_s = (hi - lo) / 255 (1 when hi = lo)
     *   a_z = clamp(round(-lo / a_s), 0, 255),   a = clamp(round(x / a_s) + a_z, 0, 255)      round: halves to even
     *   acc[i][j] = Σ_p (a[i][p] - a_z) · (q[j][p] - z[j])                                     in int32
     *   y[i][j] = float(acc[i][j]) · (a_s · s[j]) + b[j]                                       each step in F32
     * </pre>
     * then the epilogue. A sequence's result is ONNX Runtime's on a tensor holding that sequence alone; it depends on
     * the other rows of its own sequence through {@code a_s} and {@code a_z}, and on no other sequence. The range
     * always holds 0, so rows of zeros move no range: a caller leaves padding rows out of a sequence's range by
     * zeroing them. F64 activations do not meet I8 weights.
     *
     * @param x {@code [..., in]}
     * @param weight {@code [out, in]}, or {@code [2·out, in]} when gated
     * @param bias {@code [out]} ({@code [2·out]} when gated) of {@code x}'s dtype, or null
     * @param epilogue the activation, gate and residual; {@link Epilogue#none()} for the bare map
     * @return {@code [..., out]}
     */
    Tensor linear(Tensor x, Weight weight, Tensor bias, Epilogue epilogue);

    /**
     * {@link #linear(Tensor, Weight, Tensor, Epilogue)} with {@link Epilogue#none()}: {@code x·Wᵀ + b}.
     *
     * @param x {@code [..., in]}
     * @param weight {@code [out, in]}
     * @param bias {@code [out]} or null
     * @return {@code [..., out]}
     */
    default Tensor linear(Tensor x, Weight weight, Tensor bias) {
        return linear(x, weight, bias, Epilogue.none());
    }

    /**
     * Gathers rows of a bound embedding table, converted from its storage type.
     *
     * @param table {@code [V, d]}
     * @param ids token ids in {@code [0, V)}, row-major; not modified
     * @param idsShape the shape of {@code ids}, for example {@code [batch, seq]}
     * @return {@code idsShape + [d]}, F64 for an {@link WeightType#F64} table, else F32
     */
    Tensor embedding(Weight table, int[] ids, Shape idsShape);

    /**
     * @param x any shape
     * @param shape the new shape with the same number of elements; one dimension may be -1 (inferred)
     * @return {@code x}'s elements in the same row-major order under the new shape
     */
    Tensor reshape(Tensor x, int... shape);

    /**
     * @param x rank r
     * @param axes a permutation of {@code 0..r-1}: result axis {@code i} is {@code x}'s axis {@code axes[i]}
     * @return the permuted tensor
     */
    Tensor permute(Tensor x, int... axes);

    /**
     * @param x any shape of rank at least 2
     * @param axis0 one axis
     * @param axis1 the axis to swap it with
     * @return {@code x} with the two axes swapped
     */
    default Tensor transpose(Tensor x, int axis0, int axis1) {
        if (x == null) {
            throw new IllegalArgumentException("transpose: argument x is null");
        }
        int rank = x.shape().rank();
        int a0 = x.shape().normalizeAxis(axis0);
        int a1 = x.shape().normalizeAxis(axis1);
        int[] axes = new int[rank];
        for (int i = 0; i < rank; i++) {
            axes[i] = i == a0 ? a1 : i == a1 ? a0 : i;
        }
        return permute(x, axes);
    }

    /**
     * @param parts tensors whose shapes agree except along {@code axis}
     * @param axis the axis to join along
     * @return the parts joined in order
     */
    Tensor concat(List<Tensor> parts, int axis);

    /**
     * @param x any shape
     * @param sizes the sizes of consecutive pieces along {@code axis}; they sum to {@code x}'s size there
     * @param axis the axis to cut
     * @return one tensor per size, in order
     */
    List<Tensor> split(Tensor x, int[] sizes, int axis);

    /**
     * Cuts {@code x} into {@code chunks} pieces of {@code ceil(size/chunks)} along {@code axis}, the last one
     * smaller if needed, as {@code torch.chunk} (which may return fewer than {@code chunks} pieces).
     *
     * @param x any shape
     * @param chunks the number of pieces wanted, at least 1
     * @param axis the axis to cut
     * @return the pieces, in order
     */
    default List<Tensor> chunk(Tensor x, int chunks, int axis) {
        if (x == null) {
            throw new IllegalArgumentException("chunk: argument x is null");
        }
        if (chunks < 1) {
            throw new IllegalArgumentException("chunk: argument chunks is " + chunks + "; it must be at least 1");
        }
        int size = x.shape().dim(axis);
        int piece = (size + chunks - 1) / chunks;
        int count = (size + piece - 1) / piece;
        int[] sizes = new int[count];
        for (int i = 0; i < count; i++) {
            sizes[i] = Math.min(piece, size - i * piece);
        }
        return split(x, sizes, axis);
    }

    /**
     * @param x any shape
     * @param dtype the target element type
     * @return {@code x} converted (rounded to nearest when narrowing)
     */
    Tensor cast(Tensor x, DType dtype);

    /**
     * Inverted dropout with an explicit seed, the same on every backend: element {@code i} (flat row-major) is
     * kept iff its SplitMix64 hash of {@code (seed, i)} is at least {@code p} (the formula is in
     * {@code SEMANTICS.md}) and then scaled by {@code 1/(1-p)}.
     *
     * @param x any shape
     * @param p the drop probability in {@code [0, 1]}; 0 returns a copy of {@code x}, 1 returns zeros
     * @param seed the mask's seed
     * @return the same shape as {@code x}
     */
    Tensor dropout(Tensor x, double p, long seed);

    /**
     * @param mask a boolean mask ({@code true} = may attend)
     * @param dtype the element type of the result
     * @return a tensor of {@code mask.shape()} holding 0 where allowed and {@code -∞} where not
     */
    Tensor additiveMask(Mask mask, DType dtype);

    /**
     * Root-mean-square normalisation over the last axis, as Llama's {@code RMSNorm}:
     * {@code x / sqrt(mean(x²) + eps) · weight}.
     *
     * @param x {@code [..., d]}
     * @param weight {@code [d]}, or null for ones
     * @param eps added to the mean square, at least 0
     * @return {@code [..., d]}
     */
    Tensor rmsNorm(Tensor x, Tensor weight, double eps);

    /**
     * Residual add and RMS normalisation in one pass: {@code rmsNorm(x + residual, weight, eps)}.
     *
     * @param x {@code [..., d]}
     * @param residual the shape and dtype of {@code x}
     * @param weight {@code [d]}, or null for ones
     * @param eps added to the mean square, at least 0
     * @return {@code [..., d]}
     */
    Tensor rmsNorm(Tensor x, Tensor residual, Tensor weight, double eps);

    /**
     * The sigmoid-weighted linear unit (swish), as PyTorch's {@code F.silu}: {@code x · σ(x) = x / (1 + e^-x)}.
     *
     * @param x any shape
     * @return {@code silu(x)}, elementwise
     */
    Tensor silu(Tensor x);

    /**
     * Rotary position embedding. Query or key row {@code p} (counted along axis -2) sits at position
     * {@code offset + p}; pair {@code i < n} of its first {@code 2n = rotary.dimension()} features, chosen by
     * {@code rotary.layout()} among those {@code 2n}, is rotated by {@code θ = (offset + p) · ω_i} and scaled by
     * {@code s = rotary.attentionScaling()}:
     * <pre>
     *   (a, b)  ↦  (a·s·cos θ − b·s·sin θ,  b·s·cos θ + a·s·sin θ)
     * </pre>
     * Features {@code 2n} to {@code d - 1} are copied unchanged. The angles, cosines and sines are computed in
     * double precision and rounded to the tensor's dtype once.
     *
     * @param x {@code [..., L, d]} with {@code d >= rotary.dimension()}
     * @param rotary the frequencies, scaling and pair layout
     * @param offset the position of row 0, at least 0 (the number of tokens already in a cache)
     * @return {@code [..., L, d]}
     */
    Tensor rope(Tensor x, RotaryEmbedding rotary, int offset);

    /**
     * The original rotary position embedding over every feature: {@link #rope(Tensor, RotaryEmbedding, int)} with
     * {@code RotaryEmbedding.of(layout, base, d)}, that is pair {@code i < d/2} turns by the angle
     * {@code θ = (offset + p) · base^(-2i/d)}:
     * <pre>
     *   (a, b)  ↦  (a·cos θ − b·sin θ,  b·cos θ + a·sin θ)
     * </pre>
     *
     * @param x {@code [..., L, d]} with {@code d} even
     * @param layout which features form a pair
     * @param base the frequency base, for example 10000; positive
     * @param offset the position of row 0, at least 0 (the number of tokens already in a cache)
     * @return {@code [..., L, d]}
     */
    default Tensor rope(Tensor x, RopeLayout layout, double base, int offset) {
        if (x == null) {
            throw new IllegalArgumentException("rope: argument x is null");
        }
        if (layout == null) {
            throw new IllegalArgumentException("rope: argument layout is null");
        }
        Shape s = x.shape();
        if (s.rank() < 2 || s.dim(-1) % 2 != 0 || s.dim(-1) == 0) {
            throw new IllegalArgumentException("rope: argument x has shape " + s
                    + "; it must be [..., L, d] with an even d");
        }
        if (!(base > 0) || Double.isInfinite(base)) {
            throw new IllegalArgumentException("rope: argument base is " + base + "; it must be positive and finite");
        }
        return rope(x, RotaryEmbedding.of(layout, base, s.dim(-1)), offset);
    }

    /**
     * Soft-capping, as Gemma 2 bounds its logits: {@code cap · tanh(x / cap)}, elementwise. It is close to
     * {@code x} for {@code |x| << cap} and never leaves {@code (-cap, cap)}; {@code ±∞} gives {@code ±cap}, NaN
     * stays NaN.
     *
     * @param x any shape
     * @param cap the bound, positive and finite
     * @return {@code cap · tanh(x / cap)}, the shape of {@code x}
     */
    Tensor softcap(Tensor x, double cap);

    /**
     * Writes {@code source} into {@code target} at {@code offset} along {@code axis}: afterwards
     * {@code target[..., offset + i, ...] = source[..., i, ...]} for {@code i < source.dim(axis)}, every other
     * element unchanged. Unlike every other op this one may modify its operand {@code target} in place, so that
     * a preallocated key/value cache grows without a copy; a backend may build a new tensor instead
     * ({@code org.attn4j.api.spi.ReferenceOps}). Either way the caller continues with the returned tensor and no
     * longer uses {@code target}.
     *
     * @param target {@code [..., n, ...]}; modified, or consumed
     * @param source the same shape as {@code target} except along {@code axis}, and the same dtype; not modified
     * @param axis the axis to write along
     * @param offset where along {@code axis} the first slice lands; {@code offset + source.dim(axis) <= n}
     * @return {@code target} itself (when written in place, owned by its scope) or a new tensor owned by
     *     {@link #scope()}
     */
    Tensor writeSlice(Tensor target, Tensor source, int axis, int offset);

    /**
     * Scaled dot-product attention:
     * <pre>
     *   logits  = q·kᵀ·scale, soft-capped to cap·tanh(logits / cap) when a logit soft-cap is set
     *   logits += additiveMask, plus -∞ where the mask is false or (causal and j &gt; i)
     *   weights = softmax(logits, -1)          a row with every logit -∞ gives zero weights and a zero output
     *   weights = dropout(weights, p, seed)    only when p &gt; 0
     *   output  = weights·v
     * </pre>
     * NaN and infinities in unmasked positions follow IEEE 754 (a NaN logit makes its row NaN). Whether a NaN or
     * infinity in a masked-out position of {@code k} or {@code v} reaches the output is unspecified: a fused kernel
     * may skip masked keys entirely while the composed form multiplies them by zero.
     * A backend either composes the primitives above ({@code org.attn4j.api.spi.ReferenceAttention}) or runs a
     * fused kernel ({@link Capabilities.Feature#FUSED_ATTENTION}), with the same results within the TCK's
     * tolerances. What masks, causal alignment, fully masked rows and dropout mean is written down in
     * {@code SEMANTICS.md}.
     *
     * @param q {@code [..., Lq, d_k]}
     * @param k {@code [..., Lk, d_k]}
     * @param v {@code [..., Lk, d_v]}; the leading dims {@code ...} of q, k and v are equal
     * @param options masks, scale, dropout and whether to return the weights
     * @return output {@code [..., Lq, d_v]} and, if asked, weights {@code [..., Lq, Lk]}
     */
    AttentionResult attention(Tensor q, Tensor k, Tensor v, AttentionOptions options);

    /**
     * {@link #attention} reading the queries, keys and values straight from the output of one fused projection,
     * and writing the heads back side by side, with no permute copies:
     * <pre>
     *   qkv[b, i, :] = [ q_0 … q_{H-1} | k_0 … k_{H_kv-1} | v_0 … v_{H_kv-1} ]     each head d wide
     *   out[b, i, h·d … (h+1)·d) = attention(q_h, k_{h / (H / H_kv)}, v_{h / (H / H_kv)})[i]
     * </pre>
     * Masks broadcast against {@code [B, H, L, L]}, and returned weights are {@code [B, H, L, L]}, as for
     * {@link #attention} on {@code q [B, H, L, d]}.
     *
     * @param qkv {@code [B, L, (H + 2·H_kv)·d]}
     * @param heads {@code H}, a multiple of {@code kvHeads}
     * @param kvHeads {@code H_kv}, at least 1
     * @param options as for {@link #attention}
     * @return output {@code [B, L, H·d]} and, if asked, weights {@code [B, H, L, L]}
     */
    AttentionResult packedAttention(Tensor qkv, int heads, int kvHeads, AttentionOptions options);
}
