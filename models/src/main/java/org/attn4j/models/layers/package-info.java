/**
 * The building blocks a model family is made of, each read from a
 * {@link org.attn4j.models.parameters.StateDict} under PyTorch's names and bound once to a backend with
 * {@code bind(Parameters)}: {@link org.attn4j.models.layers.Linear} ({@code y = x·Wᵀ + b}, {@code [..., in] →
 * [..., out]}), {@link org.attn4j.models.layers.LayerNorm} ({@code (x − mean) / sqrt(var + eps) · w + b} over the
 * last axis), {@link org.attn4j.models.layers.Embedding} ({@code ids [...] → [..., d]}, rows of {@code [V, d]}),
 * and the blocks the rotary encoders share: {@link org.attn4j.models.layers.RotarySelfAttention} (fused QKV, rotary
 * queries and keys, masked attention, output projection; {@code [B, L, d] → [B, L, d]}) and
 * {@link org.attn4j.models.layers.GatedFeedForward} ({@code (act(x·W_gᵀ) ⊙ x·W_uᵀ)·W_downᵀ}, {@code [..., d] →
 * [..., d]}).
 * An unbound block uploads its parameters per call into a work scope of its own; a bound one allocates only
 * activations in the caller's scope.
 *
 * <p>These use the foundation ({@code parameters}) only, never a file format, a family or a model.
 */
package org.attn4j.models.layers;
