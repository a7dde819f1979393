package org.attn4j.backend.cuda;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.spi.VisibleKeys;

/**
 * Tiling of {@code attn4j_flash_attention_f32} and of the flash-decoding pair {@code attn4j_flash_decode_f32} /
 * {@code attn4j_flash_decode_merge_f32} for one call.
 *
 * <p>The {@code bh} query problems share {@code bh / group} key/value problems; the {@code R = group * lq} query
 * rows of one kv problem (its heads' rows, contiguous in q) are cut into blocks of {@code 4 * warps} rows, one
 * CTA each, and key/value tiles of {@value #KEY_TILE} rows stream through shared memory. Dynamic shared memory
 * holds the query block, {@code 4 * warps * dk} floats, and one key tile (row stride {@code dk + 1}) that the
 * value tile later overwrites, {@code 32 * max(dk + 1, dv)} floats. The plan takes the most warps (at most 4)
 * whose shared memory, with the {@value #STATIC_SHARED_BYTES} static bytes, fits
 * {@link LaunchConfig#MAX_DEFAULT_SHARED_BYTES}, and no more than {@code R} rows need.
 * A block visits only the tiles holding keys that one of its rows sees ({@link Visible}).
 *
 * <p>With at most {@value #DECODE_MAX_QUERIES} query rows the grid is usually too small for a GPU, so the keys
 * are split as well (flash-decoding): {@code splits} CTAs per block, each over at most {@code splitTiles} of the
 * block's tiles, about {@value #TARGET_WARPS} warps in all and at least {@value #MIN_SPLIT_TILES} tiles per split;
 * the merge kernel then combines the splits. With one split the fused kernel runs alone.
 *
 * @param bh         product of the leading dims of q
 * @param group      query heads per key/value head, dividing {@code bh}
 * @param lq         query length
 * @param lk         key length of k and v
 * @param dk         query/key head dim, 1 to {@value #MAX_HEAD_DIM}
 * @param dv         value head dim, 1 to {@value #MAX_HEAD_DIM}
 * @param visible    which keys each query row sees
 * @param warps      warps per CTA, 1 to {@value #MAX_WARPS}
 * @param splits     key splits per row block, 1 for the fused kernel
 * @param splitTiles key tiles per split
 */
