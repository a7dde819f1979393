package org.attn4j.backend.ejml;

import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.AbstractTensor;

/**
 * A tensor on the Java heap: a row-major {@code float[]} (F32) or {@code double[]} (F64) of exactly
 * {@code shape.size()} elements, held through an {@link ArrayPool.Buffer}. The array is never modified after
 * construction, except by {@code writeSlice} into a cache, so tensors may share one (a reshape does, through the same
 * buffer); releasing the last of them returns the array to the pool of the releasing thread.
 */
final class HeapTensor extends AbstractTensor {
    private float[] floats;
    private double[] doubles;
    private ArrayPool.Buffer buffer;

    /**
     * @param owner the scope that frees it
     * @param shape the dimensions
     * @param buffer holds a {@code float[]} or {@code double[]} of {@code shape.size()} elements; retained by the
     *     caller for this tensor
     */
    HeapTensor(HeapScope owner, Shape shape, ArrayPool.Buffer buffer) {
        super(owner, shape, buffer.array() instanceof float[] ? DType.F32 : DType.F64);
        this.buffer = buffer;
        if (buffer.array() instanceof float[] f) {
            this.floats = f;
        } else {
            this.doubles = (double[]) buffer.array();
        }
    }

    /** @return the buffer, for a view that shares it; the caller has checked that the tensor is open */
    ArrayPool.Buffer buffer() {
        return buffer;
    }

    /** @return the F32 data, not to be modified; the caller has checked that the tensor is open and F32 */
    float[] f32() {
        return floats;
    }

    /** @return the F64 data, not to be modified; the caller has checked that the tensor is open and F64 */
    double[] f64() {
        return doubles;
    }

    /** @return the data array, {@code float[]} or {@code double[]}, not to be modified */
    Object data() {
        return dtype() == DType.F32 ? floats : doubles;
    }

    /** @return the elements as doubles: the F64 array itself (not to be modified) or a widened copy */
    double[] widened() {
        return (double[]) Layout.cast(data(), DType.F64);
    }

    @Override
    public float[] toFloatArray() {
        return reading("toFloatArray",
                () -> dtype() == DType.F32 ? floats.clone() : (float[]) Layout.cast(doubles, DType.F32));
    }

    @Override
    public double[] toDoubleArray() {
        return reading("toDoubleArray", () -> dtype() == DType.F64 ? doubles.clone() : widened());
    }

    @Override
    protected void release() {
        floats = null;
        doubles = null;
        ArrayPool.Buffer b = buffer;
        buffer = null;
        if (b != null) {
            b.release();
        }
    }
}
