package org.attn4j.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;

/**
 * Gathers the texts of concurrent embeddings requests into one encoder call. One worker thread per encoder takes
 * the oldest waiting request, then every request already waiting, then those that keep arriving, each within one
 * batch window of the last (at most 10 windows in all), while the texts fit in {@code maxBatchTexts} (a request is
 * never split; one larger than the limit runs alone), and
 * runs {@link SentenceEmbedder#embed} on all of them at once, which sorts them by length and pads each batch to its
 * longest. Under load the requests that arrive while a batch runs form the next one, so the encoder runs full
 * batches; a request that comes alone runs alone, after the window.
 *
 * <p>A request alone gets exactly {@code embedder.embed(its texts)}. Gathered with others, a text's vector may
 * differ from that in the last bits of F32, since a backend's products and padded attention need not round a row
 * alike in batches of other shapes (on the EJML backend by up to about 1e-7).
 *
 * <p>The queue is bounded: a request that finds it full is refused at once (429). Requests whose deadline passed
 * or whose client gave up ({@link CompletableFuture#cancel}) before their batch starts are dropped unrun.
 */
final class EmbeddingBatcher implements AutoCloseable {
    /** The longest a batch waits for company, in windows. */
    private static final int WINDOWS = 10;

    private final SentenceEmbedder embedder;
    private final int maxBatchTexts;
    private final long windowNanos;
    private final BlockingQueue<Job> queue;
    private final long retryAfterSeconds;
    private final Thread worker;
    private Job carried;
    private volatile int running;
    private volatile boolean closed;
    private final StartupLog.FirstCall firstCall;

    /** One request's texts and where their vectors go. */
    record Job(List<String> texts, CompletableFuture<List<SentenceEmbedding>> result, long deadlineNanos) {
    }

    EmbeddingBatcher(String name, SentenceEmbedder embedder, ServerOptions options) {
        this.embedder = embedder;
        this.firstCall = new StartupLog.FirstCall("embeddings call of " + name);
        this.maxBatchTexts = options.maxBatchTexts();
        this.windowNanos = options.batchWindow().toNanos();
        this.queue = new ArrayBlockingQueue<>(options.maxQueuedEmbeddings());
        this.retryAfterSeconds = options.retryAfter().toSeconds();
        this.worker = new Thread(this::run, "attn4j-embed-" + name);
        this.worker.setDaemon(true);
        this.worker.start();
    }

    /**
     * @param texts the request's texts, at least one
     * @param deadlineNanos {@link System#nanoTime()} after which the request is no longer wanted
     * @return their embeddings, in order, once their batch has run
     * @throws ApiException 429 if the queue is full, 503 if the server is closing
     */
    CompletableFuture<List<SentenceEmbedding>> submit(List<String> texts, long deadlineNanos) {
        if (closed) {
            throw ApiException.of(503, "server_error", "shutting_down", "The server is shutting down");
        }
        Job job = new Job(texts, new CompletableFuture<>(), deadlineNanos);
        if (!queue.offer(job)) {
            throw ApiException.busy("The embeddings queue is full (" + (queue.size() + queue.remainingCapacity())
                    + " requests wait); retry after " + retryAfterSeconds + " s", retryAfterSeconds);
        }
        return job.result();
    }

    /** @return the requests waiting for the encoder */
    int waiting() {
        return queue.size() + (carried != null ? 1 : 0);
    }

    /** @return the texts of the batch the encoder runs now, 0 when idle */
    int running() {
        return running;
    }

    private void run() {
        try {
            while (!closed) {
                List<Job> batch = gather();
                if (!batch.isEmpty()) {
                    embed(batch);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            failPending();
        }
    }

    /** @return the next batch: whole live requests, at most {@code maxBatchTexts} texts unless one request is more */
    private List<Job> gather() throws InterruptedException {
        List<Job> batch = new ArrayList<>();
        Job first = carried != null ? carried : queue.take();
        carried = null;
        if (!live(first)) {
            return batch;
        }
        batch.add(first);
        int texts = first.texts().size();
        long now = System.nanoTime();
        long cap = now + WINDOWS * windowNanos;
        long until = now + windowNanos;
        while (texts < maxBatchTexts) {
            Job next = queue.poll();
            if (next == null) {
                long wait = Math.min(until, cap) - System.nanoTime();
                if (wait <= 0 || (next = queue.poll(wait, TimeUnit.NANOSECONDS)) == null) {
                    break;
                }
                until = System.nanoTime() + windowNanos;
            }
            if (!live(next)) {
                continue;
            }
            if (texts + next.texts().size() > maxBatchTexts) {
                carried = next;
                break;
            }
            batch.add(next);
            texts += next.texts().size();
        }
        return batch;
    }

    /** @return whether the job is still wanted; one past its deadline is failed with a timeout */
    private static boolean live(Job job) {
        if (job.result().isDone()) {
            return false;
        }
        if (System.nanoTime() - job.deadlineNanos() > 0) {
            job.result().completeExceptionally(ApiException.timeout("The request waited past the server's "
                    + "per-request timeout before the encoder was free"));
            return false;
        }
        return true;
    }

    private void embed(List<Job> batch) {
        List<String> all = new ArrayList<>();
        for (Job job : batch) {
            all.addAll(job.texts());
        }
        List<SentenceEmbedding> vectors;
        running = all.size();
        long start = System.nanoTime();
        try {
            vectors = embedder.embed(all);
            firstCall.ended(start, all.size() + (all.size() == 1 ? " text" : " texts"));
        } catch (RuntimeException | Error e) {
            for (Job job : batch) {
                job.result().completeExceptionally(e);
            }
            return;
        } finally {
            running = 0;
        }
        int from = 0;
        for (Job job : batch) {
            int to = from + job.texts().size();
            job.result().complete(vectors.subList(from, to));
            from = to;
        }
    }

    private void failPending() {
        List<Job> left = new ArrayList<>();
        if (carried != null) {
            left.add(carried);
        }
        queue.drainTo(left);
        for (Job job : left) {
            job.result().completeExceptionally(ApiException.of(503, "server_error", "shutting_down",
                    "The server is shutting down"));
        }
    }

    /** Stops the worker after its current batch; requests still waiting get 503. */
    @Override
    public void close() {
        closed = true;
        worker.interrupt();
        try {
            worker.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        failPending();
    }
}
