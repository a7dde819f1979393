package org.attn4j.backend.nd4j;

import org.attn4j.api.Capabilities;
import org.nd4j.linalg.factory.Environment;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The thread counts of ND4J's native code, which are one per process, not per backend: how many threads one of
 * libnd4j's parallel loops takes from its pool ({@link Environment#setMaxMasterThreads}, at most the pool's size) and
 * OpenBLAS's ({@code openblas_set_num_threads}, through ND4J's {@code Blas}). The last nd4j backend created sets
 * them, and every nd4j backend of the process reports the count in force through these capabilities. A backend
 * created without a count gets OpenBLAS's count as ND4J started it (every processor, or
 * {@code OPENBLAS_NUM_THREADS}).
 *
 * <p>What cannot be set here: the size of libnd4j's pool itself, fixed when the native library starts (every
 * processor, or {@code OMP_NUM_THREADS} in the JVM's environment; libnd4j's {@code setMaxThreads} does nothing), so
 * a count above it gives libnd4j's loops the pool's size and OpenBLAS the count; and OpenMP's count, which is
 * per thread (the attention pipeline already runs its elementwise calls on one OpenMP thread, see
 * {@link OneOmpThread}).
 */
final class NativeThreads {
    private static volatile Capabilities inForce;
    private static int starting;

    private NativeThreads() {
    }

    /**
     * @param capabilities a backend's capabilities, whose {@link Capabilities#maxThreads()} becomes the count of
     *     the whole process
     */
    static synchronized void apply(Capabilities capabilities) {
        int count = capabilities.maxThreads();
        Environment environment = Nd4j.getEnvironment();
        environment.setMaxMasterThreads(count);
        Nd4j.factory().blas().setMaxThreads(count);
        inForce = capabilities;
    }

    /** @return OpenBLAS's thread count before any backend set it; ND4J must be loaded */
    static synchronized int startingCount() {
        if (starting == 0) {
            starting = Math.max(1, Nd4j.factory().blas().getMaxThreads());
        }
        return starting;
    }

    /** @return the capabilities of the backend that set the counts last */
    static Capabilities inForce() {
        return inForce;
    }
}
