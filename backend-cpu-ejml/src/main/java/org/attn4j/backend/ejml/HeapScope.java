package org.attn4j.backend.ejml;

import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.ShapeChecks;

/** A scope of heap tensors; confined to one thread at a time, like every scope. */
final class HeapScope extends AbstractScope {
    private final Ops ops;

    HeapScope(EjmlBackend backend) {
        super(backend);
        this.ops = guarded(new HeapOps(this, backend.parallel()));
    }

    @Override
    public Ops ops() {
        checkOpen("ops");
        return ops;
    }

    @Override
    public Tensor tensor(float[] data, Shape shape) {
        checkOpen("tensor");
        checkData(data, shape);
        ShapeChecks.dataLength("tensor", data.length, shape);
        return new HeapTensor(this, shape, data.clone());
    }

    @Override
    public Tensor tensor(double[] data, Shape shape) {
        checkOpen("tensor");
        checkData(data, shape);
        ShapeChecks.dataLength("tensor", data.length, shape);
        return new HeapTensor(this, shape, data.clone());
    }

    @Override
    public Tensor zeros(Shape shape, DType dtype) {
        checkOpen("zeros");
        if (shape == null || dtype == null) {
            throw new IllegalArgumentException("zeros: argument " + (shape == null ? "shape" : "dtype") + " is null");
        }
        return wrap(shape, allocate(dtype, shape.size()));
    }

    private static void checkData(Object data, Shape shape) {
        if (data == null || shape == null) {
            throw new IllegalArgumentException("tensor: argument " + (data == null ? "data" : "shape") + " is null");
        }
    }

    /**
     * @param shape the result's shape
     * @param data a {@code float[]} or {@code double[]} of {@code shape.size()} elements, now owned by the tensor
     * @return a new tensor of this scope holding {@code data} without copying
     */
    HeapTensor wrap(Shape shape, Object data) {
        return data instanceof float[] f ? new HeapTensor(this, shape, f) : new HeapTensor(this, shape, (double[]) data);
    }

    /**
     * @param shape the result's shape
     * @param values the elements in double precision
     * @param dtype the result's dtype: F32 rounds each value to nearest
     * @return a new tensor of this scope
     */
    HeapTensor fromDoubles(Shape shape, double[] values, DType dtype) {
        return wrap(shape, Layout.cast(values, dtype));
    }

    /**
     * @param dtype the element type
     * @param size the number of elements
     * @return a zeroed {@code float[]} or {@code double[]}
     */
    static Object allocate(DType dtype, long size) {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("tensor of " + size + " elements exceeds the Java array limit of the"
                    + " ejml backend; split the work or use a native backend");
        }
        return dtype == DType.F32 ? new float[(int) size] : new double[(int) size];
    }
}
