package org.attn4j.backend.ejml;

import org.attn4j.api.DType;

/** Data movement: gathers by an offset table, and block copies for concat and split. */
final class Layout {

    private Layout() {
    }

    /**
     * @param source a {@code float[]} or {@code double[]}, not modified
     * @param offsets the source offset of each result element
     * @return {@code out[i] = source[offsets[i]]}, of the source's type
     */
    static Object gather(Object source, int[] offsets) {
        if (source instanceof float[] f) {
            float[] out = ArrayPool.floats(offsets.length, false);
            for (int i = 0; i < out.length; i++) {
                out[i] = f[offsets[i]];
            }
            return out;
        }
        double[] d = (double[]) source;
        double[] out = ArrayPool.doubles(offsets.length, false);
        for (int i = 0; i < out.length; i++) {
            out[i] = d[offsets[i]];
        }
        return out;
    }

    /**
     * Copies {@code outer} blocks of {@code block} elements from {@code source} (stride {@code block}) into
     * {@code target} at {@code targetStart}, stride {@code targetStride}; the inverse with {@code fromTarget}.
     *
     * @param source the packed array, read when {@code fromTarget} is false, written otherwise
     * @param target the strided array, written when {@code fromTarget} is false, read otherwise
     * @param outer the number of blocks
     * @param block the elements per block
     * @param targetStart the first block's offset in {@code target}
     * @param targetStride the distance between blocks in {@code target}
     * @param fromTarget the copy direction
     */
    static void blocks(Object source, Object target, int outer, int block, int targetStart, int targetStride,
                       boolean fromTarget) {
        for (int o = 0; o < outer; o++) {
            if (fromTarget) {
                System.arraycopy(target, targetStart + o * targetStride, source, o * block, block);
            } else {
                System.arraycopy(source, o * block, target, targetStart + o * targetStride, block);
            }
        }
    }

    /**
     * @param source a {@code float[]} or {@code double[]}, not modified
     * @param dtype the target type
     * @return a converted copy, rounded to nearest when narrowing; the source itself when the type already fits
     */
    static Object cast(Object source, DType dtype) {
        if (source instanceof float[] f) {
            if (dtype == DType.F32) {
                return f;
            }
            double[] out = new double[f.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = f[i];
            }
            return out;
        }
        double[] d = (double[]) source;
        if (dtype == DType.F64) {
            return d;
        }
        float[] out = new float[d.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) d[i];
        }
        return out;
    }
}
