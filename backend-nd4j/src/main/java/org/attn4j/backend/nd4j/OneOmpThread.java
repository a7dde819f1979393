package org.attn4j.backend.nd4j;

import org.nd4j.nativeblas.NativeOps;
import org.nd4j.nativeblas.NativeOpsHolder;

/**
 * Sets libnd4j's OpenMP thread count of the calling thread to one until closed, then restores it. The GEMMs keep
 * OpenBLAS's own threads; the elementwise calls between them run on the calling thread, because OpenMP workers
 * left spinning after each call take the cores from OpenBLAS's threads (see {@link TiledAttention}). OpenMP's
 * thread count is a per-thread setting, so nothing global changes.
 */
final class OneOmpThread implements AutoCloseable {
    private final NativeOps nativeOps = NativeOpsHolder.getInstance().getDeviceNativeOps();
    private final int previous = nativeOps.ompGetMaxThreads();

    OneOmpThread() {
        nativeOps.setOmpNumThreads(1);
    }

    @Override
    public void close() {
        nativeOps.setOmpNumThreads(previous);
    }
}
