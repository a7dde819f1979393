package org.attn4j.backend.cuda;

import org.attn4j.api.Backend;
import org.attn4j.api.Capabilities;
import org.attn4j.api.Scope;

/**
 * A CUDA backend: one {@link Device} (the {@link CudaContext}) shared by every scope, for the life of the JVM.
 * Thread-safe: scopes on different threads serialise their driver calls through the context.
 */
final class CudaBackend implements Backend {
    private final Device device;
    private final Capabilities capabilities;

    CudaBackend(Device device, Capabilities capabilities) {
        this.device = device;
        this.capabilities = capabilities;
    }

    @Override
    public String name() {
        return CudaBackendProvider.NAME;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public Scope newScope() {
        return new CudaScope(this, device);
    }

    @Override
    public String toString() {
        return "CudaBackend";
    }
}
