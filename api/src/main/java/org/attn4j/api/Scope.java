package org.attn4j.api;

/**
 * Owns tensors and frees them all when closed, like DJL's {@code NDManager} or Java's {@code Arena}: every
 * tensor is created in a scope, either by a factory method here or as the result of an op from {@link #ops()}.
 * Operands of an op may come from any open scope of the same backend, so weights can live in a long scope and
 * activations in a short one.
 *
 * <p>A scope is confined to one thread at a time: create, use and close it on the thread that works with it.
 * The {@link Backend} it came from is thread-safe, so many threads may each use their own scopes at once.
 * Closing a scope twice is harmless; using it after close throws {@link IllegalStateException}.
 */
public interface Scope extends AutoCloseable {

    /** @return the backend whose memory this scope manages */
    Backend backend();

    /** @return the ops whose results this scope owns */
    Ops ops();

    /**
     * @param data row-major elements; not modified (copied)
     * @param shape the shape; {@code shape.size()} must equal {@code data.length}
     * @return a new F32 tensor owned by this scope
     */
    Tensor tensor(float[] data, Shape shape);

    /**
     * @param data row-major elements; not modified (copied)
     * @param shape the shape; {@code shape.size()} must equal {@code data.length}
     * @return a new F64 tensor owned by this scope
     */
    Tensor tensor(double[] data, Shape shape);

    /**
     * @param data row-major elements; not modified (copied and converted)
     * @param shape the shape; {@code shape.size()} must equal {@code data.length}
     * @param dtype the element type of the new tensor
     * @return a new tensor owned by this scope
     */
    default Tensor tensor(double[] data, Shape shape, DType dtype) {
        if (data == null || dtype == null) {
            throw new IllegalArgumentException("tensor: argument " + (data == null ? "data" : "dtype") + " is null");
        }
        if (dtype == DType.F64) {
            return tensor(data, shape);
        }
        float[] f = new float[data.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) data[i];
        }
        return tensor(f, shape);
    }

    /**
     * @param shape the shape
     * @param dtype the element type
     * @return a new tensor of zeros owned by this scope
     */
    Tensor zeros(Shape shape, DType dtype);

    /**
     * Moves a tensor into this scope: it will be freed when this scope closes, no longer when its old scope does.
     *
     * @param tensor an open tensor of the same backend; modified (its owner changes)
     * @return {@code tensor} itself
     */
    Tensor adopt(Tensor tensor);

    /** @return false once closed */
    boolean isOpen();

    /** Frees every tensor this scope owns. */
    @Override
    void close();
}
