package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.attn4j.api.Shape;
import org.junit.jupiter.api.Test;

class OpPlansTest {

    @Test
    void axisViewSplitsTheShapeAroundTheAxis() {
        assertEquals(new OpPlans.AxisView(2, 3, 20), OpPlans.axis(Shape.of(2, 3, 4, 5), 1));
        assertEquals(new OpPlans.AxisView(1, 7, 1), OpPlans.axis(Shape.of(7), 0));
    }

    @Test
    void binaryWalkBroadcastsAndMergesContiguousDims() {
        StridedLayout.Walk walk = OpPlans.binary("add", Shape.of(2, 3, 4), Shape.of(4), Shape.of(2, 3, 4));
        assertArrayEquals(new int[] {6, 4}, walk.dims());
        assertArrayEquals(new int[] {4, 1}, walk.strides()[0]);
        assertArrayEquals(new int[] {0, 1}, walk.strides()[1]);
    }

    @Test
    void gemmBatchStridesAreWholeMatricesAndZeroWhereBroadcast() {
        OpPlans.Gemm g = OpPlans.gemm(Shape.of(2, 1, 3, 4), Shape.of(5, 4, 6), false, false, Shape.of(2, 5, 3, 6));
        assertEquals(3, g.m());
        assertEquals(6, g.n());
        assertEquals(4, g.k());
        assertEquals(10, g.batches());
        assertArrayEquals(new int[] {2, 5}, g.batch());
        assertArrayEquals(new int[] {12, 0}, g.stridesA());
        assertArrayEquals(new int[] {0, 24}, g.stridesB());
    }

    @Test
    void gemmTakesKFromTheStoredLayoutWhenTransposed() {
        OpPlans.Gemm g = OpPlans.gemm(Shape.of(4, 3), Shape.of(6, 4), true, true, Shape.of(3, 6));
        assertEquals(4, g.k());
        assertEquals(1, g.batches());
        assertArrayEquals(new int[0], g.batch());
    }

    @Test
    void permuteWalkReadsTheSourceThroughPermutedStrides() {
        StridedLayout.Walk walk = OpPlans.permute(Shape.of(2, 3, 4), new int[] {2, 0, 1});
        assertArrayEquals(new int[] {4, 6}, walk.dims());
        assertArrayEquals(new int[] {1, 4}, walk.strides()[0]);
        assertArrayEquals(new int[] {6, 1}, walk.strides()[1]);
    }

    @Test
    void slabWalkSkipsTheRestOfTheWholeAlongTheAxis() {
        StridedLayout.Walk walk = OpPlans.slab(Shape.of(2, 3), Shape.of(2, 7));
        assertArrayEquals(new int[] {2, 3}, walk.dims());
        assertArrayEquals(new int[] {3, 1}, walk.strides()[0]);
        assertArrayEquals(new int[] {7, 1}, walk.strides()[1]);
    }

    @Test
    void maskLayoutCollapsesBatchDimsAndKeepsQueryAndKeyStrides() {
        OpPlans.MaskLayout m = OpPlans.masks(Shape.of(2, 3, 4), 5, 6, Shape.of(2, 1, 1, 1, 6), Shape.of(5, 6));
        assertArrayEquals(new int[] {2, 12, 5, 6}, m.dims());
        assertArrayEquals(new int[] {6, 0, 0, 1}, m.maskStrides());
        assertArrayEquals(new int[] {0, 0, 6, 1}, m.addStrides());
    }

    @Test
    void maskLayoutWithoutMasksHasZeroStrides() {
        OpPlans.MaskLayout m = OpPlans.masks(Shape.of(2, 3), 5, 6, null, null);
        assertArrayEquals(new int[] {6, 5, 6}, m.dims());
        assertArrayEquals(new int[3], m.maskStrides());
        assertArrayEquals(new int[3], m.addStrides());
    }
}
