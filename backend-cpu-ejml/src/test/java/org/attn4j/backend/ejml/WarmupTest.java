package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The kernels' warm-up calls every kernel without failing, starts once per JVM, and the calls of other threads wait
 * for its end, all together no longer than their bound.
 */
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

    @Test
    void aCallOnAnotherThreadReturnsOnlyOnceTheWarmUpHasEnded() throws InterruptedException {
        CountDownLatch ended = new CountDownLatch(1);
        Thread warming = new Thread(ended::countDown, "warm-up under test");
        warming.start();
        assertTrue(Warmup.await(warming, ended, new AtomicLong(), Long.MAX_VALUE / 4));
        assertEquals(0, ended.getCount(), "the wait ended before the warm-up did");
        warming.join();
    }

    @Test
    void theWarmUpItselfNeverWaitsForItsOwnEnd() {
        CountDownLatch ended = new CountDownLatch(1);
        assertFalse(Warmup.await(Thread.currentThread(), ended, new AtomicLong(), Long.MAX_VALUE / 4));
    }

    @Test
    void aWarmUpThatNeverEndsReleasesEveryWaitAtTheFirstWaitsBound() {
        CountDownLatch never = new CountDownLatch(1);
        Thread elsewhere = new Thread(() -> { }, "warm-up under test");
        AtomicLong waitEnd = new AtomicLong();
        assertFalse(Warmup.await(elsewhere, never, waitEnd, 1_000_000L));
        long bound = waitEnd.get();
        assertFalse(Warmup.await(elsewhere, never, waitEnd, Long.MAX_VALUE / 4), "a later wait is not bounded anew");
        assertEquals(bound, waitEnd.get());
    }

    @Test
    void nothingWaitsForAWarmUpThatNeverStarted() {
        assertTrue(Warmup.await(null, new CountDownLatch(1), new AtomicLong(), Long.MAX_VALUE / 4));
    }
}
