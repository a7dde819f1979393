package org.attn4j.backend.nd4j;

import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.AbstractTensor;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A tensor whose data is one ND4J buffer in native memory. {@code array} is what ops read: a C-ordered array of
 * the tensor's shape. {@code storage} owns the buffer: the same array, or the array {@code array} is a reshaped
 * view of. The buffer belongs to this tensor alone and is freed by {@code storage.close()} when the scope closes.
 */
final class Nd4jTensor extends AbstractTensor {
    private final Nd4jBackend backend;
    private final INDArray array;
    private final INDArray storage;
    private final long bytes;

    Nd4jTensor(Nd4jScope owner, Shape shape, DType dtype, INDArray array, INDArray storage) {
        super(owner, shape, dtype);
        this.backend = owner.nd4j();
        this.array = array;
        this.storage = storage;
        this.bytes = storage.length() * dtype.byteSize();
        backend.allocated(bytes);
    }

    /**
     * @param op the op name for error messages
     * @return the C-ordered array of this tensor's shape
     */
    INDArray array(String op) {
        checkOpen(op);
        return array;
    }

    @Override
    public float[] toFloatArray() {
        return reading("toFloatArray", () -> NdArrays.toFloats(storage));
    }

    @Override
    public double[] toDoubleArray() {
        return reading("toDoubleArray", () -> NdArrays.toDoubles(storage));
    }

    @Override
    protected void release() {
        storage.close();
        backend.freed(bytes);
    }
}
