package org.attn4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class WorkloadTest {

    @Test
    void attentionCountsFourTimesBatchHeadsLengthsAndHeadSize() {
        AttentionWorkload w = new AttentionWorkload(2, 12, 512, 1024, 64, false);
        assertEquals(4.0 * 2 * 12 * 512 * 1024 * 64, w.flops(), 0.0);
        assertEquals(12_884_901_888.0, AttentionWorkload.selfAttention(12, 2048, 64, false).flops(), 0.0);
    }

    @Test
    void causalAttentionCountsHalfOfTheNonCausalCount() {
        assertEquals(6_442_450_944.0, AttentionWorkload.selfAttention(12, 2048, 64, true).flops(), 0.0);
    }

    @Test
    void attentionShapedGemmCountsTheSameAsAttention() {
        assertEquals(AttentionWorkload.selfAttention(12, 4096, 64, false).flops(),
                GemmWorkload.attentionShaped(12, 4096, 64).flops(), 0.0);
    }

    @Test
    void squareGemmCountsTwoNCubed() {
        assertEquals(2.0 * 2048 * 2048 * 2048, GemmWorkload.square(2048).flops(), 0.0);
        assertEquals(2.0 * 3 * 4 * 5 * 6, new GemmWorkload(3, 4, 5, 6, false).flops(), 0.0);
    }

    @Test
    void gflopsDividesOperationsByTimeAndOneBillion() {
        assertEquals(120.4196438, Flops.gflops(12_884_901_888.0, 0.107), 1e-6);
        assertEquals(1.0, Flops.gflops(1e9, 1.0), 0.0);
    }

    @Test
    void gflopsRejectsANonPositiveTime() {
        assertThrows(IllegalArgumentException.class, () -> Flops.gflops(1e9, 0.0));
    }

    @Test
    void workloadsRejectDimensionsBelowOne() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AttentionWorkload.selfAttention(12, 0, 64, false));
        assertEquals("AttentionWorkload: every dimension must be at least 1, got [1, 12, 0, 0, 64]", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> GemmWorkload.square(0));
    }

    @Test
    void labelsNameTheShape() {
        assertEquals("B=1 H=12 L=2048 d=64 causal", AttentionWorkload.selfAttention(12, 2048, 64, true).label());
        assertEquals("B=2 H=1 Lq=3 Lk=5 d=8", new AttentionWorkload(2, 1, 3, 5, 8, false).label());
        assertEquals("1024×1024·1024×1024", GemmWorkload.square(1024).label());
        assertEquals("12×([512×64]·[64×512] + [512×512]·[512×64])", GemmWorkload.attentionShaped(12, 512, 64).label());
    }
}
