package org.attn4j.backend.ejml;

import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.AbstractTensor;

/**
 * A tensor on the Java heap: a row-major {@code float[]} (F32) or {@code double[]} (F64) of exactly
 * {@code shape.size()} elements. The array is never modified after construction, except by
 * {@code writeSlice} into a cache, so tensors may share one (a reshape does); releasing drops the reference and leaves the rest to the garbage collector.
 */
final class HeapTensor extends AbstractTensor {
    private float[] floats;
    private double[] doubles;

    HeapTensor(HeapScope owner, Shape shape, float[] data) {
        super(owner, shape, DType.F32);
        this.floats = data;
    }

    HeapTensor(HeapScope owner, Shape shape, double[] data) {
        super(owner, shape, DType.F64);
        this.doubles = data;
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
    }
}
