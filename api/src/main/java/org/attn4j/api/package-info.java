/**
 * The attn4j api: {@link org.attn4j.api.Tensor}, {@link org.attn4j.api.Shape}, {@link org.attn4j.api.DType},
 * memory {@link org.attn4j.api.Scope}s, the op set {@link org.attn4j.api.Ops} with attention, and
 * {@link org.attn4j.api.Backends}, which discovers and selects a backend.
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
 * <p>This package depends on the JDK alone.
 */
package org.attn4j.api;
