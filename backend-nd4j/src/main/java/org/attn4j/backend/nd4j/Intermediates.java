package org.attn4j.backend.nd4j;

import java.util.ArrayDeque;
import java.util.Deque;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The arrays one op creates and does not return, closed in reverse order when the op ends, normally or not. While
 * open it also keeps the calling thread out of any ND4J workspace, so every array an ND4J convenience method
 * allocates is detached and can be closed, and runs libnd4j's calls on the calling thread alone
 * ({@link OneOmpThread}): OpenMP workers left spinning after one call take the cores from the next call and from
 * OpenBLAS's threads, which made a composed RMS norm of 256 values take 13–18 ms instead of 2 ms on 2 cores.
 */
final class Intermediates implements AutoCloseable {
    private final MemoryWorkspace outside = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces();
    private final OneOmpThread single = new OneOmpThread();
    private final Deque<INDArray> arrays = new ArrayDeque<>();

    /**
     * @param array an array created for this op alone
     * @return {@code array}
     */
    INDArray add(INDArray array) {
        arrays.push(array);
        return array;
    }

    /**
     * @param array an array added earlier that the op now returns
     * @return {@code array}, which will no longer be closed here
     */
    INDArray keep(INDArray array) {
        arrays.removeIf(a -> a == array);
        return array;
    }

    @Override
    public void close() {
        try {
            while (!arrays.isEmpty()) {
                INDArray a = arrays.pop();
                if (a.closeable()) {
                    a.close();
                }
            }
        } finally {
            try {
                single.close();
            } finally {
                outside.close();
            }
        }
    }
}
