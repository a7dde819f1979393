package org.attn4j.backend.ejml;

import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.Strides;

/** Data movement: permuted copies, and block copies for concat and split. */
final class Layout {

    private Layout() {
    }

    /**
     * The permuted copy {@code out[i_0 … i_r-1] = x[j]} with {@code j_axes[a] = i_a}. The trailing axes that stay in
     * place are one contiguous run of the source, copied whole ({@code [B, L, H, d]} to {@code [B, H, L, d]} copies
     * runs of {@code d}); where the last axis moves, its elements are read at their source stride. No offset table.
     *
     * @param source a {@code float[]} or {@code double[]}, row-major under {@code shape}, not modified
     * @param shape the source's shape
     * @param axes a permutation of {@code 0..r-1} that moves an axis (the spi hands the others to reshape): result
     *     axis {@code a} is source axis {@code axes[a]}
     * @param out the permuted shape
     * @return the permuted elements, of the source's type
     */
    static Object permute(Object source, Shape shape, int[] axes, Shape out) {
        int n = (int) out.size();
        Object target = source instanceof float[] ? ArrayPool.floats(n, false) : ArrayPool.doubles(n, false);
        int[] strides = Strides.contiguous(shape);
        int moved = axes.length;
        while (moved > 0 && axes[moved - 1] == moved - 1) {
            moved--;
        }
        int run = 1;
        for (int a = moved; a < axes.length; a++) {
            run *= out.dim(a);
        }
        int line = moved - 1;
        int count = out.dim(line);
        int step = strides[axes[line]];
        int[] index = new int[line];
        int from = 0;
        for (int at = 0; at < n; at += count * run) {
            if (run > 1) {
                for (int c = 0; c < count; c++) {
                    System.arraycopy(source, from + c * step, target, at + c * run, run);
                }
            } else if (source instanceof float[] f) {
                float[] t = (float[]) target;
                for (int c = 0; c < count; c++) {
                    t[at + c] = f[from + c * step];
                }
            } else {
                double[] d = (double[]) source;
                double[] t = (double[]) target;
                for (int c = 0; c < count; c++) {
                    t[at + c] = d[from + c * step];
                }
            }
            for (int a = line - 1; a >= 0; a--) {
                int stride = strides[axes[a]];
                if (++index[a] < out.dim(a)) {
                    from += stride;
                    break;
                }
                from -= stride * (out.dim(a) - 1);
                index[a] = 0;
            }
        }
        return target;
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
