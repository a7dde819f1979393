package org.attn4j.bench.decode;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;

/**
 * The machine's memory bandwidth as STREAM's triad measures it, in Java: {@code a[i] = b[i] + s·c[i]} over three
 * arrays of {@link #SIZE} doubles (128 MiB each, several times any last-level cache), split over the given threads,
 * best of {@link #REPEATS} passes, counting STREAM's 24 bytes per index (the write-allocate read of {@code a} is not
 * counted, as in STREAM).
 */
final class MemoryBandwidth {
    static final int SIZE = 1 << 24;
    static final int REPEATS = 10;

    private MemoryBandwidth() {
    }

    /**
     * @param threads the threads that share the passes
     * @return bytes per second
     * @throws InterruptedException if interrupted
     */
    static double triad(int threads) throws InterruptedException {
        double[] a = new double[SIZE];
        double[] b = new double[SIZE];
        double[] c = new double[SIZE];
        java.util.Arrays.fill(b, 1.0);
        java.util.Arrays.fill(c, 2.0);
        double best = Double.MAX_VALUE;
        for (int r = 0; r < REPEATS + 1; r++) {
            CyclicBarrier start = new CyclicBarrier(threads + 1);
            CountDownLatch done = new CountDownLatch(threads);
            for (int t = 0; t < threads; t++) {
                int from = (int) ((long) SIZE * t / threads);
                int to = (int) ((long) SIZE * (t + 1) / threads);
                Thread worker = new Thread(() -> {
                    try {
                        start.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    for (int i = from; i < to; i++) {
                        a[i] = b[i] + 3.0 * c[i];
                    }
                    done.countDown();
                });
                worker.setDaemon(true);
                worker.start();
            }
            try {
                start.await();
            } catch (java.util.concurrent.BrokenBarrierException e) {
                throw new IllegalStateException(e);
            }
            long t0 = System.nanoTime();
            done.await();
            long elapsed = System.nanoTime() - t0;
            if (r > 0) {
                best = Math.min(best, elapsed);
            }
        }
        if (a[SIZE / 2] != 7.0) {
            throw new IllegalStateException("triad computed " + a[SIZE / 2] + " instead of 7");
        }
        return 24.0 * SIZE / (best / 1e9);
    }
}
