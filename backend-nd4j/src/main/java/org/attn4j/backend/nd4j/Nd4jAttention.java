package org.attn4j.backend.nd4j;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.spi.ShapeChecks;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Scaled dot-product attention on libnd4j's native kernels, with attn4j's semantics, one block of query rows at a
 * time:
 * <pre>
 *   logits  = scale · q·kᵀ          one batched GEMM into a [..., rows, Lk] array, scale applied as GEMM's alpha
 *   logits += additiveMask          broadcast add, in place
 *   logits += -∞ where mask is false, then where causal and j &gt; i   (host-built additive masks)
 *   weights = softmax(logits)       libnd4j's native softmax, in place; if it answers NaN anywhere (a fully
 *                                   masked row, or NaN/∞ in the logits) the logits are computed again and
 *                                   {@link Kernels#stableSoftmax} gives attn4j's zeros and NaNs
 *   weights = dropout(weights)      the {@link org.attn4j.api.spi.Dropout} hash of the index in [..., Lq, Lk]
 *   output  = weights·v             one batched GEMM
 * </pre>
 * A block holds as many query rows as keep its logits within {@link #LOGITS_PER_BLOCK} elements (at least one row),
 * so memory grows with {@code Lk} times the block, not with {@code Lq·Lk}; when the weights are returned they are
 * one block. ND4J's own {@code dot_product_attention} op is not used: its mask is a multiplicative key mask of
 * shape {@code [batch, Lk]}, it has no causal flag, additive mask, explicit scale or seeded dropout, and it answers
 * NaN for a fully masked row.
 */
final class Nd4jAttention {
    /** The most logits one block holds: 2^23 elements, 32 MB in F32. */
    static final long LOGITS_PER_BLOCK = 1L << 23;

    private Nd4jAttention() {
    }

    /**
     * @param scope receives the output and, if asked, the weights
     * @param q {@code [..., Lq, d_k]} as an array; not modified
     * @param k {@code [..., Lk, d_k]} as an array; not modified
     * @param v {@code [..., Lk, d_v]} as an array; not modified
     * @param additive the additive mask's array, or null
     * @param qt the tensor of {@code q}, for shape checks
     * @param kt the tensor of {@code k}
     * @param vt the tensor of {@code v}
     * @param options masks, scale, dropout and returned weights
     * @param logitsPerBlock the most logits one block of query rows may hold
     * @return the output {@code [..., Lq, d_v]} and, if asked, the weights {@code [..., Lq, Lk]}
     */
    static AttentionResult compute(Nd4jScope scope, INDArray q, INDArray k, INDArray v, INDArray additive,
                                   Tensor qt, Tensor kt, Tensor vt, AttentionOptions options, long logitsPerBlock) {
        ShapeChecks.AttentionShape shape = ShapeChecks.attention(qt, kt, vt, options);
        DType dtype = qt.dtype();
        long perRow = (long) shape.problems() * shape.keys();
        int rows = options.returnWeights() ? shape.queries()
                : (int) Math.max(1, Math.min(shape.queries(), logitsPerBlock / perRow));
        if (rows == shape.queries()) {
            try (Intermediates t = new Intermediates()) {
                INDArray weights = t.add(block(q, k, v, additive, options, shape, dtype, 0, rows, t));
                INDArray output = t.add(NdArrays.uninitialized(dtype, shape.output()));
                Kernels.matmul(weights, v, output, false, false, 1.0);
                Tensor out = scope.wrap(t.keep(output), shape.output(), dtype);
                Tensor w = options.returnWeights() ? scope.wrap(t.keep(weights), shape.weights(), dtype) : null;
                return new AttentionResult(out, w);
            }
        }
        return new AttentionResult(scope.fresh(shape.output(), dtype, t -> {
            INDArray output = t.add(NdArrays.uninitialized(dtype, shape.output()));
            for (int first = 0; first < shape.queries(); first += rows) {
                int count = Math.min(rows, shape.queries() - first);
                try (Intermediates b = new Intermediates()) {
                    INDArray qRows = b.add(q.get(rowRange(q.rank(), first, count)).dup('c'));
                    INDArray weights = b.add(block(qRows, k, v, additive, options, shape, dtype, first, count, b));
                    INDArray out = b.add(NdArrays.uninitialized(dtype, shape.batch().append(count, shape.valueDim())));
                    Kernels.matmul(weights, v, out, false, false, 1.0);
                    output.get(rowRange(output.rank(), first, count)).assign(out);
                }
            }
            return output;
        }), null);
    }

    /**
     * @return the softmax weights of query rows {@code [first, first + count)}, after dropout, as a new array
     *     {@code [..., count, Lk]}
     */
    private static INDArray block(INDArray q, INDArray k, INDArray v, INDArray additive, AttentionOptions options,
                                  ShapeChecks.AttentionShape shape, DType dtype, int first, int count,
                                  Intermediates t) {
        Shape blockShape = shape.batch().append(count, shape.keys());
        INDArray logits = NdArrays.uninitialized(dtype, blockShape);
        try {
            int last = blockShape.rank() - 1;
            logits(q, k, additive, options, shape, dtype, first, count, logits, t);
            if (!Kernels.softmaxIfFinite(logits, logits, last)) {
                logits(q, k, additive, options, shape, dtype, first, count, logits, t);
                Kernels.stableSoftmax(logits, logits, last, t);
            }
            long rowsTimesKeys = (long) count * shape.keys();
            Kernels.dropoutInPlace(logits, options.dropoutP(), options.dropoutSeed(),
                    i -> ((i / rowsTimesKeys) * shape.queries() + first) * shape.keys() + i % rowsTimesKeys, t);
            return logits;
        } catch (RuntimeException | Error e) {
            logits.close();
            throw e;
        }
    }

    /**
     * Fills {@code logits} with {@code scale·q·kᵀ + additiveMask} for query rows {@code [first, first + count)},
     * -∞ where the mask or causality forbids.
     */
    private static void logits(INDArray q, INDArray k, INDArray additive, AttentionOptions options,
                               ShapeChecks.AttentionShape shape, DType dtype, int first, int count,
                               INDArray logits, Intermediates t) {
        boolean whole = count == shape.queries();
        Kernels.matmul(q, k, logits, false, true, options.scaleFor(shape.keyDim()));
        if (additive != null) {
            INDArray rows = whole || additive.rank() < 2 || additive.size(additive.rank() - 2) == 1
                    ? additive : t.add(additive.get(rowRange(additive.rank(), first, count)).dup('c'));
            Nd4jOps.Kind.ADD.exec(logits, rows, logits);
        }
        if (options.mask() != null) {
            Mask mask = whole ? options.mask() : maskRows(options.mask(), shape.queries(), first, count);
            Nd4jOps.Kind.ADD.exec(logits, t.add(Kernels.additive(mask, dtype)), logits);
        }
        if (options.causal()) {
            boolean[] allowed = new boolean[count * shape.keys()];
            for (int r = 0; r < count; r++) {
                for (int j = 0; j <= Math.min(first + r, shape.keys() - 1); j++) {
                    allowed[r * shape.keys() + j] = true;
                }
            }
            Mask causal = Mask.of(Shape.of(count, shape.keys()), allowed);
            Nd4jOps.Kind.ADD.exec(logits, t.add(Kernels.additive(causal, dtype)), logits);
        }
    }

    /** @return the part of {@code mask} that applies to query rows {@code [first, first + count)} */
    private static Mask maskRows(Mask mask, int queries, int first, int count) {
        Shape s = mask.shape();
        if (s.rank() < 2 || s.dim(-2) == 1) {
            return mask;
        }
        int keys = s.dim(-1);
        int[] dims = s.toArray();
        dims[dims.length - 2] = count;
        Shape rows = Shape.of(dims);
        boolean[] allowed = new boolean[(int) rows.size()];
        for (int i = 0; i < allowed.length; i++) {
            int outer = i / (count * keys);
            int row = i / keys % count;
            allowed[i] = mask.allowed((outer * queries + first + row) * keys + i % keys);
        }
        return Mask.of(rows, allowed);
    }

    /** @return indices selecting rows {@code [first, first + count)} of axis {@code rank - 2}, all of the rest */
    private static INDArrayIndex[] rowRange(int rank, int first, int count) {
        INDArrayIndex[] index = new INDArrayIndex[rank];
        for (int i = 0; i < rank; i++) {
            index[i] = i == rank - 2 ? NDArrayIndex.interval(first, first + count) : NDArrayIndex.all();
        }
        return index;
    }
}
