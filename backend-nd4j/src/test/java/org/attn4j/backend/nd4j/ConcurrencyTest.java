package org.attn4j.backend.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {
    private static float[] floats(long seed, int n) {
        double[] d = Oracle.random(seed, n);
        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = (float) d[i];
        }
        return f;
    }

    @Test
    void closingAScopeWhileAnotherThreadComputesThrowsIllegalStateAndFreesEveryByteAfterwards() throws Exception {
        Nd4jBackend backend = (Nd4jBackend) new Nd4jBackendProvider().create();
        float[] data = floats(41, 4 * 256 * 64);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < 20; round++) {
                Scope scope = backend.newScope();
                Tensor q = scope.tensor(data, Shape.of(1, 4, 256, 64));
                CountDownLatch started = new CountDownLatch(1);
                Future<Throwable> computing = pool.submit(() -> {
                    started.countDown();
                    try {
                        while (true) {
                            scope.ops().attention(q, q, q, AttentionOptions.defaults().withWeights(true));
                        }
                    } catch (Throwable e) {
                        return e;
                    }
                });
                started.await();
                Thread.sleep(0, 1000 * round);
                scope.close();
                assertInstanceOf(IllegalStateException.class, computing.get(), "round " + round);
                assertFalse(q.isOpen(), "round " + round);
                assertEquals(0, backend.liveBytes(), "native bytes still held after round " + round);
            }
        } finally {
            pool.shutdown();
        }
    }
}
