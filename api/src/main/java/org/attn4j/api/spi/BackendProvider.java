package org.attn4j.api.spi;

import org.attn4j.api.Backend;

/**
 * The service a backend jar registers in {@code META-INF/services/org.attn4j.api.spi.BackendProvider} so that
 * {@link org.attn4j.api.Backends} finds it. Implementations need a public no-argument constructor, must be cheap
 * to construct, and must not load native code before {@link #availability()} is called.
 */
public interface BackendProvider {

    /** @return a short lower-case name users select it by, for example {@code "ejml"} */
    String name();

    /** @return the rank among available providers: the highest one is the default */
    int priority();

    /**
     * Checks, without throwing, whether this backend can run here: its native library loads, a device exists,
     * the CPU is supported.
     *
     * @return available with a short note, or unavailable with the reason and how to fix it
     */
    Availability availability();

    /** @return what the backend can do, also when it is unavailable */
    Capabilities capabilities();

    /**
     * Creates the backend. Called at most once per provider by {@link org.attn4j.api.Backends}, and only after
     * {@link #availability()} reported it available.
     *
     * @return a thread-safe backend
     */
    Backend create();
}
