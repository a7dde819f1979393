package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;

/** The backend's thread count: set in code or by {@code attn4j.threads}, it sizes the pool and bounds every op. */
class ThreadCountTest {

    private static final EjmlBackendProvider PROVIDER = new EjmlBackendProvider();

    @Test
    void aCountSetInCodeSizesThePoolAndIsReported() {
        EjmlBackend backend = create(BackendOptions.defaults().withThreads(3));
        assertEquals(3, backend.capabilities().maxThreads());
        assertEquals(3, backend.parallel().threads());
    }

    @Test
    void opsUseAtMostTheBackendsThreadsAndStartNoOtherThread() {
        EjmlBackend backend = create(BackendOptions.defaults().withThreads(2));
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        runLargeOps(backend);
        int started = backend.parallel().workersStarted();
        assertTrue(started >= 1 && started <= 2, "workers started: " + started);
        Set<String> others = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                .map(Thread::getName).filter(n -> !n.startsWith("attn4j-ejml-")).collect(Collectors.toSet());
        assertEquals(Set.of(), others, "threads started by the ops outside the backend's pool");
    }

    @Test
    void oneThreadRunsEveryOpOnTheCallingThread() {
        EjmlBackend backend = create(BackendOptions.defaults().withThreads(1));
        runLargeOps(backend);
        assertEquals(0, backend.parallel().workersStarted());
        assertEquals(1, backend.capabilities().maxThreads());
    }

    @Test
    void theThreadsPropertyOverridesTheCountSetInCode() {
        String previous = System.getProperty(BackendOptions.THREADS_PROPERTY);
        System.setProperty(BackendOptions.THREADS_PROPERTY, "1");
        try {
            EjmlBackend backend = create(BackendOptions.defaults().withThreads(3));
            assertEquals(1, backend.capabilities().maxThreads());
            assertEquals(1, backend.parallel().threads());
            System.setProperty(BackendOptions.THREADS_PROPERTY, "many");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> PROVIDER.create(BackendOptions.defaults()));
            assertTrue(e.getMessage().contains("attn4j.threads is 'many'"), e.getMessage());
            assertTrue(PROVIDER.availability().available(), "a malformed count does not make the backend unusable");
        } finally {
            if (previous == null) {
                System.clearProperty(BackendOptions.THREADS_PROPERTY);
            } else {
                System.setProperty(BackendOptions.THREADS_PROPERTY, previous);
            }
        }
    }

    @Test
    void productsOnEjmlGiveTheSameBitsWithOneThreadAndWithThree() {
        EjmlBackend one = create(BackendOptions.defaults().withThreads(1));
        EjmlBackend three = create(BackendOptions.defaults().withThreads(3));
        for (boolean ta : new boolean[] {false, true}) {
            for (boolean tb : new boolean[] {false, true}) {
                assertArrayEquals(product(one, ta, tb), product(three, ta, tb), "transposeA " + ta + ", transposeB "
                        + tb);
            }
        }
    }

    private static EjmlBackend create(BackendOptions options) {
        return (EjmlBackend) PROVIDER.create(options);
    }

    /** A large F64 product (EJML's kernel, split into row blocks), an F32 product, a linear and an attention. */
    private static void runLargeOps(Backend backend) {
        Random random = new Random(7);
        try (Scope s = backend.newScope()) {
            Tensor a = s.tensor(random.doubles(384 * 320).toArray(), Shape.of(384, 320));
            Tensor b = s.tensor(random.doubles(320 * 256).toArray(), Shape.of(320, 256));
            s.ops().matmul(a, b).toDoubleArray();
            Tensor fa = s.tensor(floats(random, 256 * 256), Shape.of(256, 256));
            s.ops().matmul(fa, fa, false, true).toFloatArray();
            Tensor w = s.tensor(random.doubles(512 * 320).toArray(), Shape.of(512, 320));
            s.ops().linear(a, w, null).toDoubleArray();
            Tensor q = s.tensor(floats(random, 4 * 256 * 64), Shape.of(1, 4, 256, 64));
            s.ops().attention(q, q, q, AttentionOptions.defaults().withCausal(true)).output().toFloatArray();
        }
    }

    private static double[] product(Backend backend, boolean ta, boolean tb) {
        Random random = new Random(11);
        int m = 300;
        int n = 200;
        int k = 250;
        try (Scope s = backend.newScope()) {
            Tensor a = s.tensor(random.doubles((long) m * k).toArray(), ta ? Shape.of(k, m) : Shape.of(m, k));
            Tensor b = s.tensor(random.doubles((long) k * n).toArray(), tb ? Shape.of(n, k) : Shape.of(k, n));
            return s.ops().matmul(a, b, ta, tb).toDoubleArray();
        }
    }

    private static float[] floats(Random random, int n) {
        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = (float) random.nextGaussian();
        }
        return f;
    }
}
