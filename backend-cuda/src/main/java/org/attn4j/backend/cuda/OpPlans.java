package org.attn4j.backend.cuda;

import java.util.Arrays;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.Strides;

/**
 * How each op maps its shapes onto a kernel's arguments; pure arithmetic, no device. All tensors of this
 * backend are contiguous row-major.
 */
final class OpPlans {

    /**
     * A tensor viewed as {@code [outer, n, inner]} around one axis.
     *
     * @param outer product of the dims before the axis
     * @param n     the axis' size
     * @param inner product of the dims after the axis
     */
    record AxisView(int outer, int n, int inner) {
    }

    /**
     * Arguments of {@code attn4j_gemm_f32} for {@code C[b] = op(A[b])·op(B[b])}.
     *
     * @param m        rows of C
     * @param n        columns of C
     * @param k        the contracted size
     * @param batches  product of C's batch dims
     * @param batch    C's batch dims after {@link StridedLayout#collapse}
     * @param stridesA element offset of A per unit of each batch dim, 0 where A is broadcast
     * @param stridesB element offset of B per unit of each batch dim, 0 where B is broadcast
     */
    record Gemm(int m, int n, int k, int batches, int[] batch, int[] stridesA, int[] stridesB) {
    }

    /**
     * The {@code maskShape}, {@code maskStrides} and {@code addStrides} arguments of the attention and softmax
     * kernels for logits {@code [..., Lq, Lk]}.
     *
     * @param dims        collapsed batch dims followed by {@code Lq, Lk}
     * @param maskStrides the boolean mask's strides over {@code dims}, zeros if there is none
     * @param addStrides  the additive mask's strides over {@code dims}, zeros if there is none
     */
    record MaskLayout(int[] dims, int[] maskStrides, int[] addStrides) {
    }

    private OpPlans() {
    }

    /**
     * @param x    the tensor's shape, rank at least 1
     * @param axis a normalised axis
     * @return {@code x} as {@code [outer, n, inner]}
     */
    static AxisView axis(Shape x, int axis) {
        int[] d = x.toArray();
        long outer = 1;
        long inner = 1;
        for (int i = 0; i < axis; i++) {
            outer *= d[i];
        }
        for (int i = axis + 1; i < d.length; i++) {
            inner *= d[i];
        }
        return new AxisView(Math.toIntExact(outer), d[axis], Math.toIntExact(inner));
    }

    /**
     * The walk of a broadcasting binary op: element {@code i} of the contiguous result reads {@code a} and
     * {@code b} at {@code offset(i)} through the returned strides (operands 0 and 1).
     *
     * @param op  the op name for messages
     * @param a   the first operand's shape
     * @param b   the second operand's shape
     * @param out their broadcast shape
     * @return the collapsed walk
     */
    static StridedLayout.Walk binary(String op, Shape a, Shape b, Shape out) {
        int[] dims = out.toArray();
        return StridedLayout.collapse(dims, Strides.broadcast(op, "a", a, out), Strides.broadcast(op, "b", b, out));
    }

    /**
     * @param a          A's shape {@code [..., m, k]} (or {@code [..., k, m]} if transposed)
     * @param b          B's shape {@code [..., k, n]} (or {@code [..., n, k]} if transposed)
     * @param transposeA whether A is stored transposed
     * @param transposeB whether B is stored transposed
     * @param out        the result shape {@code [batch..., m, n]}, as {@code ShapeChecks.matmul} computed it
     * @return the GEMM arguments
     */
    static Gemm gemm(Shape a, Shape b, boolean transposeA, boolean transposeB, Shape out) {
        int rank = out.rank();
        int m = out.dim(rank - 2);
        int n = out.dim(rank - 1);
        int k = transposeA ? a.dim(a.rank() - 2) : a.dim(a.rank() - 1);
        int[] batch = out.slice(0, rank - 2).toArray();
        int[] sa = batchStrides("matmul", "a", a, batch);
        int[] sb = batchStrides("matmul", "b", b, batch);
        StridedLayout.Walk walk = StridedLayout.collapse(batch, sa, sb);
        long batches = 1;
        for (int d : batch) {
            batches *= d;
        }
        return new Gemm(m, n, k, Math.toIntExact(batches), walk.dims(), walk.strides()[0], walk.strides()[1]);
    }

    /**
     * The copy walk of {@code permute}: result element {@code i} (contiguous) reads {@code x} through
     * operand 0's strides.
     *
     * @param x    the input shape
     * @param axes result axis {@code i} is input axis {@code axes[i]}
     * @return the collapsed walk; operand 0 is the source, operand 1 the contiguous destination
     */
    static StridedLayout.Walk permute(Shape x, int[] axes) {
        int[] src = Strides.contiguous(x);
        int[] dims = new int[axes.length];
        int[] strides = new int[axes.length];
        for (int i = 0; i < axes.length; i++) {
            dims[i] = x.dim(axes[i]);
            strides[i] = src[axes[i]];
        }
        return StridedLayout.collapse(dims, strides, Strides.contiguous(Shape.of(dims)));
    }

    /**
     * The copy walk between a part and its slab of a larger tensor along {@code axis} (concat writes parts into
     * the whole, split reads them out); the slab's start is a separate base offset.
     *
     * @param part  the part's shape
     * @param whole the whole tensor's shape, equal to {@code part} except along {@code axis}
     * @return the collapsed walk; operand 0 walks the contiguous part, operand 1 the slab of the whole
     */
    static StridedLayout.Walk slab(Shape part, Shape whole) {
        int[] dims = part.toArray();
        return StridedLayout.collapse(dims, Strides.contiguous(part), Strides.contiguous(whole));
    }

    /**
     * @param batch    the leading dims of q, k and v
     * @param queries  Lq
     * @param keys     Lk
     * @param mask     the boolean mask's shape, or null
     * @param additive the additive mask's shape, or null
     * @return the mask arguments over {@code [batch..., Lq, Lk]}
     */
    static MaskLayout masks(Shape batch, int queries, int keys, Shape mask, Shape additive) {
        Shape weights = batch.append(queries, keys);
        int[] full = weights.toArray();
        int[] ms = mask == null ? new int[full.length] : Strides.broadcast("attention", "mask", mask, weights);
        int[] as = additive == null ? new int[full.length]
                : Strides.broadcast("attention", "additiveMask", additive, weights);
        int lead = full.length - 2;
        StridedLayout.Walk walk = StridedLayout.collapse(Arrays.copyOf(full, lead), Arrays.copyOf(ms, lead),
                Arrays.copyOf(as, lead));
        int r = walk.dims().length;
        int[] dims = Arrays.copyOf(walk.dims(), r + 2);
        int[] maskStrides = Arrays.copyOf(walk.strides()[0], r + 2);
        int[] addStrides = Arrays.copyOf(walk.strides()[1], r + 2);
        dims[r] = queries;
        dims[r + 1] = keys;
        maskStrides[r] = ms[lead];
        maskStrides[r + 1] = ms[lead + 1];
        addStrides[r] = as[lead];
        addStrides[r + 1] = as[lead + 1];
        return new MaskLayout(dims, maskStrides, addStrides);
    }

    private static int[] batchStrides(String op, String arg, Shape operand, int[] batch) {
        int rank = operand.rank();
        int[] strides = Strides.broadcast(op, arg, operand.slice(0, rank - 2), Shape.of(batch));
        long matrix = (long) operand.dim(rank - 2) * operand.dim(rank - 1);
        for (int i = 0; i < strides.length; i++) {
            strides[i] = Math.toIntExact(strides[i] * matrix);
        }
        return strides;
    }
}
