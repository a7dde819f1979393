package org.attn4j.api;

/**
 * A row-major array of numbers with an immutable {@link Shape} and {@link DType}, owned by one {@link Scope}
 * of one {@link Backend}. Its data lives where the backend keeps it (Java heap, native memory, a GPU); the only
 * way in or out is an explicit whole-tensor copy. A tensor is freed when its owning scope closes; after that,
 * every method but {@link #shape()}, {@link #dtype()} and {@link #isOpen()} throws {@link IllegalStateException}.
 */
public interface Tensor {

    /** @return the dimensions */
    Shape shape();

    /** @return the element type */
    DType dtype();

    /** @return the backend that holds the data */
    Backend backend();

    /** @return false once the owning scope has been closed */
    boolean isOpen();

    /**
     * Copies the whole tensor to the Java heap, converting to float when the dtype is F64.
     *
     * @return a new array of {@code shape().size()} elements in row-major order
     * @throws IllegalStateException if the tensor's scope is closed
     */
    float[] toFloatArray();

    /**
     * Copies the whole tensor to the Java heap, widening to double when the dtype is F32.
     *
     * @return a new array of {@code shape().size()} elements in row-major order
     * @throws IllegalStateException if the tensor's scope is closed
     */
    double[] toDoubleArray();
}
