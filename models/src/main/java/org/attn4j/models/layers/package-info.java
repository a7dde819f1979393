/**
 * The building blocks every model family is made of, encoders and decoders alike:
 * {@link org.attn4j.models.layers.Linear} ({@code y = x·Wᵀ + b}, {@code [..., in] → [..., out]}),
 * {@link org.attn4j.models.layers.Embedding} ({@code ids [...] → [..., d]}, rows of {@code [V, d]}; read as a product,
 * the tied LM head), the two {@link org.attn4j.models.layers.Norm}s over the last axis,
 * {@link org.attn4j.models.layers.LayerNorm} ({@code (x − mean) / sqrt(var + eps) · w + b}) and
 * {@link org.attn4j.models.layers.RmsNorm} ({@code x / sqrt(mean(x²) + eps) · w}; Gemma's {@code 1 + w} is formed by
 * its loader), and the blocks the rotary encoders share: {@link org.attn4j.models.layers.RotarySelfAttention} (fused
 * QKV, rotary queries and keys, masked attention, output projection; {@code [B, L, d] → [B, L, d]}) and
 * {@link org.attn4j.models.layers.GatedFeedForward} ({@code (act(x·W_gᵀ) ⊙ x·W_uᵀ)·W_downᵀ}, {@code [..., d] →
 * [..., d]}).
 *
 * <p>A block is read from a {@link org.attn4j.models.parameters.StateDict} under PyTorch's names and bound once to a
 * backend with {@code bind(Parameters)}, or made with {@code bound(…)} over parameters its caller already put on a
 * backend and keeps there (the decoders, whose loader chooses each matrix's storage type and counts what it binds).
 * An unbound block uploads its parameters per call into a work scope of its own; a bound one allocates only
 * activations: in the caller's scope through {@code forward(Scope, …)}, which checks the input's backend and dtype,
 * or on the ops of a work scope through {@code apply(Ops, …)}, the decoders' per-token path, which adds nothing to
 * the op. Both are the same one op over the same bound parameters, so they give the same bits.
 *
 * <p>These use the foundation ({@code parameters}) only, never a file format, a family or a model.
 */
package org.attn4j.models.layers;
