package org.attn4j.api;

/**
 * A model's parameter bound to one backend: read-only, in a storage {@link WeightType} the backend holds as it is
 * (or, for a type it does not declare in {@link Capabilities#weightTypes()}, converted once when created) and in a
 * layout the backend chose once, when the weight was created (packed panels of its matrix-product kernel, device
 * memory, …). Only the ops that consume parameters take weights ({@link Ops#linear(Tensor, Weight, Tensor, Epilogue)},
 * {@link Ops#embedding(Weight, int[], Shape)}); activations stay {@link Tensor}s, and arithmetic accumulates in F32
 * or better whatever the storage type.
 *
 * <p>Create one with {@link Scope#weight(java.nio.ByteBuffer, WeightType, Shape)}; it is owned by that scope and
 * freed when the scope closes, like a tensor. After that, every method but {@link #shape()}, {@link #type()} and
 * {@link #isOpen()} throws {@link IllegalStateException}.
 */
public interface Weight {

    /** @return {@code [rows, columns]}: {@code [out, in]} for a linear map, {@code [V, d]} for an embedding table */
    Shape shape();

    /** @return the type its values were given in */
    WeightType type();

    /** @return the backend that holds it */
    Backend backend();

    /** @return false once the owning scope has been closed */
    boolean isOpen();

    /**
     * @return the bytes the backend holds for it (its layout may add padding or hold scales apart)
     * @throws IllegalStateException if closed
     */
    long byteSize();

    /**
     * Copies the values to the Java heap, as {@link WeightType#decode} reads them from the bytes the weight was
     * created from.
     *
     * @return {@code shape().size()} numbers, row-major
     * @throws IllegalStateException if closed
     */
    float[] toFloatArray();
}
