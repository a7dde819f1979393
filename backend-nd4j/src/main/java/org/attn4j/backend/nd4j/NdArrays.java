package org.attn4j.backend.nd4j;

import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Conversions between attn4j's and ND4J's descriptions of an array, and detached allocation. */
final class NdArrays {

    private NdArrays() {
    }

    /**
     * @param shape an attn4j shape
     * @return its dims as ND4J wants them
     */
    static long[] dims(Shape shape) {
        int[] d = shape.toArray();
        long[] out = new long[d.length];
        for (int i = 0; i < d.length; i++) {
            out[i] = d[i];
        }
        return out;
    }

    /**
     * @param dtype an attn4j element type
     * @return ND4J's
     */
    static DataType type(DType dtype) {
        return dtype == DType.F64 ? DataType.DOUBLE : DataType.FLOAT;
    }

    /**
     * @param dtype the element type
     * @param shape the shape
     * @return a new C-ordered array outside any workspace, contents undefined
     */
    static INDArray uninitialized(DType dtype, Shape shape) {
        return Nd4j.createUninitializedDetached(type(dtype), dims(shape));
    }

    /**
     * @param values row-major values
     * @param dtype the element type of the array
     * @param shape the shape, of {@code values.length} elements
     * @return a new detached array holding {@code values} converted to {@code dtype}
     */
    static INDArray fromHost(double[] values, DType dtype, Shape shape) {
        INDArray out = uninitialized(dtype, shape);
        if (dtype == DType.F64) {
            out.data().setData(values);
        } else {
            float[] f = new float[values.length];
            for (int i = 0; i < f.length; i++) {
                f[i] = (float) values[i];
            }
            out.data().setData(f);
        }
        return out;
    }
}
