package org.attn4j.backend.nd4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {
    private static final Backend BACKEND = new Nd4jBackendProvider().create();
    private static final int THREADS = 8;
    private static final int CALLS_PER_THREAD = 25;

    private static float[] attend(float[] q, float[] k, float[] v) {
        try (Scope scope = BACKEND.newScope()) {
            Tensor qt = scope.tensor(q, Shape.of(2, 4, 16, 32));
            Tensor kt = scope.tensor(k, Shape.of(2, 4, 24, 32));
            Tensor vt = scope.tensor(v, Shape.of(2, 4, 24, 32));
            AttentionOptions options = AttentionOptions.defaults().withCausal(true).withDropout(0.1, 5);
            return scope.ops().attention(qt, kt, vt, options).output().toFloatArray();
        }
    }

    private static float[] floats(long seed, int n) {
        double[] d = Oracle.random(seed, n);
        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = (float) d[i];
        }
        return f;
    }

    @Test
    void eightThreadsEachWithTheirOwnScopesGetBitIdenticalAttention() throws Exception {
        float[] q = floats(31, 2 * 4 * 16 * 32);
        float[] k = floats(32, 2 * 4 * 24 * 32);
        float[] v = floats(33, 2 * 4 * 24 * 32);
        float[] expected = attend(q, k, v);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<List<float[]>>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                results.add(pool.submit(() -> {
                    List<float[]> outs = new ArrayList<>();
                    for (int c = 0; c < CALLS_PER_THREAD; c++) {
                        outs.add(attend(q, k, v));
                    }
                    return outs;
                }));
            }
            for (int t = 0; t < THREADS; t++) {
                List<float[]> outs = results.get(t).get();
                for (int c = 0; c < outs.size(); c++) {
                    assertArrayEquals(expected, outs.get(c), "thread " + t + " call " + c);
                }
            }
        } finally {
            pool.shutdown();
        }
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
