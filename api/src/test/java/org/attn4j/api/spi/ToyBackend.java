package org.attn4j.api.spi;

import java.util.ArrayList;
import java.util.List;
import org.attn4j.api.Backend;
import org.attn4j.api.Capabilities;
import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/** A backend with heap tensors and no ops, to exercise the ownership and shape bookkeeping of the spi. */
final class ToyBackend implements Backend {
    final List<String> released = new ArrayList<>();

    @Override
    public String name() {
        return "toy";
    }

    @Override
    public Capabilities capabilities() {
        return Capabilities.builder("cpu").dtypes(DType.F32, DType.F64).build();
    }

    @Override
    public ToyScope newScope() {
        return new ToyScope(this);
    }

    static final class ToyScope extends AbstractScope {
        private final ToyBackend backend;

        ToyScope(ToyBackend backend) {
            super(backend);
            this.backend = backend;
        }

        @Override
        public Ops ops() {
            throw new UnsupportedOperationException("the toy backend has no ops");
        }

        @Override
        public Tensor tensor(float[] data, Shape shape) {
            ShapeChecks.dataLength("tensor", data.length, shape);
            return new ToyTensor(this, shape, DType.F32, "f" + shape);
        }

        @Override
        public Tensor tensor(double[] data, Shape shape) {
            ShapeChecks.dataLength("tensor", data.length, shape);
            return new ToyTensor(this, shape, DType.F64, "d" + shape);
        }

        @Override
        public Tensor zeros(Shape shape, DType dtype) {
            return new ToyTensor(this, shape, dtype, "z" + shape);
        }

        ToyBackend toy() {
            return backend;
        }
    }

    static final class ToyTensor extends AbstractTensor {
        private final String label;
        private final ToyBackend backend;

        ToyTensor(ToyScope owner, Shape shape, DType dtype, String label) {
            super(owner, shape, dtype);
            this.label = label;
            this.backend = owner.toy();
        }

        @Override
        public float[] toFloatArray() {
            checkOpen("toFloatArray");
            return new float[(int) shape().size()];
        }

        @Override
        public double[] toDoubleArray() {
            checkOpen("toDoubleArray");
            return new double[(int) shape().size()];
        }

        @Override
        protected void release() {
            backend.released.add(label);
        }
    }
}
