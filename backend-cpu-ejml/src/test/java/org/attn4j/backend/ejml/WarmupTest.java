package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** The kernels' warm-up calls every kernel without failing, and starts once per JVM. */
class WarmupTest {

    @Test
    void everyRoundOfTheWarmUpRunsItsOpsWithoutFailing() {
        assumeTrue(Simd.enabled(), "the warm-up runs only with the SIMD kernels");
        EjmlBackend backend = new EjmlBackend("ejml", new EjmlBackendProvider().capabilities(), new Parallel(1));
        assertEquals(12, Warmup.run(backend, Long.MAX_VALUE, 12));
    }

    @Test
    void startsAtMostOncePerJvm() {
        new EjmlBackendProvider().create();
        assertFalse(Warmup.start(new EjmlBackendProvider().capabilities()), "a second start is refused");
    }
}
