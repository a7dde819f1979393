package org.attn4j.backend.template;

import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.ShapeChecks;

/** A scope: makes tensors from host arrays; {@link AbstractScope} tracks and frees them. */
final class NaiveScope extends AbstractScope {
    private final Ops ops;

    NaiveScope(NaiveBackend backend) {
        super(backend);
        this.ops = new NaiveOps(this);
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
        double[] values = new double[data.length];
        for (int i = 0; i < data.length; i++) {
            values[i] = data[i];
        }
        return wrap(shape, DType.F32, values);
    }

    @Override
    public Tensor tensor(double[] data, Shape shape) {
        checkOpen("tensor");
        ShapeChecks.data("tensor", data == null ? -1 : data.length, shape);
        return wrap(shape, DType.F64, data.clone());
    }

    @Override
    public Tensor zeros(Shape shape, DType dtype) {
        checkOpen("zeros");
        ShapeChecks.notNull("zeros", "dtype", dtype);
        ShapeChecks.fits("zeros", shape, dtype, (Integer.MAX_VALUE - 8L) * dtype.byteSize(),
                "backend naive's limit for one tensor, a Java array of 2^31 - 9 elements");
        return wrap(shape, dtype, NaiveOps.values(shape));
    }

    /** @return a new tensor of this scope holding {@code values} (rounded to float for F32) */
    NaiveTensor wrap(Shape shape, DType dtype, double[] values) {
        return new NaiveTensor(this, shape, dtype, values);
    }
}
