package org.attn4j.backend.cuda;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;

/**
 * The {@code kernelParams} of one {@code cuLaunchKernel}, built in declaration order with the type of each
 * value recorded so that {@link CudaContext#launch} can check them against {@link Kernel#params()}.
 */
final class KernelArgs {
    private final String op;
    private final List<ParamType> types = new ArrayList<>();
    private final List<Object> values = new ArrayList<>();
    private final List<Pointer> pointers = new ArrayList<>();

    /** @param op the op name used in messages about malformed arguments */
    KernelArgs(String op) {
        this.op = op;
    }

    /**
     * @param pointer a device pointer, or null for the kernel's "absent" (0)
     * @return this
     */
    KernelArgs pointer(CUdeviceptr pointer) {
        return add(ParamType.POINTER, pointer, pointer == null ? Pointer.to(new long[] {0L}) : Pointer.to(pointer));
    }

    /**
     * @param value an int
     * @return this
     */
    KernelArgs i32(int value) {
        return add(ParamType.INT, value, Pointer.to(new int[] {value}));
    }

    /**
     * @param value a long
     * @return this
     */
    KernelArgs i64(long value) {
        return add(ParamType.LONG, value, Pointer.to(new long[] {value}));
    }

    /**
     * @param value a float
     * @return this
     */
    KernelArgs f32(float value) {
        return add(ParamType.FLOAT, value, Pointer.to(new float[] {value}));
    }

    /**
     * @param value a double
     * @return this
     */
    KernelArgs f64(double value) {
        return add(ParamType.DOUBLE, value, Pointer.to(new double[] {value}));
    }

    /**
     * @param dims a shape of rank at most 8, passed as {@code Attn4jShape}
     * @return this
     */
    KernelArgs shape(int[] dims) {
        int[] packed = StridedLayout.packShape(op, dims);
        return add(ParamType.SHAPE, packed, Pointer.to(packed));
    }

    /**
     * @param strides strides of rank at most 8, passed as {@code Attn4jStrides}
     * @return this
     */
    KernelArgs strides(int[] strides) {
        int[] packed = StridedLayout.packStrides(op, strides);
        return add(ParamType.STRIDES, packed, Pointer.to(packed));
    }

    /**
     * @param rows where the rows of a set of matrices lie, passed as {@code Attn4jRows}
     * @return this
     */
    KernelArgs rows(RowLayout rows) {
        int[] packed = rows.pack();
        return add(ParamType.ROWS, packed, Pointer.to(packed));
    }

    /** @return the op these arguments belong to */
    String op() {
        return op;
    }

    /** @return the types added so far, in order */
    List<ParamType> types() {
        return List.copyOf(types);
    }

    /**
     * @return the Java values in order: a {@code CUdeviceptr} or null, a boxed number, or the packed
     *         {@code int[]} of a shape, strides or rows struct
     */
    List<Object> values() {
        return Collections.unmodifiableList(values);
    }

    /** @return the array of pointers to each value, as {@code cuLaunchKernel} takes it */
    Pointer kernelParams() {
        return Pointer.to(pointers.toArray(new Pointer[0]));
    }

    /**
     * @param kernel the kernel about to be launched
     * @throws IllegalStateException naming the op, the kernel and both type lists if they differ
     */
    void requireMatches(Kernel kernel) {
        if (!types.equals(kernel.params())) {
            throw new IllegalStateException(op + ": arguments " + types + " do not match kernel " + kernel.symbol()
                    + " " + kernel.params());
        }
    }

    private KernelArgs add(ParamType type, Object value, Pointer pointer) {
        types.add(type);
        values.add(value);
        pointers.add(pointer);
        return this;
    }
}
