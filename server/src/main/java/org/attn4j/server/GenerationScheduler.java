package org.attn4j.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.generate.BatchDecoder;
import org.attn4j.models.generate.Generation;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.PromptCache;
import org.attn4j.models.generate.TokenListener;

/**
 * Shares the machine among generation requests by continuous batching. A request is admitted if fewer than
 * {@code maxActive + maxQueued} are in the house (else 429 with {@code Retry-After}); it then waits, in arrival order,
 * for one of {@code maxActive} slots ({@code --parallel}). One worker thread runs every generation holding a slot: each
 * step advances all of a model's generations at once ({@link BatchDecoder#step()}, one {@link CausalLM#step} that
 * reads the weights once), a generation still reading its prompt by a chunk of {@value #PREFILL_CHUNK} tokens, so that
 * a long prompt does not stall the others; generations join and leave between steps. With several decoder models,
 * their batches step in turn. One step runs at a time: the backend already spreads a step over the cores.
 *
 * <p>The worker only hands each new token to its request's queue; the request's own thread turns tokens into text
 * and writes them, so a slow reader holds up no one. A request whose client is gone or whose deadline passed is
 * cancelled and leaves before the next step. Since every op of a step gives a row the same bits whatever rows share
 * it, and a prompt's chunks are cut from that prompt alone, a request's tokens do not depend on what else runs.
 *
 * <p>With {@link ServerOptions#cacheBytes()} above 0, every batch shares one {@link PromptCache} of that many bytes:
 * a generation joins with the keys and values of the longest run of whole chunks its prompt shares with a prompt
 * read before (the same request again, a chat's earlier turns), reads only the rest, and gets the same bits as
 * without it; {@link Ticket#cachedTokens()} says how many prompt tokens it took from there.
 *
 * <p>The worker starts with the first request and ends when no generation is running or waiting.
 */
final class GenerationScheduler {
    /** The most prompt tokens one generation reads in one step. */
    static final int PREFILL_CHUNK = 64;

    private final Semaphore admitted;
    private final int capacity;
    private final int maxActive;
    private final long retryAfterSeconds;
    private final Object lock = new Object();
    private final ArrayDeque<Job> waiting = new ArrayDeque<>();
    private final AtomicInteger running = new AtomicInteger();
    /** The first step of each model's batch, logged once ({@link StartupLog}); read by the scheduler's thread. */
    private final Map<BatchDecoder, StartupLog.FirstCall> firstSteps = new IdentityHashMap<>();
    private final PromptCache prompts;
    private boolean working;

    GenerationScheduler(ServerOptions options) {
        this.capacity = options.maxActiveGenerations() + options.maxQueuedGenerations();
        this.admitted = new Semaphore(capacity);
        this.maxActive = options.maxActiveGenerations();
        this.retryAfterSeconds = options.retryAfter().toSeconds();
        this.prompts = options.cacheBytes() > 0 ? new PromptCache(options.cacheBytes()) : null;
    }

    /** @return what the prompt cache holds and how it has served, or null when the server keeps none */
    PromptCache.Stats promptCache() {
        return prompts == null ? null : prompts.stats();
    }

    /** Frees the prompt cache's keys and values; the server answers no more generations. */
    void close() {
        if (prompts != null) {
            prompts.close();
        }
    }

