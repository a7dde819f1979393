package org.attn4j.backend.nd4j;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.ShapeChecks;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * FlashAttention-2-style attention from large libnd4j calls: query blocks outer, key/value blocks inner, a running
 * row maximum {@code m} and sum {@code l} per query row, every (batch × head) problem of a tile in one batched GEMM.
 * For a query block {@code Q_b [P, Bq, d_k]} and each key block {@code K_c [P, Bk, d_k]}, {@code V_c [P, Bk, d_v]}:
 * <pre>
 *   S     = cap(scale · Q_b·K_cᵀ)  (+ additive, + -∞ where mask / causality forbids)   [P, Bq, Bk]
 *   m'    = max(m, rowmax S)          m starts at the lowest finite value, so m' is never -∞
 *   α     = exp(m - m')
 *   S     = exp(S - m')               in place
 *   l     = α·l + rowsum S            the sum before dropout, so the softmax is normalised by it
 *   S     = S · keep/(1-p)            dropout, the flat index of each weight in [..., Lq, Lk]
 *   acc   = α·acc + S·V_c             one GEMM accumulating into acc (beta = 1)
 * </pre>
 * with {@code cap(x) = c·tanh(x / c)} for a logit soft-cap {@code c}, else {@code x}.
 * and at the end {@code out = acc / l}, with {@code l = 0} (every key masked) read as 1, so such rows are zeros.
 * A NaN or +∞ logit makes its row's sum NaN and so the row NaN, as the softmax would. Causal tiles whose first key
 * lies after the block's last query are skipped; tiles crossing the diagonal get a causal -∞ tile.
 * <p>
 * Memory: besides the inputs and the output, a call holds one logits buffer {@code S} of {@code P·Bq·Bk ≤ budget}
 * elements reused by every tile, one mask window of at most that size at a time, the causal tiles of the diagonal
 * ({@code Bq·Bk} each, one per distinct offset {@code q0 - k0}: a single one for aligned square blocks, never more
 * than {@code Lq·(Bq + 2·Bk)} elements in all, with no factor {@code P}), contiguous
 * copies of the key and value blocks (one copy of {@code k} and {@code v}) and {@code acc, m, l} of one query block:
 * O(budget + P·(Lk·(d_k + d_v) + Bq·d_v)), never O(Lq·Lk).
 * Threads: every GEMM goes to OpenBLAS, whose own pthreads split it over all cores (batch × heads × rows). The
 * calls in between run on the calling thread alone: libnd4j's OpenMP workers, left running, spin after each call
 * and take the cores from OpenBLAS's threads (measured on 2 cores: a 10 µs reduction took 8 ms, the attention fell
 * to 8 GFLOP/s). The op's {@link Intermediates} set OpenMP to one thread for the calling thread while it runs.
 */
final class TiledAttention {
    /** The largest query or key block: large enough to amortise each call's launch cost, small enough to skip
     * most of the causal triangle. */
    static final int MAX_BLOCK = 512;

    private TiledAttention() {
    }

    /** The block sizes of one call. */
    record Tiles(int queries, int keys) {
        /**
         * @param shape the call's dimensions
         * @param budget the most logits a tile set may hold
         * @return blocks of at most {@link #MAX_BLOCK}, halved (the larger first) until {@code P·Bq·Bk ≤ budget},
         *     at least one row and one key each
         */
        static Tiles of(ShapeChecks.AttentionShape shape, long budget) {
            int bq = Math.min(shape.queries(), MAX_BLOCK);
            int bk = Math.min(shape.keys(), MAX_BLOCK);
            while ((long) shape.problems() * bq * bk > budget && (bq > 1 || bk > 1)) {
                if (bk >= bq) {
                    bk = Math.max(1, bk / 2);
                } else {
                    bq = Math.max(1, bq / 2);
                }
            }
            return new Tiles(bq, bk);
        }
    }

    /**
     * @param q {@code [..., Lq, d_k]}, C-ordered; not modified
     * @param k {@code [..., Lk, d_k]}, C-ordered; not modified
     * @param v {@code [..., Lk, d_v]}, C-ordered; not modified
     * @param additive the additive mask, broadcastable to {@code [..., Lq, Lk]}, or null; not modified
     * @param options masks, scale and dropout (the weights are not returned from here)
     * @param shape the call's dimensions
     * @param dtype the element type
     * @param budget the most logits one tile set may hold
     * @param t receives every intermediate array
     * @return a new array {@code [..., Lq, d_v]}; the caller owns it
     */
    static INDArray compute(INDArray q, INDArray k, INDArray v, INDArray additive, AttentionOptions options,
                            ShapeChecks.AttentionShape shape, DType dtype, long budget, Intermediates t) {
        int problems = shape.problems();
        int lq = shape.queries();
        int lk = shape.keys();
        Tiles tiles = Tiles.of(shape, budget);
        INDArray q3 = q.reshape('c', problems, lq, shape.keyDim());
        INDArray k3 = k.reshape('c', problems, lk, shape.keyDim());
        INDArray v3 = v.reshape('c', problems, lk, shape.valueDim());
        INDArray additiveFull = additive == null ? null
                : additive.reshape('c', NdArrays.dims(padded(shape(additive), shape.weights().rank())));
        int keyBlocks = (lk + tiles.keys() - 1) / tiles.keys();
        INDArray[] kBlocks = new INDArray[keyBlocks];
        INDArray[] vBlocks = new INDArray[keyBlocks];
        for (int c = 0; c < keyBlocks; c++) {
            int k0 = c * tiles.keys();
            int bk = Math.min(tiles.keys(), lk - k0);
            kBlocks[c] = t.add(k3.get(rows(k0, bk)).dup('c'));
            vBlocks[c] = t.add(v3.get(rows(k0, bk)).dup('c'));
        }
        INDArray output = t.add(NdArrays.uninitialized(dtype, shape.output()));
        INDArray out3 = output.reshape('c', problems, lq, shape.valueDim());
        Call call = new Call(options, shape, dtype, tiles, additiveFull, kBlocks, vBlocks, t);
        for (int q0 = 0; q0 < lq; q0 += tiles.queries()) {
            call.queryBlock(q3, q0, out3);
        }
        return t.keep(output);
    }

    /**
     * One call's fixed operands and the arrays it reuses from tile to tile: one logits buffer of
     * {@code P·Bq·Bk} elements, viewed as {@code [P, bq, bk]} for each block shape (full or partial query block ×
     * full or partial key block), and the causal mask tile of each offset of a diagonal tile (aligned square tiles
     * share one).
     */
    private static final class Call {
        private final AttentionOptions options;
        private final ShapeChecks.AttentionShape shape;
        private final DType dtype;
        private final Tiles tiles;
        private final INDArray additive;
        private final INDArray[] kBlocks;
        private final INDArray[] vBlocks;
        private final Intermediates t;
        private final double scale;
        private final INDArray logitsBuffer;
        private final Map<List<Integer>, INDArray> logits = new HashMap<>();
        private final Map<List<Integer>, INDArray> causalTiles = new HashMap<>();

        Call(AttentionOptions options, ShapeChecks.AttentionShape shape, DType dtype, Tiles tiles,
             INDArray additive, INDArray[] kBlocks, INDArray[] vBlocks, Intermediates t) {
            this.options = options;
            this.shape = shape;
            this.dtype = dtype;
            this.tiles = tiles;
            this.additive = additive;
            this.kBlocks = kBlocks;
            this.vBlocks = vBlocks;
            this.t = t;
            this.scale = options.scaleFor(shape.keyDim());
            this.logitsBuffer = t.add(NdArrays.uninitialized(dtype,
                    Shape.of(shape.problems(), tiles.queries(), tiles.keys())));
        }

        /** Query rows {@code [q0, q0 + Bq)}: their tiles, then their rows of {@code out3}. */
        void queryBlock(INDArray q3, int q0, INDArray out3) {
            int problems = shape.problems();
            int bq = Math.min(tiles.queries(), shape.queries() - q0);
            double lowest = dtype == DType.F64 ? -Double.MAX_VALUE : -Float.MAX_VALUE;
            try (Intermediates b = new Intermediates()) {
                INDArray qBlock = b.add(q3.get(rows(q0, bq)).dup('c'));
                INDArray acc = b.add(Nd4j.create(NdArrays.type(dtype), problems, bq, shape.valueDim()));
                INDArray max = b.add(Nd4j.valueArrayOf(new long[] {problems, bq, 1}, lowest, NdArrays.type(dtype)));
                INDArray sum = b.add(Nd4j.create(NdArrays.type(dtype), problems, bq, 1));
                for (int c = 0; c < kBlocks.length; c++) {
                    int k0 = c * tiles.keys();
                    if (options.causal() && k0 > q0 + bq - 1) {
                        break;
                    }
                    int bk = (int) kBlocks[c].size(1);
                    INDArray s = logits.computeIfAbsent(List.of(bq, bk),
                            key -> Nd4j.create(logitsBuffer.data(), problems, bq, bk));
                    try (Intermediates u = new Intermediates()) {
                        tile(qBlock, c, q0, k0, s, acc, max, sum, u);
                    }
                }
                BooleanIndexing.replaceWhere(sum, 1.0, Conditions.lessThan(0.5));
                Nd4jOps.Kind.DIV.exec(acc, sum, acc);
                out3.get(rows(q0, bq)).assign(acc);
            }
        }

        /** One tile: the logits of {@code qBlock} against key block {@code c}, folded into {@code acc},
         * {@code max} and {@code sum} as the class javadoc says. */
        private void tile(INDArray qBlock, int c, int q0, int k0, INDArray s, INDArray acc, INDArray max,
                          INDArray sum, Intermediates u) {
            int bq = (int) s.size(1);
            int bk = (int) s.size(2);
            Kernels.matmul(qBlock, kBlocks[c], s, false, true, scale);
            if (options.logitSoftcap() > 0) {
                Kernels.softcapInPlace(s, options.logitSoftcap());
            }
            INDArray sFull = s.reshape('c', NdArrays.dims(shape.batch().append(bq, bk)));
            if (additive != null) {
                Nd4jOps.Kind.ADD.exec(sFull, u.add(additive.get(window(additive, q0, bq, k0, bk)).dup('c')), sFull);
            }
            if (options.mask() != null) {
                Mask part = window(options.mask(), shape.weights(), q0, bq, k0, bk);
                Nd4jOps.Kind.ADD.exec(sFull, u.add(Kernels.additive(part, dtype)), sFull);
            }
            if (options.causal() && k0 + bk - 1 > q0) {
                INDArray diagonal = causalTiles.computeIfAbsent(List.of(q0 - k0, bq, bk),
                        key -> t.add(Kernels.additive(causal(q0, bq, k0, bk), dtype)));
                Nd4jOps.Kind.ADD.exec(s, diagonal, s);
            }
            INDArray newMax = u.add(s.max(true, 2));
            Transforms.max(newMax, max, false);
            Nd4jOps.Kind.SUB.exec(max, newMax, max);
            Transforms.exp(max, false);
            INDArray alpha = max;
            Nd4jOps.Kind.SUB.exec(s, newMax, s);
            Transforms.exp(s, false);
            sum.muli(alpha).addi(u.add(s.sum(true, 2)));
            Nd4jOps.Kind.MUL.exec(acc, alpha, acc);
            max.assign(newMax);
            long tileSize = (long) bq * bk;
            long lq = shape.queries();
            long lk = shape.keys();
            Kernels.dropoutInPlace(s, options.dropoutP(), options.dropoutSeed(),
                    i -> ((i / tileSize) * lq + q0 + i / bk % bq) * lk + k0 + i % bk, u);
            Kernels.matmulAccumulate(s, vBlocks[c], acc);
        }
    }

    /** @return the causal mask of rows {@code [q0, q0 + bq)} and keys {@code [k0, k0 + bk)}: key j for query i iff
     * {@code j ≤ i} */
    private static Mask causal(int q0, int bq, int k0, int bk) {
        boolean[] allowed = new boolean[bq * bk];
        for (int r = 0; r < bq; r++) {
            for (int c = 0; c < bk && k0 + c <= q0 + r; c++) {
                allowed[r * bk + c] = true;
            }
        }
        return Mask.of(Shape.of(bq, bk), allowed);
    }

    /**
     * @return the part of {@code mask} (padded with leading 1s to the rank of {@code full}) over rows
     *     {@code [q0, q0 + bq)} and keys {@code [k0, k0 + bk)}; an axis of size 1 stays size 1
     */
    static Mask window(Mask mask, Shape full, int q0, int bq, int k0, int bk) {
        Shape from = padded(mask.shape(), full.rank());
        int rowsIn = from.dim(-2);
        int colsIn = from.dim(-1);
        int rowsOut = rowsIn == 1 ? 1 : bq;
        int colsOut = colsIn == 1 ? 1 : bk;
        int[] dims = from.toArray();
        dims[dims.length - 2] = rowsOut;
        dims[dims.length - 1] = colsOut;
        Shape part = Shape.of(dims);
        boolean[] allowed = new boolean[(int) part.size()];
        for (int i = 0; i < allowed.length; i++) {
            int outer = i / (rowsOut * colsOut);
            int r = i / colsOut % rowsOut + (rowsIn == 1 ? 0 : q0);
            int c = i % colsOut + (colsIn == 1 ? 0 : k0);
            allowed[i] = mask.allowed((outer * rowsIn + r) * colsIn + c);
        }
        return Mask.of(part, allowed);
    }

    /** @return indices of the additive mask's window over rows and keys; an axis of size 1 is taken whole */
    static INDArrayIndex[] window(INDArray additive, int q0, int bq, int k0, int bk) {
        int rank = additive.rank();
        INDArrayIndex[] index = new INDArrayIndex[rank];
        for (int i = 0; i < rank - 2; i++) {
            index[i] = NDArrayIndex.all();
        }
        index[rank - 2] = additive.size(rank - 2) == 1 ? NDArrayIndex.all() : NDArrayIndex.interval(q0, q0 + bq);
        index[rank - 1] = additive.size(rank - 1) == 1 ? NDArrayIndex.all() : NDArrayIndex.interval(k0, k0 + bk);
        return index;
    }

    /** @return indices of rows {@code [first, first + count)} of a {@code [P, L, d]} array */
    private static INDArrayIndex[] rows(int first, int count) {
        return new INDArrayIndex[] {NDArrayIndex.all(), NDArrayIndex.interval(first, first + count),
            NDArrayIndex.all()};
    }

    static Shape shape(INDArray array) {
        long[] dims = array.shape();
        int[] out = new int[dims.length];
        for (int i = 0; i < dims.length; i++) {
            out[i] = (int) dims[i];
        }
        return Shape.of(out);
    }

    /** @return {@code s} with leading 1s up to {@code rank} */
    static Shape padded(Shape s, int rank) {
        int[] dims = new int[rank];
        java.util.Arrays.fill(dims, 1);
        int[] own = s.toArray();
        System.arraycopy(own, 0, dims, rank - own.length, own.length);
        return Shape.of(dims);
    }
}
