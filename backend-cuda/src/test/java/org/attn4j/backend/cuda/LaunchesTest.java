package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LaunchesTest {

    @Test
    void elementwiseUsesOneThreadPerElementUpToTheGridCap() {
        assertEquals(LaunchConfig.linear(1, 256), Launches.elementwise(1));
        assertEquals(LaunchConfig.linear(2, 256), Launches.elementwise(257));
        assertEquals(LaunchConfig.linear(65535, 256), Launches.elementwise(1L << 30));
    }

    @Test
    void rowKernelsUseWholeWarpsAndAtMost256Threads() {
        assertEquals(LaunchConfig.linear(10, 32), Launches.rows(10, 1));
        assertEquals(LaunchConfig.linear(10, 64), Launches.rows(10, 33));
        assertEquals(LaunchConfig.linear(65535, 256), Launches.rows(100_000, 4096));
    }

    @Test
    void reductionsUseOneWarpPerOutput() {
        assertEquals(LaunchConfig.linear(1, 256), Launches.reduction(8));
        assertEquals(LaunchConfig.linear(2, 256), Launches.reduction(9));
    }

    @Test
    void gemmCoversCWith64By64TilesAndCapsBatchesAtTheZLimit() {
        assertEquals(new LaunchConfig(2, 3, 7, 256, 0), Launches.gemm(130, 65, 7));
        assertEquals(65535, Launches.gemm(1, 1, 100_000).gridZ());
    }

    @Test
    void gemmRejectsMoreRowTilesThanTheGridAllowsAndSaysWhy() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Launches.gemm(65535 * 64 + 1, 1, 1));
        assertTrue(e.getMessage().startsWith("matmul: m = 4194241 needs 65536 row tiles"), e.getMessage());
    }

    @Test
    void emptyWorkIsRejectedWithTheArgumentName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Launches.rows(0, 4));
        assertEquals("rows: rows must be at least 1, got 0", e.getMessage());
    }

    @Test
    void launchConfigEnforcesDeviceLimits() {
        assertThrows(IllegalArgumentException.class, () -> new LaunchConfig(1, 65536, 1, 32, 0));
        assertThrows(IllegalArgumentException.class, () -> new LaunchConfig(1, 1, 1, 1025, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LaunchConfig(1, 1, 1, 32, 48 * 1024 + 1));
        assertEquals("launch sharedBytes = 49153 outside [0, 49152]", e.getMessage());
    }
}
