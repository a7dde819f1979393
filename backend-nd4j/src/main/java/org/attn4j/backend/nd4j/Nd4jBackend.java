package org.attn4j.backend.nd4j;

import java.util.concurrent.atomic.AtomicLong;
import org.attn4j.api.Backend;
import org.attn4j.api.Capabilities;
import org.attn4j.api.Scope;

/**
 * The ND4J backend: thread-safe, holds no ND4J state of its own beyond a count of the native bytes its open
 * tensors own.
 */
final class Nd4jBackend implements Backend {
    private final Capabilities capabilities;
    private final AtomicLong liveBytes = new AtomicLong();

    Nd4jBackend(Capabilities capabilities) {
        this.capabilities = capabilities;
    }

    @Override
    public String name() {
        return Nd4jBackendProvider.NAME;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
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
