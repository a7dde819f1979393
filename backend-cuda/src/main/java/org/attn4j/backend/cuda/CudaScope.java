package org.attn4j.backend.cuda;

import java.nio.ByteBuffer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import org.attn4j.api.DType;
import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.AbstractWeight;
import org.attn4j.api.spi.ShapeChecks;

/**
 * A scope whose tensors live in the memory of the backend's device and are freed with {@code cuMemFree}
 * when it closes. F32 only: creating an F64 tensor throws {@link IllegalArgumentException}.
 */
final class CudaScope extends AbstractScope {
    private final Device device;
    private final Ops ops;

    CudaScope(CudaBackend backend, Device device) {
        super(backend);
        this.device = device;
        this.ops = new CudaOps(this, device);
    }

    @Override
    public Ops ops() {
        checkOpen("ops");
        return ops;
    }

    @Override
    public Tensor tensor(float[] data, Shape shape) {
        ShapeChecks.data("tensor", data == null ? -1 : data.length, shape);
        CudaTensor t = allocate("tensor", shape);
        device.upload("tensor", t.data(), data);
        return t;
    }

    @Override
    public Tensor tensor(double[] data, Shape shape) {
        throw CudaScope.unsupported("tensor", DType.F64);
    }

    @Override
    public Tensor tensor(double[] data, Shape shape, DType dtype) {
        ShapeChecks.notNull("tensor", "dtype", dtype);
        if (dtype != DType.F32) {
            throw CudaScope.unsupported("tensor", dtype);
        }
        ShapeChecks.data("tensor", data == null ? -1 : data.length, shape);
        float[] f = new float[data.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) data[i];
        }
        return tensor(f, shape);
    }

    @Override
    public Tensor zeros(Shape shape, DType dtype) {
        ShapeChecks.notNull("zeros", "shape", shape);
        ShapeChecks.notNull("zeros", "dtype", dtype);
        if (dtype != DType.F32) {
            throw CudaScope.unsupported("zeros", dtype);
        }
        CudaTensor t = allocate("zeros", shape);
        device.zero("zeros", t.data(), shape.size());
        return t;
    }

    /**
     * Uploads a parameter once, in its storage type ({@link CudaWeight}); every type but F64, which the backend
     * refuses before this is called, is held as it is.
     */
    @Override
    protected AbstractWeight createWeight(ByteBuffer data, WeightType type, Shape shape) {
        checkOpen("weight");
        if (shape.size() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("weight: a weight of shape " + shape + " holds " + shape.size()
                    + " numbers, more than backend cuda's limit for one weight, 2^31 - 1");
        }
        return CudaWeight.upload(this, device, data, type, shape);
    }

    /**
     * Allocates an uninitialised F32 tensor owned by this scope.
     *
     * @param op    the op name for messages
     * @param shape its shape, below 2^31 elements
     * @return the tensor
     */
    CudaTensor allocate(String op, Shape shape) {
        checkOpen(op);
        ShapeChecks.fits(op, shape, DType.F32, (long) Integer.MAX_VALUE * Sizeof.FLOAT,
                "backend cuda's limit for one tensor, 2^31 - 1 elements");
        long size = shape.size();
        CUdeviceptr ptr = device.alloc(op, size * Sizeof.FLOAT);
        try {
            return new CudaTensor(this, shape, device, ptr);
        } catch (RuntimeException e) {
            device.free(ptr);
            throw e;
        }
    }

    static IllegalArgumentException unsupported(String op, DType dtype) {
        return new IllegalArgumentException(op + ": dtype " + dtype + " is not supported by backend cuda"
                + " (capabilities().dtypes() = [F32])");
    }
}
