package org.attn4j.backend.nd4j;

import java.nio.ByteBuffer;
import java.util.function.Function;
import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.AbstractWeight;
import org.attn4j.api.spi.ShapeChecks;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** A scope whose tensors are detached ND4J arrays, each closed when the scope closes. */
final class Nd4jScope extends AbstractScope {
    private final Nd4jBackend backend;
    private final Ops ops;

    Nd4jScope(Nd4jBackend backend) {
        super(backend);
        this.backend = backend;
        this.ops = new Nd4jOps(this);
    }

    Nd4jBackend nd4j() {
        return backend;
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
        return fresh(shape, DType.F32, t -> Nd4j.create(data, NdArrays.dims(shape), NdArrays.type(DType.F32)));
    }

    @Override
    public Tensor tensor(double[] data, Shape shape) {
        checkOpen("tensor");
        ShapeChecks.data("tensor", data == null ? -1 : data.length, shape);
        return fresh(shape, DType.F64, t -> Nd4j.create(data, NdArrays.dims(shape), NdArrays.type(DType.F64)));
    }

    @Override
    public Tensor zeros(Shape shape, DType dtype) {
        checkOpen("zeros");
        ShapeChecks.notNull("zeros", "shape", shape);
        ShapeChecks.notNull("zeros", "dtype", dtype);
        NdArrays.checkFits("zeros", shape, dtype);
        return fresh(shape, dtype, t -> Nd4j.create(NdArrays.type(dtype), NdArrays.dims(shape)));
    }

    /** Binds a parameter as {@link Nd4jWeight}: F32 (F64 for an F64 weight) in native memory, converted once. */
    @Override
    protected AbstractWeight createWeight(ByteBuffer data, WeightType type, Shape shape) {
        NdArrays.checkFits("weight", shape, type == WeightType.F64 ? DType.F64 : DType.F32);
        return Nd4jWeight.create(this, data, type, shape);
    }

    /**
     * Runs an op's body outside any ND4J workspace of the calling thread and makes its result a tensor of this
     * scope. Every array the body added to the intermediates is closed, whether it succeeds or not, except the
     * one it returns; so a body that adds its output array as soon as it allocates it leaks nothing when it fails.
     *
     * @param shape the result's shape
     * @param dtype the result's element type
     * @param body computes the result into a new array, adding any other array it creates to the intermediates
     * @return the new tensor
     */
    Nd4jTensor fresh(Shape shape, DType dtype, Function<Intermediates, INDArray> body) {
        NdArrays.checkFits(runningOp("tensor"), shape, dtype);
        try (Intermediates t = new Intermediates()) {
            return wrap(t.keep(body.apply(t)), shape, dtype);
        }
    }

    /**
     * Makes a tensor of this scope from an array that no other tensor shares.
     *
     * @param fresh an array just created by an op, holding {@code shape.size()} elements; the tensor takes it over
     * @param shape the tensor's shape
     * @param dtype the tensor's element type
     * @return the new tensor
     */
    Nd4jTensor wrap(INDArray fresh, Shape shape, DType dtype) {
        INDArray storage = fresh;
        if (fresh.isView() || fresh.ordering() != 'c' || fresh.data().length() != fresh.length()) {
            storage = fresh.dup('c');
            if (fresh.closeable()) {
                fresh.close();
            }
        }
        INDArray array = java.util.Arrays.equals(storage.shape(), NdArrays.dims(shape))
                ? storage : storage.reshape('c', NdArrays.dims(shape));
        try {
            return new Nd4jTensor(this, shape, dtype, array, storage);
        } catch (RuntimeException e) {
            storage.close();
            throw e;
        }
    }
}
