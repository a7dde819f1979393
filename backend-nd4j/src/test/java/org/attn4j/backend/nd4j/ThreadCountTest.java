package org.attn4j.backend.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The thread count reaches libnd4j's loops (at most its pool's size, fixed at start) and OpenBLAS, whose counts are
 * one per process.
 */
class ThreadCountTest {

    private static final Nd4jBackendProvider PROVIDER = new Nd4jBackendProvider();

    @Test
    void aCountSetInCodeSetsLibnd4jsAndOpenBlasCountsForEveryNd4jBackend() {
        Backend earlier = PROVIDER.create();
        try {
            Backend one = PROVIDER.create(BackendOptions.defaults().withThreads(1));
            assertCounts(1);
            assertEquals(1, one.capabilities().maxThreads());
            assertEquals(1, earlier.capabilities().maxThreads(), "the counts are the process's, not a backend's");
            attention(one);
            PROVIDER.create(BackendOptions.defaults().withThreads(3));
            assertCounts(3);
            assertEquals(3, one.capabilities().maxThreads());
        } finally {
            PROVIDER.create();
        }
        assertCounts(NativeThreads.startingCount());
        assertEquals(NativeThreads.startingCount(), earlier.capabilities().maxThreads());
    }

    private static void assertCounts(int threads) {
        int pool = Nd4j.getEnvironment().maxThreads();
        assertEquals(Math.min(threads, pool), Nd4j.getEnvironment().maxMasterThreads(), "libnd4j's threads per loop");
        assertEquals(threads, Nd4j.factory().blas().getMaxThreads(), "OpenBLAS's threads");
    }

    private static void attention(Backend backend) {
        float[] data = new float[2 * 64 * 32];
        for (int i = 0; i < data.length; i++) {
            data[i] = (float) Math.sin(i);
        }
        try (Scope s = backend.newScope()) {
            Tensor x = s.tensor(data, Shape.of(1, 2, 64, 32));
            assertEquals(data.length, s.ops().attention(x, x, x, AttentionOptions.defaults().withCausal(true))
                    .output().toFloatArray().length);
        }
    }
}
