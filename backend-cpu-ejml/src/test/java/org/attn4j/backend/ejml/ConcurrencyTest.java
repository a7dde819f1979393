package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {
    private static final Backend BACKEND = new EjmlBackendProvider().create();

    private static float[] data(int n, long seed) {
        Random r = new Random(seed);
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) r.nextGaussian();
        }
        return a;
    }

    @Test
    void sameAttentionFromEightThreadsIsBitIdentical() throws Exception {
        Shape shape = Shape.of(2, 4, 160, 32);
        float[] q = data((int) shape.size(), 1);
        float[] k = data((int) shape.size(), 2);
        float[] v = data((int) shape.size(), 3);
        AttentionOptions options = AttentionOptions.defaults().withCausal(true)
                .withMask(Mask.keyPadding(new int[] {150, 160}, 160)).withDropout(0.1, 5);
        Callable<float[]> job = () -> {
            try (Scope s = BACKEND.newScope()) {
                Tensor out = s.ops().attention(s.tensor(q, shape), s.tensor(k, shape), s.tensor(v, shape), options)
                        .output();
                return s.ops().matmul(out, s.tensor(k, shape), false, true).toFloatArray();
            }
        };
        float[] expected = job.call();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<float[]>> results = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                for (int t = 0; t < 8; t++) {
                    results.add(pool.submit(job));
                }
            }
            for (Future<float[]> f : results) {
                assertArrayEquals(expected, f.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

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
