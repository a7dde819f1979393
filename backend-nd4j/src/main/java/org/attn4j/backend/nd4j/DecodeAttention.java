package org.attn4j.backend.nd4j;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.ShapeChecks;
import org.attn4j.api.spi.VisibleKeys;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.transforms.custom.SoftMax;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Attention of a few queries against a key/value cache, on views of the cache: nothing of {@code k} or {@code v}
 * is copied, and only the keys some query sees are read. With {@code P_kv = P / g} key/value problems (grouped
 * queries: {@code g} query heads per kv head, {@code g = 1} without) and the visible key range
 * {@code [lo, hi)} of {@link VisibleKeys} ({@code lo} the first key of the first query, {@code hi} one past the
 * last key of the last; {@code n = hi - lo}):
 * <pre>
 *   Q = q viewed as [P_kv, g·Lq, d_k]          a reshape of the C-ordered q, no copy
 *   K = k viewed as [P_kv, Lk, d_k], keys [lo, hi)   a strided view, each problem's rows contiguous
 *   S = cap(scale · Q·Kᵀ)                      [P_kv, g·Lq, n], one CBLAS call per problem ({@link BlasProducts})
 *   S += additive, -∞ where the mask forbids    the masks' windows over keys [lo, hi)
 *   S += -∞ where query i does not see key j    only when the queries' ranges differ (Lq &gt; 1)
 *   W = softmax(S)                              libnd4j's native softmax
 *   W = dropout(W)                              the hash of each weight's index in [..., Lq, Lk]
 *   out = W·V                                   [P_kv, g·Lq, d_v] = [..., Lq, d_v], one CBLAS call per problem
 * </pre>
 * with {@code cap(x) = c·tanh(x / c)} for a logit soft-cap {@code c}, else {@code x}.
 * libnd4j's softmax answers NaN for an all -∞ row, where attn4j wants zeros. A NaN weight makes its whole output
 * row NaN, so the (small) output is checked on the host instead of the logits: if it holds a NaN or ±∞, the
 * logits are computed again and {@link Kernels#stableSoftmax} gives attn4j's zeros and NaNs.
 * Row {@code r} of problem {@code p} is query {@code r mod Lq} of head {@code p·g + r / Lq}: the query heads of a
 * group are consecutive, so the grouped reshape of {@code q} and of the output is the identity on memory. Keys
 * outside {@code [lo, hi)} (cache capacity past the key length, keys before a window) are never read, so a cache of
 * capacity {@code C} costs {@code O(n)} per call, not {@code O(C)}.
 * <p>
 * Threads: the products go to OpenBLAS, which threads the large ones; the softmax and the mask additions run on the calling thread
 * alone, as every libnd4j call of an op ({@link Intermediates}).
 */
final class DecodeAttention {
    /** The most queries a call without a decoding option may have to be computed here rather than in tiles. */
    static final int MAX_QUERIES = 16;

    private DecodeAttention() {
    }

    /**
     * @param options the call's options, {@linkplain VisibleKeys#simplified simplified}
     * @param shape the call's dimensions
     * @param budget the most logits a call may hold
     * @return whether this route computes the call: no returned weights; few queries, or a decoding option
     *     ({@link VisibleKeys#beyondTopLeftCausal}) that the tiles do not handle; logits within {@code budget}
     */
    static boolean suits(AttentionOptions options, ShapeChecks.AttentionShape shape, long budget) {
        if (options.returnWeights()) {
            return false;
        }
        if (shape.queries() > MAX_QUERIES && !VisibleKeys.beyondTopLeftCausal(options, shape)) {
            return false;
        }
        Range range = Range.of(options, shape);
        return (long) shape.problems() * shape.queries() * range.size() <= budget;
    }

    /**
     * @param q {@code [..., H, Lq, d_k]}, C-ordered; not modified
     * @param k {@code [..., H_kv, Lk, d_k]}, C-ordered; not modified
     * @param v {@code [..., H_kv, Lk, d_v]}, C-ordered; not modified
     * @param additive the additive mask, broadcastable to {@code [..., Lq, Lk]}, or null; not modified
     * @param options masks, scale, dropout, causality, window and key length (weights are not returned)
     * @param shape the call's dimensions
     * @param dtype the element type
     * @param t receives every intermediate array
     * @return a new array {@code [..., Lq, d_v]}; the caller owns it
     */
    static INDArray compute(INDArray q, INDArray k, INDArray v, INDArray additive, AttentionOptions options,
                            ShapeChecks.AttentionShape shape, DType dtype, Intermediates t) {
        int group = shape.groupSize();
        int kvProblems = shape.problems() / group;
        int rows = group * shape.queries();
        Range range = Range.of(options, shape);
        INDArray output = t.add(NdArrays.uninitialized(dtype, shape.output()));
        if (range.size() == 0) {
            return t.keep(output.assign(0));
        }
        int n = range.size();
        Block q3 = new Block(q, kvProblems, rows, shape.keyDim(), 0, rows);
        Block k3 = new Block(k, kvProblems, shape.keys(), shape.keyDim(), range.lo, n);
        Block v3 = new Block(v, kvProblems, shape.keys(), shape.valueDim(), range.lo, n);
        Block s = new Block(t.add(NdArrays.uninitialized(dtype, Shape.of(kvProblems, rows, n))), kvProblems, rows, n,
                0, rows);
        Block out3 = new Block(output, kvProblems, rows, shape.valueDim(), 0, rows);
        INDArray visible = range.uniform ? null
                : t.add(Kernels.additive(range.mask(new VisibleKeys(options, shape.queries(), shape.keys()),
                        shape.queries()), dtype));
        logits(q3, k3, additive, visible, options, shape, range, s, dtype, t);
        Nd4j.exec(new SoftMax(s.x, s.x, 2));
        weigh(s, v3, out3, options, shape, range, t);
        if (!Kernels.finiteOnHost(output)) {
            logits(q3, k3, additive, visible, options, shape, range, s, dtype, t);
            Kernels.stableSoftmax(s.x, s.x, 2, t);
            weigh(s, v3, out3, options, shape, range, t);
        }
        return t.keep(output);
    }

    /** {@code out = dropout(weights)·V}: dropout by the index of each weight in {@code [..., Lq, Lk]}. */
    private static void weigh(Block weights, Block v3, Block out, AttentionOptions options,
                              ShapeChecks.AttentionShape shape, Range range, Intermediates t) {
        long n = range.size();
        long lk = shape.keys();
        Kernels.dropoutInPlace(weights.x, options.dropoutP(), options.dropoutSeed(),
                i -> i / n * lk + range.lo + i % n, t);
        if (!BlasProducts.multiply(weights.operand(), v3.operand(), out.operand(), weights.problems, weights.count,
                v3.dim, v3.count, false, 1.0)) {
            Kernels.matmul(weights.view(), v3.view(), out.view(), false, false, 1.0);
        }
    }

    /**
     * Rows {@code [first, first + count)} of a C-ordered array {@code x} viewed as {@code [P, length, dim]}: as an
     * operand for {@link BlasProducts}, or else as an ND4J view (never a copy).
     */
    private record Block(INDArray x, int problems, int length, int dim, int first, int count) {
        BlasProducts.Operand operand() {
            return BlasProducts.Operand.rows(x, problems, length, dim, first, count);
        }

        INDArray view() {
            INDArray whole = x.reshape('c', problems, length, dim);
            return first == 0 && count == length ? whole
                    : whole.get(NDArrayIndex.all(), NDArrayIndex.interval(first, first + count), NDArrayIndex.all());
        }
    }

    /** Fills {@code s} with {@code scale·Q·Kᵀ}, soft-capped if asked, plus every mask over keys {@code [lo, hi)}. */
    private static void logits(Block q3, Block k3, INDArray additive, INDArray visible,
                               AttentionOptions options, ShapeChecks.AttentionShape shape, Range range,
                               Block s, DType dtype, Intermediates t) {
        double scale = options.scaleFor(shape.keyDim());
        if (!BlasProducts.multiply(q3.operand(), k3.operand(), s.operand(), q3.problems, q3.count, k3.count, q3.dim,
                true, scale)) {
            Kernels.matmul(q3.view(), k3.view(), s.view(), false, true, scale);
        }
        INDArray full = s.x.reshape('c', NdArrays.dims(shape.batch().append(shape.queries(), range.size())));
        if (options.logitSoftcap() > 0) {
            Kernels.softcapInPlace(full, options.logitSoftcap());
        }
        if (additive != null) {
            INDArray padded = additive.reshape('c',
                    NdArrays.dims(TiledAttention.padded(TiledAttention.shape(additive), shape.weights().rank())));
            Nd4jOps.Kind.ADD.exec(full, t.add(padded.get(TiledAttention.window(padded, 0, shape.queries(),
                    range.lo, range.size())).dup('c')), full);
        }
        if (options.mask() != null) {
            Mask part = TiledAttention.window(options.mask(), shape.weights(), 0, shape.queries(), range.lo,
                    range.size());
            Nd4jOps.Kind.ADD.exec(full, t.add(Kernels.additive(part, dtype)), full);
        }
        if (visible != null) {
            Nd4jOps.Kind.ADD.exec(full, visible, full);
        }
    }

    /**
     * The keys {@code [lo, hi)} that some query of the call sees, and whether every query sees all of them.
     *
     * @param lo the first key of the first query
     * @param hi one past the last key of the last query, at least {@code lo}
     * @param uniform whether every query sees exactly {@code [lo, hi)}
     */
    private record Range(int lo, int hi, boolean uniform) {
        static Range of(AttentionOptions options, ShapeChecks.AttentionShape shape) {
            VisibleKeys visible = new VisibleKeys(options, shape.queries(), shape.keys());
            int lo = visible.first(0);
            int hi = Math.max(lo, visible.end(shape.queries() - 1));
            boolean uniform = true;
            for (int i = 0; i < shape.queries() && uniform; i++) {
                uniform = visible.first(i) == lo && visible.end(i) == hi;
            }
            return new Range(lo, hi, uniform);
        }

        int size() {
            return hi - lo;
        }

        /** @return the {@code [Lq, n]} mask of which query sees which key of the range */
        Mask mask(VisibleKeys visible, int queries) {
            int n = size();
            boolean[] allowed = new boolean[queries * n];
            for (int i = 0; i < queries; i++) {
                for (int j = Math.max(visible.first(i), lo); j < Math.min(visible.end(i), hi); j++) {
                    allowed[i * n + j - lo] = true;
                }
            }
            return Mask.of(Shape.of(queries, n), allowed);
        }
    }
}
