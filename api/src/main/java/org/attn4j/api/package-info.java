/**
 * The attn4j api: {@link org.attn4j.api.Tensor}, {@link org.attn4j.api.Shape}, {@link org.attn4j.api.DType},
 * memory {@link org.attn4j.api.Scope}s, the op set {@link org.attn4j.api.Ops} with attention and its
 * {@link org.attn4j.api.AttentionOptions}, rotary embeddings described by {@link org.attn4j.api.RotaryEmbedding},
 * parameters bound to a backend as {@link org.attn4j.api.Weight}s of a {@link org.attn4j.api.WeightType} (F32, F16,
 * BF16, and GGUF's block types: Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, the K-types Q2_K to Q6_K, IQ4_NL and IQ4_XS) that
 * {@code linear} reads with an {@link org.attn4j.api.Epilogue}, and
 * {@link org.attn4j.api.Backends}, which discovers the
 * {@link org.attn4j.api.BackendProvider}s on the class path and selects a backend, reporting each one's
 * {@link org.attn4j.api.Availability} and {@link org.attn4j.api.Capabilities}, and creates it as a
 * {@link org.attn4j.api.BackendOptions} says (its thread count: {@code -Dattn4j.threads}, else
 * {@code ATTN4J_THREADS}, else {@code BackendOptions.withThreads}, else the backend's default).
 *
 * <p>Typical use:
 * <pre>{@code
 * Backend backend = Backends.load();
 * try (Scope scope = backend.newScope()) {
 *     Tensor q = scope.tensor(qData, Shape.of(1, 1, 6, 16));
 *     ...
 *     AttentionResult r = scope.ops().attention(q, k, v, AttentionOptions.defaults().withCausal(true));
 *     float[] out = r.output().toFloatArray();
 * }
 * }</pre>
 *
 * <p>This package depends on the JDK alone, and never on {@code org.attn4j.api.spi}, which holds what only
 * implementers of a backend need. The semantics every backend shares are written down in {@code SEMANTICS.md}.
 */
package org.attn4j.api;
