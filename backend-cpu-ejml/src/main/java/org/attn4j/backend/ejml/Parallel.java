package org.attn4j.backend.ejml;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The backend's worker pool, shared by every scope: up to {@code threads - 1} daemon workers (none with a count of
 * one), started when an op first needs them, with the calling thread as the last one. An op splits an index range
 * into pieces and offers them to at most {@code threads - 1} helpers; the caller and the helpers that come take
 * pieces from one counter until none are left, so a piece costs no task object and no wake-up of its own, and the
 * pieces balance themselves. When the caller has run out of pieces it withdraws the offers no helper has taken yet,
 * so it never waits for a worker to wake up only to find nothing left. A range that is cheaper than
 * {@link #MIN_WORK} per piece runs on the calling thread alone, as does every range asked for from a worker.
 *
 * <p>An idle worker keeps looking for the next offer for {@link #SPIN_NANOS} before it parks, as ONNX Runtime's
 * pool spins: the ops of a forward come a few microseconds apart, and waking a parked thread costs tens of
 * microseconds, more than a small op's whole work (a 16-token sentence, one decoding step). A worker parked for
 * {@link #KEEP_ALIVE_NANOS} ends; the next op that needs it starts another.
 */
final class Parallel {

    /** Roughly the number of multiply-adds below which handing work to another thread costs more than it saves. */
    static final long MIN_WORK = 1L << 15;
    /** How long an idle worker looks for the next offer before it parks. */
    static final long SPIN_NANOS = 50_000L;
    /** How long a parked worker waits for an offer before it ends. */
    static final long KEEP_ALIVE_NANOS = 60_000_000_000L;

    /** A body that handles the indices {@code [from, to)}. */
    @FunctionalInterface
    interface Range {
        void run(int from, int to);
    }

    private final int threads;
    private final AtomicInteger workersMade = new AtomicInteger();
    /** The calls with pieces to offer, once per helper asked for; a worker takes an offer if it is still open. */
    private final ConcurrentLinkedQueue<Shared> offers = new ConcurrentLinkedQueue<>();
    /** The running workers, at most {@code threads - 1}; guarded by {@code this}. */
    private final Worker[] workers;

    Parallel(int threads) {
        this.threads = threads;
        this.workers = new Worker[Math.max(0, threads - 1)];
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
        if (count > 0 && !onOwnWorker()) {
            Warmup.await();
        }
        forRangeBesideWarmup(count, workPerIndex, body);
    }

    /**
     * {@link #forRange} without waiting for the kernels' warm-up: for work that calls none of the kernels it
     * compiles (building a weight's storage while a model loads), which then runs beside the warm-up.
     *
     * @param count the number of indices
     * @param workPerIndex a rough cost of one index, in multiply-adds
     * @param body the work; pieces run concurrently and must write disjoint memory
     */
    void forRangeBesideWarmup(int count, long workPerIndex, Range body) {
        if (count <= 0) {
            return;
        }
        long total = Math.max(1, workPerIndex) * count;
        int pieces = (int) Math.min(Math.min(count, 4L * threads), Math.max(1, total / MIN_WORK));
        if (pieces <= 1 || workers.length == 0 || onOwnWorker()) {
            body.run(0, count);
            return;
        }
        int helpers = Math.min(workers.length, pieces - 1);
        Shared shared = new Shared(body, count, pieces, helpers);
        for (int h = 0; h < helpers; h++) {
            offers.offer(shared);
        }
        wake(helpers);
        shared.work(false);
        shared.awaitHelpers();
    }

    private boolean onOwnWorker() {
        return Thread.currentThread() instanceof Worker w && w.pool == this;
    }

    /** Unparks up to {@code wanted} workers, starting those not running. */
    private void wake(int wanted) {
        int woken = 0;
        for (int i = 0; i < workers.length && woken < wanted; i++) {
            Worker w = workers[i];
            if (w == null) {
                synchronized (this) {
                    w = workers[i];
                    if (w == null) {
                        w = new Worker(this, i, "attn4j-ejml-" + workersMade.getAndIncrement());
                        workers[i] = w;
                        w.start();
                    }
                }
            }
            if (w.parked) {
                LockSupport.unpark(w);
            }
            woken++;
        }
    }

    /**
     * Ends a worker that has waited {@link #KEEP_ALIVE_NANOS} with nothing offered.
     *
     * @return whether it ended; false when an offer came in meanwhile
     */
    private synchronized boolean retire(Worker w) {
        if (!offers.isEmpty()) {
            return false;
        }
        workers[w.index] = null;
        return true;
    }

    /** A daemon worker: takes offers, spins a while when there are none, then parks. */
    private static final class Worker extends Thread {
        final Parallel pool;
        final int index;
        volatile boolean parked;

        Worker(Parallel pool, int index, String name) {
            super(name);
            this.pool = pool;
            this.index = index;
            setDaemon(true);
        }

        @Override
        public void run() {
            ConcurrentLinkedQueue<Shared> offers = pool.offers;
            while (true) {
                Shared s = offers.poll();
                if (s != null) {
                    if (s.take()) {
                        s.work(true);
                    }
                    continue;
                }
                long spinUntil = System.nanoTime() + SPIN_NANOS;
                while (offers.isEmpty() && System.nanoTime() < spinUntil) {
                    Thread.onSpinWait();
                }
                if (!offers.isEmpty()) {
                    continue;
                }
                long parkUntil = System.nanoTime() + KEEP_ALIVE_NANOS;
                parked = true;
                while (offers.isEmpty() && System.nanoTime() < parkUntil) {
                    LockSupport.parkNanos(this, parkUntil - System.nanoTime());
                }
                parked = false;
                if (offers.isEmpty() && pool.retire(this)) {
                    return;
                }
            }
        }
    }

    /** The pieces of one call, taken from a counter by the caller and its helpers. */
    private static final class Shared {
        private final Range body;
        private final int count;
        private final int pieces;
        private final int helpers;
        private final AtomicInteger next = new AtomicInteger();
        /** Offers not yet taken by a worker nor withdrawn by the caller. */
        private final AtomicInteger open;
        private final AtomicInteger done = new AtomicInteger();
        private volatile Throwable failure;

        Shared(Range body, int count, int pieces, int helpers) {
            this.body = body;
            this.count = count;
            this.pieces = pieces;
            this.helpers = helpers;
            this.open = new AtomicInteger(helpers);
        }

        /** @return whether a worker took one of the open offers (and must then {@link #work} as a helper) */
        boolean take() {
            for (int n; (n = open.get()) > 0; ) {
                if (open.compareAndSet(n, n - 1)) {
                    return true;
                }
            }
            return false;
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

        /**
         * Withdraws the offers no worker has taken, waits until every helper that took one has finished its last
         * piece, then rethrows a piece's failure.
         */
        void awaitHelpers() {
            int came = helpers - open.getAndSet(0);
            boolean interrupted = false;
            for (int spin = 0; done.get() < came && spin < 2000; spin++) {
                Thread.onSpinWait();
            }
            synchronized (this) {
                while (done.get() < came) {
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
