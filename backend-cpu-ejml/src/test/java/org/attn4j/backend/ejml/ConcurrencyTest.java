package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {
    @Test
    void poolWorkersHaveDistinctNames() {
        Parallel parallel = new Parallel(2);
        Set<String> names = ConcurrentHashMap.newKeySet();
        CountDownLatch bothRunning = new CountDownLatch(2);
        parallel.forRange(2, Parallel.MIN_WORK, (from, to) -> {
            names.add(Thread.currentThread().getName());
            bothRunning.countDown();
            try {
                bothRunning.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertEquals(Set.of("attn4j-ejml-0", "attn4j-ejml-1"), names);
    }
}
