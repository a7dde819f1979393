package org.attn4j.backend.ejml;

import org.attn4j.api.Backend;
import org.attn4j.api.Capabilities;
import org.attn4j.api.Scope;

/** The heap backend: thread-safe and stateless apart from its worker pool; every scope is thread-confined. */
final class EjmlBackend implements Backend {

    private final String name;
    private final Capabilities capabilities;
    private final Parallel parallel;

    EjmlBackend(String name, Capabilities capabilities) {
        this(name, capabilities, new Parallel(capabilities.maxThreads()));
    }

    /**
     * @param name the backend's name
     * @param capabilities what it declares
     * @param parallel the pool its ops run on
     */
    EjmlBackend(String name, Capabilities capabilities, Parallel parallel) {
        this.name = name;
        this.capabilities = capabilities;
        this.parallel = parallel;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public Scope newScope() {
        return new HeapScope(this);
    }

    Parallel parallel() {
        return parallel;
    }

    @Override
    public String toString() {
        return "EjmlBackend[" + capabilities.maxThreads() + " threads]";
    }
}
