package org.attn4j.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;

/**
 * A scope closed by one thread while another computes with its tensors. A scope is confined to one thread, so
 * this is a mistake; the contract for it: the computing thread either finishes the op it had started, with its
 * full result, or throws {@link IllegalStateException}; the JVM never crashes and no op reads freed memory
 * (a native backend would crash or read garbage; an emulated device reports the read). Each round starts a
 * thread that loops attention (with and without returned weights), a transposed matmul and a copy out on
 * {@code [1, 4, 256, 64]} tensors of the scope, and closes the scope after a seeded delay of up to two
 * milliseconds.
 */
final class ClosingRaceSuite {
    private static final int ROUNDS = 12;
    private static final int MAX_LOOPS = 10_000;

    private ClosingRaceSuite() {
    }

    static List<TckCase> plan(long seed) {
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            cases.add(new TckCase("bad_input_close_scope_while_computing", Kind.BAD_INPUT, "attention", dtype,
                    dtype.name(), Set.of(), backend -> race(backend, dtype, AttentionOptions.defaults(),
                    new Random(seed))));
            cases.add(new TckCase("bad_input_close_scope_while_computing_weights", Kind.BAD_INPUT, "attention",
                    dtype, dtype.name(), Set.of(Feature.OPTIONAL_RETURNED_WEIGHTS), backend -> race(backend, dtype,
                    AttentionOptions.defaults().withWeights(true), new Random(seed))));
        }
        return cases;
    }

    private static Measurement race(Backend backend, DType dtype, AttentionOptions options, Random random) {
        String what = "attention case bad_input_close_scope_while_computing [" + dtype + "] on " + backend.name();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                Scope scope = backend.newScope();
                Tensor q = HostArrays.randn(random, 1.0, 1, 4, 256, 64).toTensor(scope, dtype);
                Tensor k = HostArrays.randn(random, 1.0, 1, 4, 256, 64).toTensor(scope, dtype);
                Tensor v = HostArrays.randn(random, 1.0, 1, 4, 256, 64).toTensor(scope, dtype);
                CountDownLatch started = new CountDownLatch(1);
                Future<Throwable> computing = pool.submit(() -> computeUntilClosed(scope, q, k, v, options, started));
                started.await();
                long delayNanos = random.nextInt(2_000_000);
                long until = System.nanoTime() + delayNanos;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                scope.close();
                Throwable outcome = computing.get(60, TimeUnit.SECONDS);
                if (outcome != null && !(outcome instanceof IllegalStateException)) {
                    return Measurement.failed(what + ": round " + round + ", closing after " + delayNanos / 1000
                            + " µs made the computing thread throw " + outcome + ", expected IllegalStateException"
                            + " or a completed op");
                }
                if (outcome == null) {
                    return Measurement.failed(what + ": round " + round + ", the computing thread ran " + MAX_LOOPS
                            + " ops on a closed scope without IllegalStateException");
                }
                if (q.isOpen() || k.isOpen() || v.isOpen()) {
                    return Measurement.failed(what + ": round " + round + ", a tensor of the closed scope is open");
                }
            }
            return Measurement.EXACT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while racing close against attention", e);
        } catch (ExecutionException | TimeoutException e) {
            return Measurement.failed(what + ": the computing thread did not finish: " + e);
        } finally {
            pool.shutdownNow();
        }
    }

    /** @return what ended the loop: the expected {@link IllegalStateException}, another throwable, or null */
    private static Throwable computeUntilClosed(Scope scope, Tensor q, Tensor k, Tensor v, AttentionOptions options,
                                                CountDownLatch started) {
        started.countDown();
        try {
            for (int i = 0; i < MAX_LOOPS; i++) {
                Tensor out = scope.ops().attention(q, k, v, options).output();
                Tensor logits = scope.ops().matmul(q, k, false, true);
                if (out.toFloatArray().length != q.shape().size() || logits.shape().dim(-1) != 256) {
                    return new AssertionError("wrong result size while racing close");
                }
            }
            return null;
        } catch (Throwable e) {
            return e;
        }
    }
}
