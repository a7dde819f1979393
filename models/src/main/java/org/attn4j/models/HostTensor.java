package org.attn4j.models;

import java.util.Arrays;
import java.util.List;
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

    /**
     * @param from first row (index along axis 0), inclusive
     * @param to last row, exclusive
     * @return rows {@code [from, to)} of this tensor, for example the query part of {@code in_proj_weight}
     */
    public HostTensor rows(int from, int to) {
        int[] dims = shape.toArray();
        if (dims.length == 0 || from < 0 || to > dims[0] || from >= to) {
            throw new IllegalArgumentException("HostTensor.rows: rows [" + from + ", " + to + ") of shape " + shape);
        }
        int row = (int) (shape.size() / dims[0]);
        dims[0] = to - from;
        return new HostTensor(Shape.of(dims), Arrays.copyOfRange(data, from * row, to * row));
    }

    /**
     * @param parts tensors whose shapes agree except along axis 0
     * @return the parts stacked along axis 0, in order
     */
    public static HostTensor concatRows(List<HostTensor> parts) {
        int[] dims = parts.get(0).shape.toArray();
        int rows = 0;
        for (HostTensor p : parts) {
            int[] pd = p.shape.toArray();
            pd[0] = dims[0];
            if (!Arrays.equals(pd, dims)) {
                throw new IllegalArgumentException("HostTensor.concatRows: shape " + p.shape + " does not match "
                        + parts.get(0).shape + " outside axis 0");
            }
            rows += p.shape.dim(0);
        }
        double[] all = new double[0];
        for (HostTensor p : parts) {
            int at = all.length;
            all = Arrays.copyOf(all, at + p.data.length);
            System.arraycopy(p.data, 0, all, at, p.data.length);
        }
        dims[0] = rows;
        return new HostTensor(Shape.of(dims), all);
    }

    /** @return the transpose of this rank-2 tensor */
    public HostTensor transpose() {
        if (shape.rank() != 2) {
            throw new IllegalArgumentException("HostTensor.transpose: shape " + shape + " is not a matrix");
        }
        int r = shape.dim(0);
        int c = shape.dim(1);
        double[] t = new double[data.length];
        for (int i = 0; i < r; i++) {
            for (int j = 0; j < c; j++) {
                t[j * r + i] = data[i * c + j];
            }
        }
        return new HostTensor(Shape.of(c, r), t);
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
