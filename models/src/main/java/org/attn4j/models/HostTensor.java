package org.attn4j.models;

import java.util.Arrays;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * A parameter held on the Java heap: a shape and its row-major values in double precision (so F32 and F64 weights
 * both load without loss). It is immutable: the constructor and {@link #data()} copy.
 */
public final class HostTensor {
    private final Shape shape;
    private final double[] data;

    /**
     * @param shape the dimensions
     * @param data row-major values, {@code shape.size()} of them; not modified (copied)
     * @throws IllegalArgumentException if the lengths differ
     */
    public HostTensor(Shape shape, double[] data) {
        if (data.length != shape.size()) {
            throw new IllegalArgumentException("HostTensor: argument data has " + data.length
                    + " values but shape " + shape + " needs " + shape.size());
        }
        this.shape = shape;
        this.data = data.clone();
    }

    /**
     * @param data row-major values; not modified
     * @param dims the dimensions
     * @return the parameter
     */
    public static HostTensor of(double[] data, int... dims) {
        return new HostTensor(Shape.of(dims), data);
    }

    /**
     * @param data row-major values; not modified (widened to double)
     * @param dims the dimensions
     * @return the parameter
     */
    public static HostTensor of(float[] data, int... dims) {
        double[] d = new double[data.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = data[i];
        }
        return new HostTensor(Shape.of(dims), d);
    }

    /**
     * @param tensor an open tensor of any backend; not modified
     * @return its values copied to the heap
     */
    public static HostTensor copyOf(Tensor tensor) {
        return new HostTensor(tensor.shape(), tensor.toDoubleArray());
    }

    /** @return the dimensions */
    public Shape shape() {
        return shape;
    }

    /** @return a copy of the row-major values */
    public double[] data() {
        return data.clone();
    }

    /**
     * @param flatIndex a row-major index
     * @return the value there
     */
    public double get(int flatIndex) {
        return data[flatIndex];
    }

    /**
     * @param scope where the tensor is created
     * @param dtype its element type (F32 rounds to nearest)
     * @return a new tensor owned by {@code scope} holding these values
     */
    public Tensor toTensor(Scope scope, DType dtype) {
        return scope.tensor(data, shape, dtype);
    }

    /**
     * @param dims the new dimensions with the same number of elements
     * @return the same values under another shape
     */
    public HostTensor reshape(int... dims) {
        return new HostTensor(Shape.of(dims), data);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HostTensor h && shape.equals(h.shape) && Arrays.equals(data, h.data);
    }

    @Override
    public int hashCode() {
        return 31 * shape.hashCode() + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "HostTensor" + shape;
    }
}
