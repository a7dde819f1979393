package org.attn4j.backend.ejml;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.Random;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every SIMD kernel compiles to vector instructions without help from the JVM's class speculation, so no JVM can
 * fall into the slow mode where C2 leaves Vector API calls to their Java fallbacks ({@link VectorGemmF32} explains
 * how that happens). The build runs this class in fresh JVMs started with {@code -XX:PerMethodTrapLimit=0}, which
 * forbids that speculation outright: the worst case of the profile pollution that causes the slow mode. The slow
 * mode's signature is allocation: each vector a fallback handles is a boxed object, so a kernel left to them
 * allocates kilobytes per call where the compiled kernel allocates nothing. Each kernel is called until C2 has
 * compiled it, then its allocation per call is measured on this thread. Never a timing.
 */
class IntrinsificationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WARM_CALLS = 10_000;
    private static final int ROUNDS = 12;
    /**
     * How long the rounds go on past {@link #ROUNDS} while a kernel still allocates: C2 compiles in the background,
     * and on a busy two-core machine (the backend's warm-up compiling beside the test) a kernel can wait in its
     * queue longer than twelve rounds take. A kernel in the slow mode stays there for good, so waiting longer only
     * delays a failure; it never turns one into a pass.
     */
    private static final long PATIENCE_NANOS = 30_000_000_000L;
    private static final int MEASURED_CALLS = 200;
    /**
     * What an attention op may allocate per call besides boxed vectors: its result's tensor, plan, kernel and task
     * objects (about 2.5 KB measured); its arrays come from the pool. A kernel left to the fallbacks allocates
     * megabytes.
     */
    private static final long OP_OBJECTS = 6 * 1024;

    @BeforeAll
    static void needsTheVectorApi() {
        assumeTrue(Simd.enabled(), "the SIMD kernels are off in this run");
    }

    /**
     * Runs {@code call} in rounds of {@link #WARM_CALLS} calls, giving C2 time to compile every method it reaches,
     * until {@link #MEASURED_CALLS} more allocate at most {@code allowed} bytes each on this thread, or fails after
     * {@link #ROUNDS} rounds and {@link #PATIENCE_NANOS}, whichever comes later.
     */
    static void assertCompiledToVectors(String kernel, long allowed, Runnable call) {
        long perCall = Long.MAX_VALUE;
        long deadline = System.nanoTime() + PATIENCE_NANOS;
        for (int round = 0; perCall > allowed && (round < ROUNDS || System.nanoTime() - deadline < 0); round++) {
            for (int i = 0; i < WARM_CALLS; i++) {
                call.run();
            }
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < MEASURED_CALLS; i++) {
                call.run();
            }
            perCall = (THREADS.getCurrentThreadAllocatedBytes() - before) / MEASURED_CALLS;
        }
        assertTrue(perCall <= allowed, kernel + " allocates " + perCall + " bytes per call (at most " + allowed
                + " expected): some of its vector operations run the Vector API's non-intrinsified fallbacks on boxed"
                + " vectors; see VectorGemmF32's class comment for the rules its code must follow");
    }

    private static float[] randoms(Random random, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextFloat() * 4 - 2;
        }
        return x;
    }

    @Test
    void theGemmTilesRunOnVectors() {
        Random random = new Random(1);
        int nr = VectorGemmF32.NR;
        float[] pa = randoms(random, 6 * 24);
        float[] pb = randoms(random, nr * 24);
        float[] c = new float[6 * nr];
        boolean[] accumulate = {false};
        assertCompiledToVectors("VectorGemmF32.tile", 0, () -> {
            accumulate[0] = !accumulate[0];
            VectorGemmF32.tile(24, pa, 0, pb, 0, c, 0, nr, accumulate[0]);
        });
        int rows = VectorGemmF32.ROWS;
        float[] packed = randoms(random, rows * 24);
        float[] tile = new float[rows * nr];
        assertCompiledToVectors("VectorGemmF32.tileRows", 0,
                () -> VectorGemmF32.tileRows(24, packed, 0, pb, 0, tile));
    }

    @Test
    void theMatrixProductAndTheBoundLinearRunOnVectors() {
        Random random = new Random(2);
        float[] a = randoms(random, 20 * 30);
        float[] b = randoms(random, 30 * 40);
        float[] c = new float[20 * 40];
        assertCompiledToVectors("VectorGemmF32.multiply", 256,
                () -> VectorGemmF32.multiply(20, 40, 30, a, 0, false, b, 0, true, null, c, 0, null));
        PanelsF32 w = PanelsF32.of(randoms(random, 40 * 30), 40, 30);
        float[] y = new float[20 * 40];
        assertCompiledToVectors("PanelsF32.product", 0, () -> w.product(a, 0, 30, 20, 3, 37, y, 0, 40));
    }

    @Test
    void everyEpilogueStepRunsOnVectors() {
        Random random = new Random(3);
        float[] row = randoms(random, 300);
        float[] other = randoms(random, 300);
        float[] work = new float[300];
        for (Activation act : Activation.values()) {
            assertCompiledToVectors("the " + act + " epilogue", 0, () -> {
                System.arraycopy(row, 0, work, 0, 300);
                Epilogues.f32(act, work, 0, 100, 3, 97, other, 1, other, 0, 100, 2, other, 3, 99);
            });
        }
    }

    @Test
    void theAttentionKernelsRunOnVectors() {
        Parallel one = new Parallel(1);
        EjmlBackend backend = new EjmlBackend("ejml", new EjmlBackendProvider().capabilities(), one);
        Random random = new Random(4);
        try (Scope scope = backend.newScope()) {
            Tensor q = scope.tensor(randoms(random, 2 * 64 * 16), Shape.of(1, 2, 64, 16));
            Tensor k = scope.tensor(randoms(random, 2 * 80 * 16), Shape.of(1, 2, 80, 16));
            Tensor v = scope.tensor(randoms(random, 2 * 80 * 16), Shape.of(1, 2, 80, 16));
            assertCompiledToVectors("VectorFlashAttentionF32", OP_OBJECTS, () -> {
                try (Scope call = backend.newScope()) {
                    call.ops().attention(q, k, v, AttentionOptions.defaults());
                }
            });
            Tensor one1 = scope.tensor(randoms(random, 2 * 16), Shape.of(1, 2, 1, 16));
            assertCompiledToVectors("FlashDecoding", OP_OBJECTS, () -> {
                try (Scope call = backend.newScope()) {
                    call.ops().attention(one1, k, v, AttentionOptions.defaults());
                }
            });
        }
    }

    @Test
    void theFewRowsKernelsRunOnVectors() {
        Random random = new Random(5);
        float[] x = randoms(random, 5 * 64);
        float[] w = randoms(random, 48 * 64);
        float[] out = new float[5 * 48];
        Parallel one = new Parallel(1);
        assertCompiledToVectors("VectorFewRowsLinearF32", 256,
                () -> VectorFewRowsLinearF32.linear(5, 48, 64, x, w, null, out, one));
        float[] p = randoms(random, 48);
        float[] acc = new float[64];
        assertCompiledToVectors("VectorDecodingF32.accumulate", 0,
                () -> VectorDecodingF32.accumulate(p, w, 0, 64, acc, 0, 48));
    }
}
