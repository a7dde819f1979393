package org.attn4j.tck;

import java.util.List;
import java.util.Random;
import java.util.Set;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;

/**
 * A thread count given to the provider is honoured: backends created with {@code withThreads(1)} and
 * {@code withThreads(2)} report that count in {@code Capabilities.maxThreads()} (or what {@code attn4j.threads} /
 * {@code ATTN4J_THREADS} says, which win), except a backend whose default is one thread, which may keep one; and
 * each computes causal attention of {@code [1, 2, 48, 16]} as the backend under test does, within the law
 * tolerance. A backend created by default is made last, so that a backend whose counts are the process's (ND4J) is
 * left as the kit found it. A backend of one thread by default gets only {@code withThreads(2)}, which it must
 * accept and may ignore: one backend more rather than three (a CUDA backend holds a context for the JVM's life).
 * Planned only when the kit has the provider, not a backend instance.
 */
final class ThreadCountSuite {

    private ThreadCountSuite() {
    }

    static List<TckCase> plan(BackendUnderTest underTest, ToleranceTable tolerances, long seed) {
        if (!underTest.hasProvider()) {
            return List.of();
        }
        String id = "law_a_thread_count_given_at_creation_is_honoured";
        return List.of(new TckCase(id, Kind.LAW, "threads", DType.F32, "F32", Set.of(),
                backend -> check(underTest, backend, tolerances.lookup("law", id, DType.F32),
                        HostArrays.random(id, seed), id)));
    }

    private static Measurement check(BackendUnderTest underTest, Backend backend, Tolerance tolerance, Random random,
                                     String id) {
        Shape shape = Shape.of(1, 2, 48, 16);
        double[] q = HostArrays.randn(random, 1.0, 1, 2, 48, 16).data();
        double[] k = HostArrays.randn(random, 1.0, 1, 2, 48, 16).data();
        double[] v = HostArrays.randn(random, 1.0, 1, 2, 48, 16).data();
        double[] expected = attention(backend, q, k, v, shape);
        int byDefault = underTest.capabilities().maxThreads();
        int[] counts = byDefault == 1 ? new int[] {2} : new int[] {1, 2};
        try {
            for (int count : counts) {
                BackendOptions options = BackendOptions.defaults().withThreads(count);
                Backend made = underTest.create(options);
                int asked = options.resolveThreads(byDefault);
                int reported = made.capabilities().maxThreads();
                if (reported != asked && !(reported == 1 && byDefault == 1)) {
                    return Measurement.failed("threads case " + id + " on " + underTest.name() + ": created with "
                            + options + " (" + asked + " threads once attn4j.threads and ATTN4J_THREADS are read)"
                            + ", it reports maxThreads " + reported);
                }
                Measurement m = Comparison.compare("attention case " + id + " [F32] on " + underTest.name()
                        + " created with " + options + ": output", shape, expected, shape,
                        attention(made, q, k, v, shape), DType.F32, tolerance);
                if (m.failure() != null) {
                    return m;
                }
            }
        } finally {
            if (byDefault > 1) {
                underTest.create(BackendOptions.defaults());
            }
        }
        return Measurement.EXACT;
    }

    private static double[] attention(Backend backend, double[] q, double[] k, double[] v, Shape shape) {
        try (Scope s = backend.newScope()) {
            return s.ops().attention(s.tensor(q, shape, DType.F32), s.tensor(k, shape, DType.F32),
                    s.tensor(v, shape, DType.F32), AttentionOptions.defaults().withCausal(true)).output()
                    .toDoubleArray();
        }
    }
}
