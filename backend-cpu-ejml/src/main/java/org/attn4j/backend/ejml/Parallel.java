package org.attn4j.backend.ejml;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The backend's worker pool: a {@link ForkJoinPool} of daemon threads, as many as the backend's thread count and
 * never more (no compensating threads while a task waits), shared by every scope; none with a count of one. Ops
 * split index ranges into tasks here; a range that is cheaper than {@link #MIN_WORK} per task runs on the calling
 * thread.
 */
final class Parallel {

    /** Roughly the number of multiply-adds below which forking a task costs more than it saves. */
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
        this.pool = threads == 1 ? null : new ForkJoinPool(threads, this::newWorker, null, false, 0, threads, 1,
                saturated -> true, 60, TimeUnit.SECONDS);
    }

    /** A daemon worker named {@code attn4j-ejml-N}, N counting from 0 (the pool index is not assigned yet here). */
    private ForkJoinWorkerThread newWorker(ForkJoinPool forPool) {
        ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(forPool);
        t.setName("attn4j-ejml-" + workersMade.getAndIncrement());
        t.setDaemon(true);
        return t;
    }

    /** @return how many workers the pool may have */
    int threads() {
        return threads;
    }

    /** @return how many workers the pool has started since it was made */
    int workersStarted() {
        return workersMade.get();
    }

    /**
     * Runs {@code body} over {@code [0, count)}, cut into at most about four pieces per thread and none smaller
     * than what {@link #MIN_WORK} allows, and waits for all of them. Exceptions of a piece are rethrown.
     *
     * @param count the number of indices
     * @param workPerIndex a rough cost of one index, in multiply-adds
     * @param body the work; pieces run concurrently and must write disjoint memory
     */
    void forRange(int count, long workPerIndex, Range body) {
        if (count <= 0) {
            return;
        }
        long total = Math.max(1, workPerIndex) * count;
        int pieces = (int) Math.min(Math.min(count, 4L * threads), Math.max(1, total / MIN_WORK));
        if (pieces <= 1 || threads == 1) {
            body.run(0, count);
            return;
        }
        int grain = (count + pieces - 1) / pieces;
        if (onOwnWorker()) {
            new Split(body, 0, count, grain).invoke();
        } else {
            pool.invoke(new Split(body, 0, count, grain));
        }
    }

    private boolean onOwnWorker() {
        return Thread.currentThread() instanceof ForkJoinWorkerThread w && w.getPool() == pool;
    }

    private static final class Split extends RecursiveAction {
        private final Range body;
        private final int from;
        private final int to;
        private final int grain;

        Split(Range body, int from, int to, int grain) {
            this.body = body;
            this.from = from;
            this.to = to;
            this.grain = grain;
        }

        @Override
        protected void compute() {
            if (to - from <= grain) {
                body.run(from, to);
                return;
            }
            int mid = from + (to - from) / 2;
            invokeAll(new Split(body, from, mid, grain), new Split(body, mid, to, grain));
        }
    }
}
