package org.attn4j.tck;

import org.attn4j.api.Availability;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.Capabilities;

/**
 * A backend the kit runs, reached through its provider: availability is asked once (an exception there counts as
 * unavailable, as in {@link org.attn4j.api.Backends}), and the backend is created once, on first use, only if
 * available.
 */
public final class BackendUnderTest {
    private final BackendProvider provider;
    private Availability availability;
    private Backend backend;

    /** @param provider the provider of the backend */
    public BackendUnderTest(BackendProvider provider) {
        if (provider == null) {
            throw new IllegalArgumentException("BackendUnderTest: argument provider is null");
        }
        this.provider = provider;
    }

    /**
     * @param backend a backend created by other means
     * @return it, reported as available
     */
    public static BackendUnderTest of(Backend backend) {
        BackendUnderTest given = new BackendUnderTest(new GivenBackend(backend));
        given.backend = backend;
        return given;
    }

    /** @return the provider the kit was given (for a backend given directly, a stand-in named after it) */
    BackendProvider provider() {
        return provider;
    }

    /** @return the provider's name */
    public String name() {
        return provider.name();
    }

    /** @return whether the backend can run here, and why */
    public synchronized Availability availability() {
        if (availability == null) {
            try {
                availability = provider.availability();
            } catch (RuntimeException | LinkageError e) {
                availability = Availability.unavailable("its availability check failed with " + e);
            }
        }
        return availability;
    }

    /** @return what the backend declares it can do */
    public Capabilities capabilities() {
        return provider.capabilities();
    }

    /**
     * @return the backend, created on first call
     * @throws IllegalStateException if it is unavailable
     */
    public synchronized Backend backend() {
        if (backend == null) {
            if (!availability().available()) {
                throw new IllegalStateException("backend " + name() + " is unavailable: " + availability().reason());
            }
            backend = provider.create();
        }
        return backend;
    }

    /** Presents an already created backend as a provider. */
    record GivenBackend(Backend backend) implements BackendProvider {
        @Override
        public String name() {
            return backend.name();
        }

        @Override
        public int priority() {
            return 0;
        }

        @Override
        public Availability availability() {
            return Availability.available("given directly as a Backend instance");
        }

        @Override
        public Capabilities capabilities() {
            return backend.capabilities();
        }

        @Override
        public Backend create() {
            return backend;
        }
    }
}
