/**
 * CUDA backend of attn4j: F32 kernels compiled from {@code src/main/cuda/*.cu} to PTX ISA 9.0 for
 * {@code compute_75} (so it runs on compute capability 7.5 and newer with an NVIDIA driver 580 or newer),
 * shipped as resources and launched through the JCuda driver API.
 *
 * <p>Host-side classes here are package-private: {@link org.attn4j.backend.cuda.Kernel} lists every kernel
 * with its parameter list, {@link org.attn4j.backend.cuda.PtxModule} loads the PTX and checks each kernel's
 * {@code .entry} and parameters before any launch, {@link org.attn4j.backend.cuda.StridedLayout} turns shapes into
 * the strides the kernels walk, and {@link org.attn4j.backend.cuda.Launches} and
 * {@link org.attn4j.backend.cuda.AttentionPlan} compute grid, block and shared-memory sizes.
 *
 * <p>Index arithmetic in the kernels is 32-bit: every tensor has fewer than 2^31 elements.
 */
package org.attn4j.backend.cuda;
