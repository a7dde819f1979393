package org.attn4j.tck;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Mask;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;

/**
 * One backend shared by {@value #THREADS} threads, each with its own scopes, gives results bit-identical to a
 * serial call: causal attention of {@code [2, 4, 160, 32]} (large enough for tiled kernels) with a key padding
 * mask of lengths {@code [150, 160]}, once without dropout and once with seeded dropout {@code p = 0.1}, whose mask
 * depends on the seed alone. Each thread makes {@value #ROUNDS} calls.
 */
final class ConcurrencySuite {
    private static final int THREADS = 8;
    private static final int ROUNDS = 3;

    private ConcurrencySuite() {
    }

    static List<TckCase> plan(long seed) {
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            for (boolean dropout : new boolean[] {false, true}) {
                String id = "law_threads_sharing_a_backend_match_serial_calls_bit_for_bit"
                        + (dropout ? "_with_dropout" : "");
                Set<Feature> needs = dropout ? Set.of(Feature.OPTIONAL_DROPOUT) : Set.of();
                cases.add(new TckCase(id, Kind.LAW, "attention", dtype, dtype.name(), needs,
                        backend -> check(backend, dtype, dropout, HostArrays.random(id, seed), id)));
            }
        }
        return cases;
    }

    private static Measurement check(Backend backend, DType dtype, boolean dropout, Random random, String id) {
        Shape shape = Shape.of(2, 4, 160, 32);
        double[] q = HostArrays.randn(random, 1.0, 2, 4, 160, 32).data();
        double[] k = HostArrays.randn(random, 1.0, 2, 4, 160, 32).data();
        double[] v = HostArrays.randn(random, 1.0, 2, 4, 160, 32).data();
        AttentionOptions base = AttentionOptions.defaults().withCausal(true)
                .withMask(Mask.keyPadding(new int[] {150, 160}, 160));
        AttentionOptions options = dropout ? base.withDropout(0.1, random.nextLong()) : base;
        Callable<double[]> job = () -> {
            try (Scope s = backend.newScope()) {
                return s.ops().attention(s.tensor(q, shape, dtype), s.tensor(k, shape, dtype),
                        s.tensor(v, shape, dtype), options).output().toDoubleArray();
            }
        };
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            double[] serial = job.call();
            List<Future<double[]>> futures = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                for (int t = 0; t < THREADS; t++) {
                    futures.add(pool.submit(job));
                }
            }
            for (int call = 0; call < futures.size(); call++) {
                double[] got = futures.get(call).get();
                int index = Arrays.mismatch(serial, got);
                if (index >= 0) {
                    return Measurement.failed("attention case " + id + " [" + dtype + "] on " + backend.name()
                            + ": concurrent call " + call + " differs from the serial call at index " + index
                            + ": expected " + serial[index] + ", actual " + got[index]);
                }
            }
            return Measurement.EXACT;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the attention threads", e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            pool.shutdownNow();
        }
    }
}
