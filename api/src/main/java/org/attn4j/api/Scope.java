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
     * Binds a parameter to this scope's backend: the backend reads the bytes once, keeps the values in their type
     * (or, for a type its {@link Capabilities#weightTypes()} lacks, converted once to F32 with a logged note) in the
     * layout its kernels read, and frees them when this scope closes.
     *
     * @param data exactly {@code type.byteSize(shape)} little-endian bytes from its position, laid out as
     *     {@link WeightType} describes; not modified, and not referenced after this call returns
     * @param type how {@code data} stores the values
     * @param shape {@code [rows, columns]}, for example a linear map's {@code [out, in]}
     * @return a new weight owned by this scope
     * @throws IllegalArgumentException if the byte count does not fit the type and shape, or a block's scale is
     *     not finite (naming the block's row and index)
     */
    Weight weight(java.nio.ByteBuffer data, WeightType type, Shape shape);

    /**
     * Stores row-major numbers in a type ({@link WeightType#encode}) and binds them as {@link #weight}.
     *
     * @param values {@code shape.size()} numbers; not modified
     * @param shape {@code [rows, columns]}
     * @param type the storage type; the numbers are rounded or quantized to it
     * @return a new weight owned by this scope
     */
    default Weight weight(float[] values, Shape shape, WeightType type) {
        if (type == null) {
            throw new IllegalArgumentException("weight: argument type is null");
        }
        return weight(type.encode(values, shape), type, shape);
    }

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
