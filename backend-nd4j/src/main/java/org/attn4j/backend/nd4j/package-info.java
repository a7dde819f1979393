/**
 * The ND4J backend: attn4j's ops on ND4J {@code INDArray}s computed by libnd4j and OpenBLAS on the CPU.
 *
 * <p>Memory: every tensor owns one detached (workspace-free) ND4J buffer in native memory, created outside any
 * ND4J workspace the calling thread may have open, and freed with {@code INDArray.close()} when the owning scope
 * closes; intermediates of an op are closed before the op returns. Nothing waits for the garbage collector to free
 * tensor data. Workspaces are not used at all, because they are bound to one thread while attn4j scopes adopt
 * tensors from one another.
 *
 * <p>Semantics that differ from ND4J's own ops are implemented here on top of its native primitives: softmax of a
 * fully masked row is zero (ND4J gives NaN), {@code max} propagates NaN (ND4J's reduction skips it), GELU is the
 * exact erf form or PyTorch's tanh form (ND4J's {@code GELU} is a sigmoid approximation), and dropout draws the
 * {@link org.attn4j.api.spi.Dropout} hash rather than ND4J's random generator.
 *
 * <p>Only {@link org.attn4j.backend.nd4j.Nd4jBackendProvider} is public; no ND4J class is loaded before its
 * {@code availability()} is called.
 */
package org.attn4j.backend.nd4j;
