package org.attn4j.backend.template;

import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.ShapeChecks;

/** A scope: makes tensors from host arrays; {@link AbstractScope} tracks and frees them. */
final class NaiveScope extends AbstractScope {
    private final NaiveOps ops = new NaiveOps(this);

    NaiveScope(NaiveBackend backend) {
        super(backend);
    }

    @Override
    public Ops ops() {
        checkOpen("ops");
        return ops;
    }

    @Override
    public Tensor tensor(float[] data, Shape shape) {
        checkOpen("tensor");
        NaiveOps.notNull("tensor", "data", data);
        ShapeChecks.dataLength("tensor", data.length, shape);
        double[] values = new double[data.length];
        for (int i = 0; i < data.length; i++) {
            values[i] = data[i];
        }
        return wrap(shape, DType.F32, values);
    }

    @Override
    public Tensor tensor(double[] data, Shape shape) {
        checkOpen("tensor");
        NaiveOps.notNull("tensor", "data", data);
        ShapeChecks.dataLength("tensor", data.length, shape);
        return wrap(shape, DType.F64, data.clone());
    }

    @Override
    public Tensor zeros(Shape shape, DType dtype) {
        checkOpen("zeros");
        NaiveOps.notNull("zeros", "shape", shape);
        NaiveOps.notNull("zeros", "dtype", dtype);
        return wrap(shape, dtype, new double[Math.toIntExact(shape.size())]);
    }

    /** @return a new tensor of this scope holding {@code values} (rounded to float for F32) */
    NaiveTensor wrap(Shape shape, DType dtype, double[] values) {
        return new NaiveTensor(this, shape, dtype, values);
    }
}
