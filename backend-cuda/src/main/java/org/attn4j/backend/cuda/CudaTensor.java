package org.attn4j.backend.cuda;

import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.AbstractTensor;
import jcuda.driver.CUdeviceptr;

/**
 * An F32 tensor in device memory: {@code shape().size()} contiguous row-major floats, freed when its scope
 * closes.
 */
final class CudaTensor extends AbstractTensor {
    private final Device device;
    private final CUdeviceptr data;

    CudaTensor(AbstractScope owner, Shape shape, Device device, CUdeviceptr data) {
        super(owner, shape, DType.F32);
        this.device = device;
        this.data = data;
    }

    /** @return the device pointer to the first element */
    CUdeviceptr data() {
        return data;
    }

    /** @return the element count, below 2^31 */
    int size() {
        return (int) shape().size();
    }

    @Override
    public float[] toFloatArray() {
        return reading("toFloatArray", () -> device.download("toFloatArray", data, size()));
    }

    @Override
    public double[] toDoubleArray() {
        float[] f = reading("toDoubleArray", () -> device.download("toDoubleArray", data, size()));
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }

    @Override
    protected void release() {
        device.free(data);
    }
}
