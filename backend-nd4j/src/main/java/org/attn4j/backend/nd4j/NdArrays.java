package org.attn4j.backend.nd4j;

import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.AbstractScope;
import org.attn4j.api.spi.ShapeChecks;
import org.bytedeco.javacpp.Pointer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Conversions between attn4j's and ND4J's descriptions of an array, and detached allocation. */
final class NdArrays {
    /** Arrays up to this size are allocated without asking the system how much memory is free. */
    private static final long CHECKED_BYTES = 1L << 28;

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
        checkFits(AbstractScope.runningOp("tensor"), shape, dtype);
        return Nd4j.createUninitializedDetached(type(dtype), dims(shape));
    }

    /**
     * Checks, before libnd4j allocates (where a failure is a bare {@code std::bad_alloc}), that an array of more than
     * {@value #CHECKED_BYTES} bytes fits in the physical memory available now.
     *
     * @param op the op name for the message
     * @param shape the array's shape
     * @param dtype its element type
     * @throws IllegalArgumentException naming the op, the shape and the bytes if it does not fit
     */
    static void checkFits(String op, Shape shape, DType dtype) {
        if (shape.size() > CHECKED_BYTES / dtype.byteSize()) {
            ShapeChecks.fits(op, shape, dtype, Pointer.availablePhysicalBytes(),
                    "the physical memory available to backend nd4j now");
        }
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

    /**
     * @param x a C-contiguous F32 or F64 array; not modified
     * @return its elements, row-major, rounded to F32 from F64; one bulk copy, not a native call per element
     */
    static float[] toFloats(INDArray x) {
        float[] out = new float[Math.toIntExact(x.length())];
        if (x.dataType() == DataType.DOUBLE) {
            DoubleBuffer in = HostNorms.doubles(x);
            for (int i = 0; i < out.length; i++) {
                out[i] = (float) in.get(i);
            }
        } else {
            HostNorms.floats(x).get(out);
        }
        return out;
    }

    /**
     * @param x a C-contiguous F32 or F64 array; not modified
     * @return its elements, row-major, widened to F64 from F32; one bulk copy, not a native call per element
     */
    static double[] toDoubles(INDArray x) {
        double[] out = new double[Math.toIntExact(x.length())];
        if (x.dataType() == DataType.DOUBLE) {
            HostNorms.doubles(x).get(out);
        } else {
            FloatBuffer in = HostNorms.floats(x);
            for (int i = 0; i < out.length; i++) {
                out[i] = in.get(i);
            }
        }
        return out;
    }
}
