package org.attn4j.backend.cuda;

/**
 * Tiling of {@code attn4j_flash_attention_f32} for one call.
 *
 * <p>A CTA of {@code warps} warps owns {@code 4 * warps} query rows of one of the {@code bh} flattened
 * leading indices; key/value tiles of {@value #KEY_TILE} rows stream through shared memory. Dynamic shared
 * memory holds the query block, {@code 4 * warps * dk} floats, and one key tile (row stride {@code dk + 1})
 * that the value tile later overwrites, {@code 32 * max(dk + 1, dv)} floats. The plan takes the most warps (at
 * most 4) whose shared memory fits {@link LaunchConfig#MAX_DEFAULT_SHARED_BYTES}. With {@code causal}, a
 * query block whose last row is {@code r} visits key tiles {@code 0 .. floor(r / 32)} only.
 *
 * @param bh     product of the leading dims of q, k and v
 * @param lq     query length
 * @param lk     key length
 * @param dk     query/key head dim, 1 to {@value #MAX_HEAD_DIM}
 * @param dv     value head dim, 1 to {@value #MAX_HEAD_DIM}
 * @param causal whether keys after the query position are masked
 * @param warps  warps per CTA, 1 to {@value #MAX_WARPS}
 */
record AttentionPlan(int bh, int lq, int lk, int dk, int dv, boolean causal, int warps) {
    /** Query rows per warp ({@code ATTN4J_ATT_ROWS}). */
    static final int ROWS_PER_WARP = 4;
    /** Keys per tile ({@code ATTN4J_ATT_BN}), one per lane. */
    static final int KEY_TILE = 32;
    /** Largest dk and dv: 8 output columns per lane ({@code ATTN4J_ATT_DV_PER_LANE}). */
    static final int MAX_HEAD_DIM = 256;
    /** Most warps per CTA. */
    static final int MAX_WARPS = 4;

    AttentionPlan {
        if (bh < 1 || lq < 1 || lk < 1) {
            throw new IllegalArgumentException("attention: batch*heads, Lq and Lk must be at least 1, got bh=" + bh
                    + ", Lq=" + lq + ", Lk=" + lk);
        }
        if (dk < 1 || dk > MAX_HEAD_DIM || dv < 1 || dv > MAX_HEAD_DIM) {
            throw new IllegalArgumentException("attention: the fused CUDA kernel supports head dims 1.." + MAX_HEAD_DIM
                    + ", got dk=" + dk + ", dv=" + dv);
        }
        if (warps < 1 || warps > MAX_WARPS) {
            throw new IllegalArgumentException("attention: warps must be in 1.." + MAX_WARPS + ", got " + warps);
        }
    }

    /**
     * Chooses the most warps whose shared memory fits 48 KiB.
     *
     * @return the plan for these sizes
     * @throws IllegalArgumentException naming the sizes if a head dim is out of range or the grid would
     *                                  exceed {@link LaunchConfig#MAX_GRID_X} blocks
     */
    static AttentionPlan of(int bh, int lq, int lk, int dk, int dv, boolean causal) {
        int warps = MAX_WARPS;
        while (warps > 1 && sharedBytes(warps, dk, dv) > LaunchConfig.MAX_DEFAULT_SHARED_BYTES) {
            warps--;
        }
        AttentionPlan plan = new AttentionPlan(bh, lq, lk, dk, dv, causal, warps);
        long ctas = (long) bh * plan.queryBlocks();
        if (ctas > LaunchConfig.MAX_GRID_X) {
            throw new IllegalArgumentException("attention: bh=" + bh + " x " + plan.queryBlocks()
                    + " query blocks exceeds the grid limit of " + LaunchConfig.MAX_GRID_X + " blocks");
        }
        return plan;
    }

    /** @return query rows per CTA, {@code 4 * warps} */
    int rowsPerBlock() {
        return ROWS_PER_WARP * warps;
    }

    /** @return query blocks per leading index, {@code ceil(lq / rowsPerBlock)} */
    int queryBlocks() {
        return (int) Launches.ceilDiv(lq, rowsPerBlock());
    }

    /** @return key tiles per query block without causal skipping, {@code ceil(lk / 32)} */
    int keyTiles() {
        return (int) Launches.ceilDiv(lk, KEY_TILE);
    }

    /** @return dynamic shared memory per CTA in bytes */
    int sharedBytes() {
        return sharedBytes(warps, dk, dv);
    }

    /**
     * Key tiles that query block {@code block} loads: all of them, or with {@code causal} those up to the
     * tile holding key {@code min(lq, (block + 1) * rowsPerBlock) - 1}.
     *
     * @param block query block index, 0 to {@code queryBlocks() - 1}
     * @return the number of tiles visited
     */
    int tilesVisited(int block) {
        if (!causal) {
            return keyTiles();
        }
        int lastRow = Math.min(lq, (block + 1) * rowsPerBlock()) - 1;
        return Math.min(keyTiles(), lastRow / KEY_TILE + 1);
    }

    /** @return key tiles visited over the whole grid */
    long tilesVisited() {
        long perHead = 0;
        for (int b = 0; b < queryBlocks(); b++) {
            perHead += tilesVisited(b);
        }
        return perHead * bh;
    }

    /** @return key tiles skipped by causal masking over the whole grid (0 without {@code causal}) */
    long tilesSkipped() {
        return (long) bh * queryBlocks() * keyTiles() - tilesVisited();
    }

    /** @return grid {@code bh * queryBlocks()}, block {@code 32 * warps}, {@link #sharedBytes()} */
    LaunchConfig launch() {
        return new LaunchConfig(Math.multiplyExact(bh, queryBlocks()), 1, 1, 32 * warps, sharedBytes());
    }

    private static int sharedBytes(int warps, int dk, int dv) {
        return Float.BYTES * (ROWS_PER_WARP * warps * dk + KEY_TILE * Math.max(dk + 1, dv));
    }
}
