package org.attn4j.server;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Shares the machine among generation requests. A request is admitted if fewer than {@code maxActive + maxQueued}
 * are in the house (else 429 with {@code Retry-After}); it then waits, in arrival order, for one of
 * {@code maxActive} slots; the requests holding a slot take turns, one model step each (the prompt, then one token),
 * in the order they asked for their turn, so a long generation slows a short one down by a step at a time instead
 * of making it wait to the end. One step runs at a time: the backend already spreads a step over the cores. A turn
 * is given back before the token is written to the client, so a slow reader never holds up the others.
 */
final class GenerationScheduler {
    private final Semaphore admitted;
    private final Semaphore slots;
    private final Semaphore turn = new Semaphore(1, true);
    private final int capacity;
    private final int maxActive;
    private final long retryAfterSeconds;

    GenerationScheduler(ServerOptions options) {
        this.capacity = options.maxActiveGenerations() + options.maxQueuedGenerations();
        this.admitted = new Semaphore(capacity);
        this.maxActive = options.maxActiveGenerations();
        this.slots = new Semaphore(maxActive, true);
        this.retryAfterSeconds = options.retryAfter().toSeconds();
    }

    /** @return how many generations hold a slot now */
    int running() {
        return maxActive - slots.availablePermits();
    }

    /** @return how many generations are admitted and wait for a slot now */
    int waiting() {
        return Math.max(0, capacity - admitted.availablePermits() - running());
    }

    /**
     * @return a ticket to close when the request ends
     * @throws ApiException 429 if the house is full
     */
    Ticket admit() {
        if (!admitted.tryAcquire()) {
            throw ApiException.busy("The server is busy: " + capacity + " generation requests are running or "
                    + "waiting; retry after " + retryAfterSeconds + " s", retryAfterSeconds);
        }
        return new Ticket();
    }

    /** One request's place: admitted, then a slot, then turns. Not thread-safe: one request's thread uses it. */
    final class Ticket implements AutoCloseable {
        private boolean slot;
        private boolean turnHeld;
        private boolean closed;

        /**
         * Waits for a slot, then for the first turn.
         *
         * @param deadlineNanos when the request stops being wanted
         * @throws ApiException 503 if the deadline passes first
         */
        void start(long deadlineNanos) throws InterruptedException {
            if (deadlineNanos - System.nanoTime() <= 0
                    || !slots.tryAcquire(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw ApiException.timeout("The request waited past the server's per-request timeout for a "
                        + "generation slot");
            }
            slot = true;
            takeTurn(deadlineNanos);
        }

        /** Gives the turn to the next request in line; call before anything slow (writing to the client). */
        void yieldTurn() {
            if (turnHeld) {
                turnHeld = false;
                turn.release();
            }
        }

        /**
         * Waits for this request's next turn.
         *
         * @param deadlineNanos when the request stops being wanted
         * @throws ApiException 503 if the deadline passes first
         */
        void takeTurn(long deadlineNanos) throws InterruptedException {
            if (deadlineNanos - System.nanoTime() <= 0
                    || !turn.tryAcquire(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw ApiException.timeout("The request ran past the server's per-request timeout");
            }
            turnHeld = true;
        }

        /** Gives back the turn, the slot and the place. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            yieldTurn();
            if (slot) {
                slots.release();
            }
            admitted.release();
        }
    }
}
