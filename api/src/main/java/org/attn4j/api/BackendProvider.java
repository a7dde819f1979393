package org.attn4j.api;

/**
 * The service a backend jar registers in {@code META-INF/services/org.attn4j.api.BackendProvider} so that
 * {@link Backends} finds it. Users never call it: {@link Backends} does. It lives beside {@link Backend} because
 * discovery needs it; the classes that help implement a backend are in {@code org.attn4j.api.spi}.
 * Implementations need a public no-argument constructor, must be cheap to construct, and must not load native code
 * before {@link #availability()} is called.
 */
public interface BackendProvider {

    /** @return a short lower-case name users select it by, for example {@code "ejml"} */
    String name();

    /** @return the rank among available providers: the highest one is the default */
    int priority();

    /**
     * Checks, without throwing, whether this backend can run here: its native library loads, a device exists,
     * the CPU is supported. It must not create the backend, and {@link Backends} calls it only when it needs the
     * answer: to pick the default, to use this provider by name, or to describe every provider.
     *
     * @return available with a short note, or unavailable with the reason and how to fix it
     */
    Availability availability();

    /** @return what the backend can do, also when it is unavailable; cheap, loads nothing */
    Capabilities capabilities();

    /**
     * Creates the backend. {@link Backends} calls it only after {@link #availability()} reported it available, and
     * at most once per provider and thread count.
     *
     * @param options how to create it: its thread count is {@code options.resolveThreads(d)} with {@code d} this
     *     backend's own default (every processor, for a CPU backend), and its {@link Capabilities#maxThreads()}
     *     reports the count it uses
     * @return a thread-safe backend
     * @throws IllegalArgumentException if {@code options} or the settings it reads ({@code attn4j.threads},
     *     {@code ATTN4J_THREADS}) are malformed
     */
    Backend create(BackendOptions options);

    /**
     * Creates the backend with {@link BackendOptions#defaults()}.
     *
     * @return a thread-safe backend
     */
    default Backend create() {
        return create(BackendOptions.defaults());
    }
}
