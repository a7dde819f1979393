package org.attn4j.backend.ejml;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.AbstractWeight;
import org.attn4j.api.spi.ShapeChecks;

/** A scope of heap tensors; confined to one thread at a time, like every scope. */
final class HeapScope extends AbstractScope {
    /** The most elements one Java array, and so one tensor of this backend, holds. */
    private static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;
    private static final String LIMIT = "backend ejml's limit for one tensor, a Java array of 2^31 - 9 elements;"
            + " split the work or use a native backend";
    private final Ops ops;
    private final Parallel parallel;

    HeapScope(EjmlBackend backend) {
        super(backend);
        this.parallel = backend.parallel();
        this.ops = new HeapOps(this, parallel);
    }

    /** @return the pool the backend's ops run on, which also builds the weights bound here */
    Parallel parallel() {
        return parallel;
    }

    @Override
    public Ops ops() {
        checkOpen("ops");
        return ops;
    }

    @Override
    public Tensor tensor(float[] data, Shape shape) {
        checkOpen("tensor");
        ShapeChecks.data("tensor", data == null ? -1 : data.length, shape);
        float[] copy = ArrayPool.floats(data.length, false);
        System.arraycopy(data, 0, copy, 0, data.length);
        return wrap(shape, copy);
    }

    @Override
    public Tensor tensor(double[] data, Shape shape) {
        checkOpen("tensor");
        ShapeChecks.data("tensor", data == null ? -1 : data.length, shape);
        double[] copy = ArrayPool.doubles(data.length, false);
        System.arraycopy(data, 0, copy, 0, data.length);
        return wrap(shape, copy);
    }

    @Override
    public Tensor zeros(Shape shape, DType dtype) {
        checkOpen("zeros");
        ShapeChecks.notNull("zeros", "dtype", dtype);
        ShapeChecks.fits("zeros", shape, dtype, MAX_ELEMENTS * dtype.byteSize(), LIMIT);
        return wrap(shape, allocate(dtype, shape.size()));
    }

    /** Binds a weight once, in the storage its type and this JVM's kernels read ({@link WeightStorage#bind}). */
    @Override
    protected AbstractWeight createWeight(ByteBuffer data, WeightType type, Shape shape) {
        ShapeChecks.fits("weight", shape, type == WeightType.F64 ? DType.F64 : DType.F32,
                MAX_ELEMENTS * (type == WeightType.F64 ? 8 : 4), LIMIT);
        return new HeapWeight(this, data, type, shape);
    }

    /**
     * @param shape the result's shape
     * @param data a {@code float[]} or {@code double[]} of {@code shape.size()} elements, now owned by the tensor
     * @return a new tensor of this scope holding {@code data} without copying
     */
    HeapTensor wrap(Shape shape, Object data) {
        return new HeapTensor(this, shape, new ArrayPool.Buffer(data));
    }

    /**
     * @param shape the view's shape, of {@code x}'s size
     * @param x an open tensor of any scope
     * @return a new tensor of this scope sharing {@code x}'s array, which goes back to the pool only when both are
     *     released
     */
    HeapTensor view(Shape shape, HeapTensor x) {
        ArrayPool.Buffer b = x.buffer();
        b.retain();
        return new HeapTensor(this, shape, b);
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
     * @param shape the result's shape
     * @return a zeroed {@code float[]} or {@code double[]} of {@code shape.size()} elements
     * @throws IllegalArgumentException naming the running op, the shape and the bytes if one array cannot hold it
     */
    static Object allocate(DType dtype, Shape shape) {
        ShapeChecks.fits(runningOp("tensor"), shape, dtype, MAX_ELEMENTS * dtype.byteSize(), LIMIT);
        return allocate(dtype, shape.size());
    }

    /**
     * @param dtype the element type
     * @param size the number of elements
     * @return a zeroed {@code float[]} or {@code double[]}, from the pool where it has one
     */
    static Object allocate(DType dtype, long size) {
        return allocate(dtype, size, true);
    }

    /**
     * @param dtype the element type
     * @param shape the result's shape
     * @return a {@code float[]} or {@code double[]} of {@code shape.size()} elements from the pool, whose contents
     *     are undefined: for a kernel that writes every element before it reads any
     * @throws IllegalArgumentException naming the running op, the shape and the bytes if one array cannot hold it
     */
    static Object allocateForWriting(DType dtype, Shape shape) {
        ShapeChecks.fits(runningOp("tensor"), shape, dtype, MAX_ELEMENTS * dtype.byteSize(), LIMIT);
        return allocate(dtype, shape.size(), false);
    }

    private static Object allocate(DType dtype, long size, boolean zeroed) {
        if (size > MAX_ELEMENTS) {
            throw new IllegalArgumentException(runningOp("tensor") + ": a result of " + size + " " + dtype
                    + " elements needs " + BigInteger.valueOf(size).multiply(BigInteger.valueOf(dtype.byteSize()))
                    + " bytes, more than " + LIMIT + " (" + MAX_ELEMENTS * dtype.byteSize() + " bytes)");
        }
        return dtype == DType.F32 ? ArrayPool.floats((int) size, zeroed) : ArrayPool.doubles((int) size, zeroed);
    }
}
