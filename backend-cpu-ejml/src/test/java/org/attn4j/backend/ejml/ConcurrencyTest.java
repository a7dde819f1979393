package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {
    @Test
    void theCallerAndTheNamedWorkersRunThePiecesTogether() {
        Parallel parallel = new Parallel(3);
        Set<String> names = ConcurrentHashMap.newKeySet();
        CountDownLatch allRunning = new CountDownLatch(3);
        parallel.forRange(3, Parallel.MIN_WORK, (from, to) -> {
            names.add(Thread.currentThread().getName());
            allRunning.countDown();
            try {
                allRunning.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertEquals(Set.of(Thread.currentThread().getName(), "attn4j-ejml-0", "attn4j-ejml-1"), names);
    }

    @Test
    void everyIndexRunsOnceAndAPiecesFailureIsRethrownAfterTheOthersFinish() {
        Parallel parallel = new Parallel(2);
        AtomicInteger sum = new AtomicInteger();
        parallel.forRange(1000, Parallel.MIN_WORK, (from, to) -> {
            for (int i = from; i < to; i++) {
                sum.addAndGet(i);
            }
        });
        assertEquals(999 * 1000 / 2, sum.get());
        AtomicInteger finished = new AtomicInteger();
        assertThrows(IllegalStateException.class, () -> parallel.forRange(8, Parallel.MIN_WORK, (from, to) -> {
            if (from == 0) {
                throw new IllegalStateException("piece 0");
            }
            finished.incrementAndGet();
        }));
        assertEquals(7, finished.get(), "the other pieces ran to the end before the failure came back");
    }
}
