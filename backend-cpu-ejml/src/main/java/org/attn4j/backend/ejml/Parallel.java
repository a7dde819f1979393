package org.attn4j.backend.ejml;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The backend's worker pool, shared by every scope: {@code threads - 1} daemon workers of a {@link ForkJoinPool}
 * (never more: no compensating threads while a piece waits; none with a count of one), with the calling thread as
 * the last one. An op splits an index range into pieces; the caller wakes at most
 * {@code threads - 1} helpers, and it and they take pieces from one counter until none are left, so a piece costs
 * no task object and no wake-up of its own, and the pieces balance themselves. A range that is cheaper than
 * {@link #MIN_WORK} per piece runs on the calling thread alone, as does every range asked for from a worker.
 */
final class Parallel {

    /** Roughly the number of multiply-adds below which handing work to another thread costs more than it saves. */
    static final long MIN_WORK = 1L << 15;

    /** A body that handles the indices {@code [from, to)}. */
    @FunctionalInterface
    interface Range {
        void run(int from, int to);
    }

    private final int threads;
    private final AtomicInteger workersMade = new AtomicInteger();
    private final ForkJoinPool pool;

    Parallel(int threads) {
        this.threads = threads;
        this.pool = threads > 1 ? new ForkJoinPool(threads - 1, this::newWorker, null, false, 0, threads - 1, 1,
                saturated -> true, 60, TimeUnit.SECONDS) : null;
    }

    /** A daemon worker named {@code attn4j-ejml-N}, N counting from 0 (the pool index is not assigned yet here). */
    private ForkJoinWorkerThread newWorker(ForkJoinPool forPool) {
        ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(forPool);
        t.setName("attn4j-ejml-" + workersMade.getAndIncrement());
        t.setDaemon(true);
        return t;
    }

    /** @return how many threads an op runs on: the workers and the caller */
    int threads() {
        return threads;
    }

    /** @return how many workers the pool has started since it was made */
    int workersStarted() {
        return workersMade.get();
    }

    /**
     * Runs {@code body} over {@code [0, count)}, cut into at most about four pieces per thread and none smaller
     * than what {@link #MIN_WORK} allows, and waits for all of them. The first exception of a piece is rethrown once
     * every piece has finished. A call made while the kernels' warm-up runs on another thread first waits for it
     * ({@link Warmup#await}).
     *
     * @param count the number of indices
     * @param workPerIndex a rough cost of one index, in multiply-adds
     * @param body the work; pieces run concurrently and must write disjoint memory
     */
    void forRange(int count, long workPerIndex, Range body) {
        if (count <= 0) {
            return;
        }
        if (!onOwnWorker()) {
            Warmup.await();
        }
        long total = Math.max(1, workPerIndex) * count;
        int pieces = (int) Math.min(Math.min(count, 4L * threads), Math.max(1, total / MIN_WORK));
        if (pieces <= 1 || pool == null || onOwnWorker()) {
            body.run(0, count);
            return;
        }
        Shared shared = new Shared(body, count, pieces);
        int helpers = Math.min(threads - 1, pieces - 1);
        for (int h = 0; h < helpers; h++) {
            pool.execute(() -> shared.work(true));
        }
        shared.work(false);
        shared.awaitHelpers(helpers);
    }

    private boolean onOwnWorker() {
        return Thread.currentThread() instanceof ForkJoinWorkerThread w && w.getPool() == pool;
    }

    /** The pieces of one call, taken from a counter by the caller and its helpers. */
    private static final class Shared {
        private final Range body;
        private final int count;
        private final int pieces;
        private final AtomicInteger next = new AtomicInteger();
        private final AtomicInteger done = new AtomicInteger();
        private volatile Throwable failure;

        Shared(Range body, int count, int pieces) {
            this.body = body;
            this.count = count;
            this.pieces = pieces;
        }

        /** Takes pieces until none are left; a helper then counts itself done. */
        void work(boolean helper) {
            try {
                for (int p; (p = next.getAndIncrement()) < pieces; ) {
                    int from = (int) ((long) count * p / pieces);
                    int to = (int) ((long) count * (p + 1) / pieces);
                    try {
                        body.run(from, to);
                    } catch (Throwable t) {
                        if (failure == null) {
                            failure = t;
                        }
                    }
                }
            } finally {
                if (helper) {
                    synchronized (this) {
                        done.incrementAndGet();
                        notifyAll();
                    }
                }
            }
        }

        /** Waits until every helper has finished its last piece, then rethrows a piece's failure. */
        void awaitHelpers(int helpers) {
            boolean interrupted = false;
            for (int spin = 0; done.get() < helpers && spin < 2000; spin++) {
                Thread.onSpinWait();
            }
            synchronized (this) {
                while (done.get() < helpers) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            Throwable t = failure;
            if (t instanceof RuntimeException r) {
                throw r;
            }
            if (t instanceof Error e) {
                throw e;
            }
        }
    }
}