record AttentionPlan(int bh, int group, int lq, int lk, int dk, int dv, Visible visible, int warps, int splits,
                     int splitTiles) {
    /** Query rows per warp ({@code ATTN4J_ATT_ROWS}). */
    static final int ROWS_PER_WARP = 4;
    /** Keys per tile ({@code ATTN4J_ATT_BN}), one per lane. */
    static final int KEY_TILE = 32;
    /** Largest dk and dv: 8 output columns per lane ({@code ATTN4J_ATT_DV_PER_LANE}). */
    static final int MAX_HEAD_DIM = 256;
    /** Most warps per CTA. */
    static final int MAX_WARPS = 4;
    /** Static shared memory of both attention kernels: each row's mask offsets, 2 x 16 longs. */
    static final int STATIC_SHARED_BYTES = 2 * ROWS_PER_WARP * MAX_WARPS * Long.BYTES;
    /** Most query rows for which the keys are split. */
    static final int DECODE_MAX_QUERIES = 16;
    /**
     * Warps a split launch aims at: eight on each SM of a 132-SM GPU, since a decode step streams the cache from
     * memory and needs many loads in flight (a guess to be tuned on a GPU; none was available).
     */
    static final int TARGET_WARPS = 1056;
    /** Fewest key tiles of one split (128 keys), below which the merge costs more than the split gains. */
    static final int MIN_SPLIT_TILES = 4;

    /**
     * The keys query row {@code i} sees, as the kernels compute them: {@code [first(i), end(i))}, the rule of
     * {@link VisibleKeys}.
     *
     * @param causal whether key {@code j} must satisfy {@code j <= i + shift}
     * @param shift  the diagonal's offset: 0 top-left, {@code keys - lq} bottom-right
     * @param window with {@code window > 0}, key {@code j} must satisfy {@code j > i + shift - window}
     * @param keys   the keys that exist, at most {@code lk}
     */
    record Visible(boolean causal, int shift, int window, int keys) {

        /**
         * @param options the call's options
         * @param lq      query length
         * @param lk      key length
         * @return the visibility the options describe
         */
        static Visible of(AttentionOptions options, int lq, int lk) {
            VisibleKeys keys = new VisibleKeys(options, lq, lk);
            return new Visible(options.causal(), keys.shift(), options.window(), keys.length());
        }

        /**
         * @param causal top-left causal or not
         * @param lk     key length, all keys existing
         * @return the plain visibility of attention without decoding options
         */
        static Visible topLeft(boolean causal, int lk) {
            return new Visible(causal, 0, 0, lk);
        }

        /**
         * @param i a query row
         * @return its first visible key
         */
        int first(int i) {
            return window > 0 ? (int) Math.max(0, (long) i + shift - window + 1) : 0;
        }

        /**
         * @param i a query row
         * @return one past its last visible key (at most {@code keys}, at least 0)
         */
        int end(int i) {
            return causal ? (int) Math.max(0, Math.min(keys, (long) i + shift + 1)) : keys;
        }
    }

    AttentionPlan {
        if (bh < 1 || lq < 1 || lk < 1) {
            throw new IllegalArgumentException("attention: batch*heads, Lq and Lk must be at least 1, got bh=" + bh
                    + ", Lq=" + lq + ", Lk=" + lk);
        }
        if (group < 1 || bh % group != 0) {
            throw new IllegalArgumentException("attention: group " + group + " must divide bh=" + bh);
        }
        if (dk < 1 || dk > MAX_HEAD_DIM || dv < 1 || dv > MAX_HEAD_DIM) {
            throw new IllegalArgumentException("attention: the fused CUDA kernel supports head dims 1.." + MAX_HEAD_DIM
                    + ", got dk=" + dk + ", dv=" + dv);
        }
        if (warps < 1 || warps > MAX_WARPS) {
            throw new IllegalArgumentException("attention: warps must be in 1.." + MAX_WARPS + ", got " + warps);
        }
        if (splits < 1 || splits > LaunchConfig.MAX_GRID_YZ || splitTiles < 1) {
            throw new IllegalArgumentException("attention: splits " + splits + " of " + splitTiles
                    + " tiles out of range");
        }
    }

    /**
     * Plain attention: every key exists, no grouped queries, causal aligned top-left.
     *
     * @return the plan for these sizes
     * @see #of(int, int, int, int, int, int, Visible)
     */
    static AttentionPlan of(int bh, int lq, int lk, int dk, int dv, boolean causal) {
        return of(bh, 1, lq, lk, dk, dv, Visible.topLeft(causal, lk));
    }

    /**
     * Chooses the warps (the most whose shared memory fits 48 KiB, no more than the rows need) and the key splits.
     *
     * @param bh      product of the leading dims of q
     * @param group   query heads per key/value head
     * @param lq      query length
     * @param lk      key length
     * @param dk      query/key head dim
     * @param dv      value head dim
     * @param visible the keys each row sees
     * @return the plan for these sizes
     * @throws IllegalArgumentException naming the sizes if a head dim is out of range or the grid would
     *                                  exceed {@link LaunchConfig#MAX_GRID_X} blocks
     */
    static AttentionPlan of(int bh, int group, int lq, int lk, int dk, int dv, Visible visible) {
        int warps = MAX_WARPS;
        while (warps > 1
                && sharedBytes(warps, dk, dv) + STATIC_SHARED_BYTES > LaunchConfig.MAX_DEFAULT_SHARED_BYTES) {
            warps--;
        }
        warps = (int) Math.min(warps, Launches.ceilDiv((long) group * lq, ROWS_PER_WARP));
        AttentionPlan fused = new AttentionPlan(bh, group, lq, lk, dk, dv, visible, warps, 1, 1);
        long ctas = (long) (bh / group) * fused.queryBlocks();
        if (ctas > LaunchConfig.MAX_GRID_X) {
            throw new IllegalArgumentException("attention: bh=" + bh + " x " + fused.queryBlocks()
                    + " query blocks exceeds the grid limit of " + LaunchConfig.MAX_GRID_X + " blocks");
        }
        int tiles = 0;
        for (int block = 0; block < fused.queryBlocks(); block++) {
            tiles = Math.max(tiles, fused.tilesVisited(block));
        }
        int splits = 1;
        if (lq <= DECODE_MAX_QUERIES) {
            long wanted = Launches.ceilDiv(TARGET_WARPS, ctas * warps);
            splits = (int) Math.max(1, Math.min(wanted, tiles / MIN_SPLIT_TILES));
        }
        int splitTiles = (int) Math.max(1, Launches.ceilDiv(tiles, splits));
        splits = (int) Math.max(1, Launches.ceilDiv(tiles, splitTiles));
        return new AttentionPlan(bh, group, lq, lk, dk, dv, visible, warps, splits, splitTiles);
    }

    /** @return whether the keys are split: the flash-decoding pair runs instead of the fused kernel */
    boolean decode() {
        return splits > 1;
    }

    /** @return query rows per CTA, {@code 4 * warps} */
    int rowsPerBlock() {
        return ROWS_PER_WARP * warps;
    }

    /** @return query blocks per key/value problem, {@code ceil(group * lq / rowsPerBlock)} */
    int queryBlocks() {
        return (int) Launches.ceilDiv((long) group * lq, rowsPerBlock());
    }

    /** @return key tiles per query block without skipping, {@code ceil(lk / 32)} */
    int keyTiles() {
        return (int) Launches.ceilDiv(lk, KEY_TILE);
    }

    /** @return dynamic shared memory per CTA in bytes */
    int sharedBytes() {
        return sharedBytes(warps, dk, dv);
    }

    /**
     * The first key tile query block {@code block} loads: the one holding {@code first(i)} of its first row's
     * query {@code i}, or of query 0 when the block spans two heads.
     *
     * @param block query block index, 0 to {@code queryBlocks() - 1}
     * @return the tile index
     */
    int firstTile(int block) {
        int r0 = block * rowsPerBlock();
        int rLast = lastRow(block);
        return visible.first(r0 / lq == rLast / lq ? r0 % lq : 0) / KEY_TILE;
    }

    /**
     * Key tiles that query block {@code block} loads over all its splits: from {@link #firstTile} to the tile
     * holding the last key its last row sees (every query when the block spans two heads).
     *
     * @param block query block index, 0 to {@code queryBlocks() - 1}
     * @return the number of tiles visited
     */
    int tilesVisited(int block) {
        int r0 = block * rowsPerBlock();
        int rLast = lastRow(block);
        int end = visible.end(r0 / lq == rLast / lq ? rLast % lq : lq - 1);
        return (int) Math.max(0, Launches.ceilDiv(end, KEY_TILE) - firstTile(block));
    }

    /** @return key tiles visited over the whole grid */
    long tilesVisited() {
        long perProblem = 0;
        for (int b = 0; b < queryBlocks(); b++) {
            perProblem += tilesVisited(b);
        }
        return perProblem * (bh / group);
    }

    /** @return key tiles of {@code k} that the grid does not load (0 without causality, window or key length) */
    long tilesSkipped() {
        return (long) (bh / group) * queryBlocks() * keyTiles() - tilesVisited();
    }

    /** @return grid {@code (bh / group * queryBlocks(), splits)}, block {@code 32 * warps}, {@link #sharedBytes()} */
    LaunchConfig launch() {
        return new LaunchConfig(Math.multiplyExact(bh / group, queryBlocks()), splits, 1, 32 * warps, sharedBytes());
    }

    /** @return the merge kernel's launch: one warp per output row, {@code bh * lq} rows */
    LaunchConfig mergeLaunch() {
        return Launches.reduction((long) bh * lq);
    }

    /** @return floats of the merge's partial outputs, {@code splits * bh * lq * dv} */
    long partialFloats() {
        return (long) splits * bh * lq * dv;
    }

    /** @return floats of the merge's statistics, {@code splits * bh * lq * 2} (running max and sum) */
    long statsFloats() {
        return 2L * splits * bh * lq;
    }

    private int lastRow(int block) {
        return (int) Math.min((long) group * lq, (long) (block + 1) * rowsPerBlock()) - 1;
    }

    private static int sharedBytes(int warps, int dk, int dv) {
        return Float.BYTES * (ROWS_PER_WARP * warps * dk + KEY_TILE * Math.max(dk + 1, dv));
    }
}
