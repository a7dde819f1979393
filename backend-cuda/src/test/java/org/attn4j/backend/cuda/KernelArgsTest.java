package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class KernelArgsTest {

    @Test
    void recordsTheTypeOfEachArgumentInOrder() {
        KernelArgs args = new KernelArgs("scale").pointer(null).pointer(null).f32(2f).i64(10);
        assertEquals(List.of(ParamType.POINTER, ParamType.POINTER, ParamType.FLOAT, ParamType.LONG), args.types());
        args.requireMatches(Kernel.SCALE);
    }

    @Test
    void aMismatchNamesTheOpTheKernelAndBothLists() {
        KernelArgs args = new KernelArgs("scale").pointer(null).pointer(null).f64(2.0).i64(10);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> args.requireMatches(Kernel.SCALE));
        assertEquals("scale: arguments [POINTER, POINTER, DOUBLE, LONG] do not match kernel attn4j_scale_f32"
                + " [POINTER, POINTER, FLOAT, LONG]", e.getMessage());
    }

    @Test
    void shapesAboveTheKernelRankAreRejectedWithTheOp() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new KernelArgs("add").shape(new int[9]));
        assertTrue(e.getMessage().startsWith("add: the CUDA kernels walk at most 8 dims"), e.getMessage());
    }
}
