package org.attn4j.backend.ejml;

import java.util.Arrays;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Shape;
import org.attn4j.api.spi.Dropout;
import org.attn4j.api.spi.ShapeChecks;
import org.attn4j.api.spi.Strides;
import org.attn4j.api.spi.VisibleKeys;

/**
 * The dtype-independent facts of one fused attention call: dimensions, scale, where each (problem, query row)
 * finds its mask entries, and the dropout parameters. Masks are broadcast by strides, never expanded: the entry
 * of logit {@code (p, i, j)} is at {@code rowOffset(p, i) + j · columnStride}.
 */
final class AttentionPlan {
    final int problems;
    final int queries;
    final int keys;
    /**
     * The keys that exist ({@code keyLength}, or {@code Lk} when it is 0): a kernel whose work division depends on
     * the number of keys uses this, not {@link #keys}, so that a cache's spare capacity changes no result.
     */
    final int existingKeys;
    final int keyDim;
    final int valueDim;
    final double scale;
    /** The logit soft-cap {@code c} of {@code c·tanh(logit / c)}, 0 for none. */
    final double softcap;
    final boolean causal;
    final int window;
    final VisibleKeys visible;
    private final int groupSize;
    final boolean[] mask;
    final Object additive;
    final double dropoutP;
    final long dropoutSeed;
    final double survivorScale;

    private final MaskIndex maskIndex;
    private final MaskIndex additiveIndex;
    /** Where the rows of q, k, v and the output lie in their arrays. */
    final Rows q;
    final Rows k;
    final Rows v;
    final Rows out;

    /**
     * Where the rows of one operand lie: row {@code r} of (batch × head) problem {@code p} starts at
     * {@code base(p) + r·rowStride}, its elements contiguous, with {@code base(p) = (p / heads)·batchStride +
     * (p % heads)·headStride + start}. A tensor {@code [..., L, d]} is {@code (1, L·d, 0, 0, d)}; q of a packed
     * {@code [B, L, (H + 2·H_kv)·d]} projection is {@code (H, L·W, d, 0, W)}, {@code W = (H + 2·H_kv)·d}.
     */
    record Rows(int heads, int batchStride, int headStride, int start, int rowStride) {
        static Rows contiguous(int rows, int width) {
            return new Rows(1, rows * width, 0, 0, width);
        }

        int base(int problem) {
            return (problem / heads) * batchStride + (problem % heads) * headStride + start;
        }
    }

    /** The broadcast strides of one mask against {@code [batch..., Lq, Lk]}. */
    private record MaskIndex(int[] problemOffsets, int rowStride, int columnStride) {
        static MaskIndex of(Shape mask, ShapeChecks.AttentionShape shape) {
            Shape weights = shape.weights();
            int[] strides = Strides.broadcast("attention", "mask", mask, weights);
            int rank = weights.rank();
            int[] batchStrides = Arrays.copyOf(strides, rank - 2);
            return new MaskIndex(Strides.offsets(shape.batch(), batchStrides), strides[rank - 2],
                    strides[rank - 1]);
        }

        int rowOffset(int problem, int row) {
            return problemOffsets[problem] + row * rowStride;
        }
    }

    AttentionPlan(ShapeChecks.AttentionShape shape, AttentionOptions options, HeapTensor additiveMask) {
        this(shape, options, additiveMask, Rows.contiguous(shape.queries(), shape.keyDim()),
                Rows.contiguous(shape.keys(), shape.keyDim()), Rows.contiguous(shape.keys(), shape.valueDim()),
                Rows.contiguous(shape.queries(), shape.valueDim()));
    }

    /**
     * @param shape the call's dimensions
     * @param options the call's options
     * @param additiveMask the additive mask, or null
     * @param q where q's rows lie
     * @param k where k's rows lie, by (batch × kv head)
     * @param v where v's rows lie, by (batch × kv head)
     * @param out where the output's rows go
     */
    AttentionPlan(ShapeChecks.AttentionShape shape, AttentionOptions options, HeapTensor additiveMask, Rows q,
                  Rows k, Rows v, Rows out) {
        this.q = q;
        this.k = k;
        this.v = v;
        this.out = out;
        this.problems = shape.problems();
        this.queries = shape.queries();
        this.keys = shape.keys();
        this.existingKeys = options.keysFor(keys);
        this.keyDim = shape.keyDim();
        this.valueDim = shape.valueDim();
        this.scale = options.scaleFor(keyDim);
        this.softcap = options.logitSoftcap();
        this.causal = options.causal();
        this.window = options.window();
        this.visible = new VisibleKeys(options, queries, keys);
        this.groupSize = shape.groupSize();
        this.mask = options.mask() == null ? null : options.mask().toArray();
        this.maskIndex = options.mask() == null ? null : MaskIndex.of(options.mask().shape(), shape);
        this.additive = additiveMask == null ? null : additiveMask.data();
        this.additiveIndex = additiveMask == null ? null : MaskIndex.of(additiveMask.shape(), shape);
        this.dropoutP = options.dropoutP();
        this.dropoutSeed = options.dropoutSeed();
        this.survivorScale = dropoutP > 0 ? Dropout.survivorScale(dropoutP) : 1.0;
    }

    /**
     * @param rowEnd one past the last query row of a block
     * @return the first key index that no query of rows {@code [.., rowEnd)} may see: the key length, or less if
     *     causal
     */
    int keyLimit(int rowEnd) {
        return rowEnd == 0 ? 0 : visible.end(rowEnd - 1);
    }

    /**
     * @param problem a (batch × query head) index
     * @return the (batch × kv head) index whose keys and values it reads
     */
    int kvProblem(int problem) {
        return problem / groupSize;
    }

    /**
     * @param problem the (batch × head) index
     * @param row the query index
     * @return the first key that query may see
     */
    int firstKey(int problem, int row) {
        return visible.first(row);
    }

    /**
     * @param problem the (batch × head) index
     * @param row the query index
     * @return one past the last key that query may see
     */
    int keyEnd(int problem, int row) {
        return visible.end(row);
    }

    int maskOffset(int problem, int row) {
        return maskIndex.rowOffset(problem, row);
    }

    int maskColumnStride() {
        return maskIndex.columnStride();
    }

    int additiveOffset(int problem, int row) {
        return additiveIndex.rowOffset(problem, row);
    }

    int additiveColumnStride() {
        return additiveIndex.columnStride();
    }

    /**
     * @param problem the (batch × head) index
     * @param row the query index
     * @param key the key index
     * @return whether dropout keeps weight {@code (problem, row, key)}, at its flat index in {@code [..., Lq, Lk]}
     */
    boolean keeps(int problem, int row, int key) {
        return Dropout.keep(dropoutSeed, ((long) problem * queries + row) * keys + key, dropoutP);
    }
}
