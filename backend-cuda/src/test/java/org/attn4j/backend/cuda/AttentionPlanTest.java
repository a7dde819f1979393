package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.Mask;
import org.attn4j.api.spi.VisibleKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AttentionPlanTest {

    @ParameterizedTest(name = "dk={0} dv={1} -> {2} warps, {3} bytes")
    @CsvSource({
        "64, 64, 4, 12416",
        "128, 128, 4, 24704",
        "256, 256, 3, 45184",
        "256, 64, 3, 45184",
        "1, 256, 4, 32832",
    })
    void takesTheMostWarpsWhoseSharedMemoryFits48KiB(int dk, int dv, int warps, int bytes) {
        AttentionPlan plan = AttentionPlan.of(2, 100, 100, dk, dv, false);
        assertEquals(warps, plan.warps());
        assertEquals(bytes, plan.sharedBytes());
        assertTrue(plan.sharedBytes() + AttentionPlan.STATIC_SHARED_BYTES <= LaunchConfig.MAX_DEFAULT_SHARED_BYTES);
    }

    @Test
    void gridHasOneCtaPerQueryBlockAndLeadingIndex() {
        AttentionPlan plan = AttentionPlan.of(6, 100, 70, 64, 64, false);
        assertEquals(16, plan.rowsPerBlock());
        assertEquals(7, plan.queryBlocks());
        assertEquals(3, plan.keyTiles());
        assertEquals(new LaunchConfig(42, 1, 1, 128, 12416), plan.launch());
    }

    @Test
    void withoutCausalNoTileIsSkipped() {
        AttentionPlan plan = AttentionPlan.of(3, 100, 70, 64, 64, false);
        assertEquals(0, plan.tilesSkipped());
        assertEquals(3L * 7 * 3, plan.tilesVisited());
    }

    @ParameterizedTest(name = "bh={0} Lq={1} Lk={2} d={3}")
    @CsvSource({
        "1, 128, 128, 64",
        "2, 100, 70, 64",
        "3, 33, 300, 256",
        "1, 1, 1, 8",
        "4, 257, 64, 128",
    })
    void causalSkipsExactlyTheTilesWithNoUnmaskedPair(int bh, int lq, int lk, int d) {
        AttentionPlan plan = AttentionPlan.of(bh, lq, lk, d, d, true);
        long needed = 0;
        for (int block = 0; block < plan.queryBlocks(); block++) {
            int firstRow = block * plan.rowsPerBlock();
            int lastRow = Math.min(lq, firstRow + plan.rowsPerBlock()) - 1;
            for (int tile = 0; tile < plan.keyTiles(); tile++) {
                int firstKey = tile * AttentionPlan.KEY_TILE;
                boolean anyAllowed = firstKey <= lastRow;
                assertEquals(anyAllowed, tile < plan.tilesVisited(block), "block " + block + " tile " + tile);
                needed += anyAllowed ? 1 : 0;
            }
        }
        assertEquals(needed * bh, plan.tilesVisited());
        assertEquals((long) bh * plan.queryBlocks() * plan.keyTiles() - needed * bh, plan.tilesSkipped());
    }

    @Test
    void causalSquareAttentionSkipsAboutHalfTheTiles() {
        AttentionPlan plan = AttentionPlan.of(1, 1024, 1024, 64, 64, true);
        assertEquals(64 * 32, plan.queryBlocks() * (long) plan.keyTiles());
        assertEquals(1056, plan.tilesVisited());
        assertEquals(992, plan.tilesSkipped());
    }

    @Test
    void headDimsAbove256AreRejectedWithBothDims() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AttentionPlan.of(1, 8, 8, 512, 64, false));
        assertEquals("attention: the fused CUDA kernel supports head dims 1..256, got dk=512, dv=64", e.getMessage());
    }

    @Test
    void emptySequencesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> AttentionPlan.of(1, 0, 8, 64, 64, false));
    }

    @Test
    void aDecodeStepSplitsTheKeysToFillTheGpu() {
        AttentionPlan plan = AttentionPlan.of(32, 4, 1, 4096, 128, 128,
                new AttentionPlan.Visible(true, 4095, 0, 4096));
        assertEquals(1, plan.warps(), "4 rows (the group's heads) need one warp");
        assertEquals(1, plan.queryBlocks());
        assertEquals(128, plan.tilesVisited(0));
        assertEquals(32, plan.splits(), "min(ceil(1056 warps / 8 one-warp CTAs), 128 tiles / 4)");
        assertEquals(4, plan.splitTiles());
        assertTrue(plan.decode());
        assertEquals(new LaunchConfig(8, 32, 1, 32, plan.sharedBytes()), plan.launch());
        assertEquals(LaunchConfig.linear(4, 256), plan.mergeLaunch(), "one warp per row of the 32 heads");
        assertEquals(32L * 32 * 128, plan.partialFloats());
        assertEquals(2L * 32 * 32, plan.statsFloats());
    }

    @Test
    void aWindowedDecodeStepLoadsOnlyTheWindowsTiles() {
        AttentionPlan plan = AttentionPlan.of(8, 1, 1, 16384, 64, 64, new AttentionPlan.Visible(true, 16383, 4096,
                16384));
        assertEquals(12288 / AttentionPlan.KEY_TILE, plan.firstTile(0));
        assertEquals(4096 / AttentionPlan.KEY_TILE, plan.tilesVisited(0));
        assertEquals(8L * (512 - 128), plan.tilesSkipped());
        assertEquals(32, plan.splits(), "128 tiles / 4 per split; 1056 warps would take 132");
    }

    @Test
    void unevenSplitsCoverEveryTileOnce() {
        AttentionPlan plan = AttentionPlan.of(2, 1, 2, 1000, 64, 64, new AttentionPlan.Visible(true, 998, 0, 1000));
        int tiles = plan.tilesVisited(0);
        assertEquals(32, tiles);
        assertTrue(plan.splits() > 1);
        assertTrue((long) plan.splits() * plan.splitTiles() >= tiles, "every tile lies in a split");
        assertTrue((long) (plan.splits() - 1) * plan.splitTiles() < tiles, "no split is empty");
    }

    @ParameterizedTest(name = "Lq={0} Lk={1}")
    @CsvSource({
        "17, 4096",
        "1, 100",
        "16, 64",
    })
    void longQueriesOrShortCachesRunTheFusedKernelAlone(int lq, int lk) {
        AttentionPlan plan = AttentionPlan.of(8, lq, lk, 64, 64, false);
        assertEquals(1, plan.splits());
        assertEquals(1, plan.launch().gridY());
    }

    @ParameterizedTest(name = "group={0} Lq={1} Lk={2} keys={3} window={4} bottomRight={5}")
    @CsvSource({
        "1, 1, 300, 300, 0, true",
        "4, 3, 200, 190, 0, true",
        "8, 2, 500, 500, 64, true",
        "2, 40, 70, 70, 16, true",
        "1, 70, 70, 70, 20, false",
        "4, 12, 16, 8, 0, true",
        "1, 100, 64, 50, 0, false",
    })
    void blocksVisitEveryTileWithAVisibleKeyAndSingleHeadBlocksNoOther(int group, int lq, int lk, int keys,
                                                                        int window, boolean bottomRight) {
        AttentionOptions options = AttentionOptions.defaults().withCausal(true).withWindow(window)
                .withKeyLength(keys)
                .withCausalAlignment(bottomRight ? CausalAlignment.BOTTOM_RIGHT : CausalAlignment.TOP_LEFT);
        AttentionPlan plan = AttentionPlan.of(group * 2, group, lq, lk, 64, 64, AttentionPlan.Visible.of(options, lq, lk));
        Mask mask = new VisibleKeys(options, lq, lk).mask(lq, lk);
        boolean[] seen = mask == null ? null : mask.toArray();
        for (int block = 0; block < plan.queryBlocks(); block++) {
            int r0 = block * plan.rowsPerBlock();
            int rLast = Math.min(group * lq, r0 + plan.rowsPerBlock()) - 1;
            int first = plan.firstTile(block);
            int end = first + plan.tilesVisited(block);
            int lowest = Integer.MAX_VALUE;
            int highest = -1;
            for (int r = r0; r <= rLast; r++) {
                int i = r % lq;
                for (int j = 0; j < lk; j++) {
                    if (seen == null || seen[i * lk + j]) {
                        int tile = j / AttentionPlan.KEY_TILE;
                        assertTrue(tile >= first && tile < end, "block " + block + " row " + r + " key " + j);
                        lowest = Math.min(lowest, tile);
                        highest = Math.max(highest, tile);
                    }
                }
            }
            if (r0 / lq == rLast / lq && highest >= 0) {
                assertEquals(lowest, first, "block " + block + " starts at its first visible tile");
                assertEquals(highest + 1, end, "block " + block + " ends after its last visible tile");
            }
        }
    }

    @Test
    void aGroupMustDivideTheQueryProblems() {
        assertThrows(IllegalArgumentException.class,
                () -> AttentionPlan.of(6, 4, 1, 64, 64, 64, AttentionPlan.Visible.topLeft(false, 64)));
    }
}
