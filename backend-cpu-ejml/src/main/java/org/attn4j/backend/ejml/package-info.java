/**
 * The default attn4j backend: pure Java, no native code. Tensors are row-major {@code float[]} (F32) or
 * {@code double[]} (F64) arrays on the heap, recycled through a per-thread pool once released
 * ({@link org.attn4j.backend.ejml.ArrayPool}); bound weights are held in the layout their kernels read
 * ({@link org.attn4j.backend.ejml.WeightStorage}). F32 matrix products, {@code linear} with its epilogue and
 * attention run on the Vector API ({@code jdk.incubator.vector}) when the JVM resolves that module
 * ({@link org.attn4j.backend.ejml.Simd} decides once), else on EJML ({@code CommonOps_FDRM} /
 * {@code CommonOps_DDRM}) and scalar loops the JIT vectorises; F64 always runs there. Reductions, softmax and the
 * norms compute in double precision and round F32 results once.
 *
 * <p>Threading: the backend owns a pool of daemon workers that, with the calling thread, split the large ops
 * ({@link org.attn4j.backend.ejml.Parallel}). The backend is thread-safe; scopes are confined to one thread. Only
 * {@link org.attn4j.backend.ejml.EjmlBackendProvider} is public; {@code ServiceLoader} finds it through
 * {@code META-INF/services}.
 */
package org.attn4j.backend.ejml;
