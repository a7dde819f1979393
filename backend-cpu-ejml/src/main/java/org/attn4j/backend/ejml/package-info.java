/**
 * The default attn4j backend: pure Java, no native code. Tensors are row-major {@code float[]} (F32) or
 * {@code double[]} (F64) arrays on the heap; matrix products run on EJML ({@code CommonOps_FDRM} /
 * {@code CommonOps_DDRM}); everything else is plain loops. Elementwise maps, reductions, softmax and layer norm
 * compute in double precision and round F32 results once, to nearest. Attention is fused; in F32 it runs on the
 * Vector API ({@code jdk.incubator.vector}) when the JVM resolves that module, else on scalar loops the JIT
 * vectorises ({@link org.attn4j.backend.ejml.Simd} decides once).
 *
 * <p>Threading: the backend owns one {@link java.util.concurrent.ForkJoinPool} of daemon threads, one per
 * processor; batched products and attention spread their independent pieces over it. The backend is
 * thread-safe; scopes are confined to one thread. Only {@link org.attn4j.backend.ejml.EjmlBackendProvider} is
 * public; {@code ServiceLoader} finds it through {@code META-INF/services}.
 */
package org.attn4j.backend.ejml;
