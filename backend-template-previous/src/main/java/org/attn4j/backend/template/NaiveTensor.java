package org.attn4j.backend.template;

import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.AbstractTensor;

/**
 * A tensor on the Java heap: row-major values in a {@code double[]}. An F32 tensor holds values already rounded to
 * float, so that every op computes in double and rounds its F32 result once. The array is never written after the
 * tensor is made.
 */
final class NaiveTensor extends AbstractTensor {
    private double[] values;

    NaiveTensor(AbstractScope owner, Shape shape, DType dtype, double[] values) {
        super(owner, shape, dtype);
        if (dtype == DType.F32) {
            for (int i = 0; i < values.length; i++) {
                values[i] = (float) values[i];
            }
        }
        this.values = values;
    }

    /** @return the values, not copied: ops only read them, after {@code AbstractScope.operand} checked this tensor */
    double[] values() {
        return values;
    }

    @Override
    public float[] toFloatArray() {
        return reading("toFloatArray", () -> {
            double[] v = values;
            float[] out = new float[v.length];
            for (int i = 0; i < v.length; i++) {
                out[i] = (float) v[i];
            }
            return out;
        });
    }

    @Override
    public double[] toDoubleArray() {
        return reading("toDoubleArray", () -> values.clone());
    }

    @Override
    protected void release() {
        values = null;
    }
}
