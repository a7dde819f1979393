package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertTrue(plan.sharedBytes() <= LaunchConfig.MAX_DEFAULT_SHARED_BYTES);
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
}
