package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.attn4j.api.Shape;
import org.attn4j.api.spi.Strides;
import org.junit.jupiter.api.Test;

class StridedLayoutTest {

    @Test
    void collapseMergesDimsEveryOperandWalksContiguously() {
        int[] dims = {2, 3, 4, 5};
        int[] a = Strides.contiguous(Shape.of(dims));
        int[] b = {0, 0, 5, 1};
        StridedLayout.Walk walk = StridedLayout.collapse(dims, a, b);
        assertArrayEquals(new int[] {6, 20}, walk.dims());
        assertArrayEquals(new int[] {20, 1}, walk.strides()[0]);
        assertArrayEquals(new int[] {0, 1}, walk.strides()[1]);
    }

    @Test
    void collapseKeepsAPermutedWalkAndDropsUnitDims() {
        int[] dims = {2, 1, 3, 4};
        int[] permuted = {1, 99, 12, 2};
        StridedLayout.Walk walk = StridedLayout.collapse(dims, permuted);
        assertArrayEquals(new int[] {2, 3, 4}, walk.dims());
        assertArrayEquals(new int[] {1, 12, 2}, walk.strides()[0]);
    }

    @Test
    void collapseOfAllUnitDimsIsRankZero() {
        StridedLayout.Walk walk = StridedLayout.collapse(new int[] {1, 1}, new int[] {1, 1});
        assertArrayEquals(new int[0], walk.dims());
    }

    @Test
    void packedStructsHaveTheKernelLayout() {
        assertArrayEquals(new int[] {3, 2, 3, 4, 0, 0, 0, 0, 0}, StridedLayout.packShape("add", new int[] {2, 3, 4}));
        assertArrayEquals(new int[] {12, 4, 1, 0, 0, 0, 0, 0}, StridedLayout.packStrides("add", new int[] {12, 4, 1}));
        assertTrue(ParamType.SHAPE.bytes() == 4 * StridedLayout.packShape("x", new int[0]).length);
        assertTrue(ParamType.STRIDES.bytes() == 4 * StridedLayout.packStrides("x", new int[0]).length);
    }

    @Test
    void packingMoreThanEightDimsNamesTheOpAndShape() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StridedLayout.packShape("permute", new int[] {2, 2, 2, 2, 2, 2, 2, 2, 2}));
        assertTrue(e.getMessage().startsWith("permute: the CUDA kernels walk at most 8 dims"), e.getMessage());
        assertTrue(e.getMessage().contains("[2, 2, 2, 2, 2, 2, 2, 2, 2]"), e.getMessage());
    }
}