    /** @return how many generations hold a slot now */
    int running() {
        return running.get();
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

    private void submit(Job job) {
        synchronized (lock) {
            waiting.add(job);
            if (!working) {
                working = true;
                Thread worker = new Thread(this::work, "attn4j-generations");
                worker.setDaemon(true);
                worker.start();
            } else {
                lock.notifyAll();
            }
        }
    }

    /** The worker: fills the free slots from the queue, steps every batch, hands out what ended; until idle. */
    private void work() {
        Map<CausalLM, BatchDecoder> batches = new IdentityHashMap<>();
        List<Job> active = new ArrayList<>();
        try {
            loop(batches, active);
        } catch (RuntimeException | Error e) {
            RuntimeException failure = e instanceof RuntimeException r ? r : new IllegalStateException(
                    "generation: the scheduler failed: " + e, e);
            synchronized (lock) {
                for (Job job : active) {
                    job.end(null, failure);
                }
                running.addAndGet(-active.size());
                for (Job job : waiting) {
                    job.end(null, failure);
                }
                waiting.clear();
                working = false;
            }
            batches.values().forEach(BatchDecoder::close);
            throw e;
        }
    }

    private void loop(Map<CausalLM, BatchDecoder> batches, List<Job> active) {
        while (true) {
            synchronized (lock) {
                while (active.size() < maxActive && !waiting.isEmpty()) {
                    Job job = waiting.poll();
                    if (job.cancelled) {
                        job.end(null, null);
                        continue;
                    }
                    try {
                        BatchDecoder batch = batches.computeIfAbsent(job.model,
                                m -> new BatchDecoder(m, PREFILL_CHUNK, prompts));
                        job.sequence = batch.join(job.prompt, job.options, new TokenListener() {
                            @Override
                            public boolean onToken(int token, float[] logits) {
                                job.events.add(new Chosen(token, job.withLogits ? logits : null));
                                return !job.cancelled;
                            }

                            @Override
                            public boolean onToken(int token) {
                                return onToken(token, null);
                            }
                        });
                        job.cached = job.sequence.cachedTokens();
                        active.add(job);
                        running.incrementAndGet();
                        job.started.countDown();
                    } catch (RuntimeException e) {
                        job.end(null, e);
                    }
                }
                if (active.isEmpty()) {
                    working = false;
                    return;
                }
            }
            for (Job job : active) {
                if (job.cancelled) {
                    job.sequence.leave();
                }
            }
            for (BatchDecoder batch : batches.values()) {
                if (batch.active() == 0) {
                    continue;
                }
                try {
                    long start = System.nanoTime();
                    int sequences = batch.active();
                    batch.step();
                    firstSteps.computeIfAbsent(batch, b -> new StartupLog.FirstCall("decoding step"))
                            .ended(start, sequences + (sequences == 1 ? " sequence" : " sequences"));
                } catch (RuntimeException e) {
                    for (Job job : active) {
                        if (job.sequence.finished() && job.sequence.generation() == null) {
                            job.fail = e;
                        }
                    }
                }
            }
            for (Iterator<Job> it = active.iterator(); it.hasNext(); ) {
                Job job = it.next();
                if (job.sequence.finished()) {
                    it.remove();
                    running.decrementAndGet();
                    job.end(job.sequence.generation(), job.fail);
                }
            }
        }
    }

    /** One request's generation as the worker sees it: what to run, and the queue its tokens go to. */
    private static final class Job {
        private final CausalLM model;
        private final int[] prompt;
        private final GenerationOptions options;
        private final boolean withLogits;
        private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
        private final CountDownLatch started = new CountDownLatch(1);
        private volatile boolean cancelled;
        private volatile int cached;
        private BatchDecoder.Sequence sequence;
        private RuntimeException fail;

        Job(CausalLM model, int[] prompt, GenerationOptions options, boolean withLogits) {
            this.model = model;
            this.prompt = prompt;
            this.options = options;
            this.withLogits = withLogits;
        }

        /** Queues the end: the generation, or the failure, or (cancelled before it ran) nothing. */
        void end(Generation generation, RuntimeException failure) {
            events.add(failure != null ? failure : generation != null ? generation : Ended.NOTHING);
            started.countDown();
        }
    }

    /**
     * A token the worker chose for a request.
     *
     * @param token its id
     * @param logits the logits it was chosen from, {@code [vocab]}, when the request asked for them; else null
     */
    record Chosen(int token, float[] logits) {
    }

    /** The end of a generation that never ran. */
    private enum Ended {
        NOTHING
    }

    /**
     * One request's place: admitted, then a slot in the batch, then its tokens as they come. Not thread-safe: one
     * request's thread uses it.
     */
    final class Ticket implements AutoCloseable {
        private Job job;
        private boolean closed;

        /**
         * Queues the generation and waits until it holds a slot.
         *
         * @param model the model
         * @param prompt the prompt's ids
         * @param options how to choose tokens and when to stop
         * @param withLogits whether each token comes with the logits it was chosen from (for log-probabilities)
         * @param deadlineNanos when the request stops being wanted
         * @throws ApiException 503 if the deadline passes first, or what joining the batch threw
         */
        void start(CausalLM model, int[] prompt, GenerationOptions options, boolean withLogits, long deadlineNanos)
                throws InterruptedException {
            if (deadlineNanos - System.nanoTime() <= 0) {
                throw slotTimeout();
            }
            job = new Job(model, prompt, options, withLogits);
            submit(job);
            if (!job.started.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                job.cancelled = true;
                throw slotTimeout();
            }
            Object first = job.events.peek();
            if (first instanceof RuntimeException e) {
                throw e;
            }
        }

        private ApiException slotTimeout() {
            return ApiException.timeout("The request waited past the server's per-request timeout for a "
                    + "generation slot");
        }

        /**
         * @param deadlineNanos when the request stops being wanted
         * @return the next token ({@link Chosen}), or the {@link Generation} once it ended (also when cancelled),
         *     or null if the deadline passed first
         * @throws RuntimeException what the model threw
         */
        Object next(long deadlineNanos) throws InterruptedException {
            Object e = job.events.poll(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (e instanceof RuntimeException failure) {
                throw failure;
            }
            return e == Ended.NOTHING ? null : e;
        }

        /**
         * @return how many of the prompt's tokens the generation took from the prompt cache instead of reading them;
         *     meaningful once {@link #start} returned
         */
        int cachedTokens() {
            return job == null ? 0 : job.cached;
        }

        /** Asks the worker to end the generation before its next step; its tokens are no longer wanted. */
        void cancel() {
            if (job != null) {
                job.cancelled = true;
            }
        }

        /** Cancels the generation if it still runs, and gives back the place. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            cancel();
            admitted.release();
        }
    }
}
