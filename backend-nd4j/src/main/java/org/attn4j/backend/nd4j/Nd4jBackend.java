package org.attn4j.backend.nd4j;

import java.util.concurrent.atomic.AtomicLong;
import org.attn4j.api.Backend;
import org.attn4j.api.Capabilities;
import org.attn4j.api.Scope;

/**
 * The ND4J backend: thread-safe, holds no ND4J state of its own beyond a count of the native bytes its open
 * tensors own. Its capabilities are those in force for the whole process ({@link NativeThreads}), since ND4J's
 * thread counts are.
 */
final class Nd4jBackend implements Backend {
    private final AtomicLong liveBytes = new AtomicLong();

    Nd4jBackend() {
    }

    @Override
    public String name() {
        return Nd4jBackendProvider.NAME;
    }

    @Override
    public Capabilities capabilities() {
        return NativeThreads.inForce();
    }

    @Override
    public Scope newScope() {
        return new Nd4jScope(this);
    }

    /** @return the native bytes held by this backend's open tensors */
    long liveBytes() {
        return liveBytes.get();
    }

    void allocated(long bytes) {
        liveBytes.addAndGet(bytes);
    }

    void freed(long bytes) {
        liveBytes.addAndGet(-bytes);
    }
}
