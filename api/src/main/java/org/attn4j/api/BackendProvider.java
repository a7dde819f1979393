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
     * at most once per provider and thread count. A provider implements this method (a provider written before
     * options existed implements {@link #create()} instead, which this default then calls: see below).
     *
     * <p>This default serves a provider that implements {@link #create()} alone: it creates the backend with that,
     * when the thread count {@code options} resolves to ({@code options.resolveThreads(m)}, with {@code m} the
     * {@link Capabilities#maxThreads()} of {@link #capabilities()}) is {@code m} itself, or {@code m} is 1 (a backend
     * whose ops run on the calling thread keeps one, whatever it is asked); any other count is refused, since such a
     * provider cannot be told it.
     *
     * @param options how to create it: its thread count is {@code options.resolveThreads(d)} with {@code d} this
     *     backend's own default (every processor, for a CPU backend), and its {@link Capabilities#maxThreads()}
     *     reports the count it uses
     * @return a thread-safe backend
     * @throws IllegalArgumentException if {@code options} or the settings it reads ({@code attn4j.threads},
     *     {@code ATTN4J_THREADS}) are malformed, or ask a provider that implements {@link #create()} alone for a
     *     thread count it cannot take
     * @throws UnsupportedOperationException if the provider implements neither this method nor {@link #create()}
     */
    default Backend create(BackendOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("create: argument options is null (provider " + name() + ")");
        }
        if (!implementsCreateWithoutOptions()) {
            throw neitherCreate();
        }
        int own = capabilities().maxThreads();
        int asked = options.resolveThreads(own);
        if (asked != own && own != 1) {
            throw new IllegalArgumentException("create: provider " + name() + " (" + getClass().getName()
                    + ") implements create() alone, which takes no options, and runs with " + own + " threads, but "
                    + options + " asks for " + asked + " (attn4j.threads and ATTN4J_THREADS included); implement"
                    + " create(BackendOptions) to take a thread count");
        }
        return create();
    }

    /**
     * Creates the backend with {@link BackendOptions#defaults()}. A provider implements
     * {@link #create(BackendOptions)}, and this default calls it; a provider written before options existed
     * implements this method alone, and keeps working.
     *
     * @return a thread-safe backend
     * @throws UnsupportedOperationException if the provider implements neither this method nor
     *     {@link #create(BackendOptions)}
     */
    default Backend create() {
        if (!implementsCreateWithOptions()) {
            throw neitherCreate();
        }
        return create(BackendOptions.defaults());
    }

    private boolean implementsCreateWithoutOptions() {
        return declaredBelowThisInterface("create");
    }

    private boolean implementsCreateWithOptions() {
        return declaredBelowThisInterface("create", BackendOptions.class);
    }

    /** Whether the provider's class, or a type between it and this interface, declares the public method. */
    private boolean declaredBelowThisInterface(String method, Class<?>... parameters) {
        try {
            return getClass().getMethod(method, parameters).getDeclaringClass() != BackendProvider.class;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("BackendProvider." + method + " is missing from " + getClass(), e);
        }
    }

    private UnsupportedOperationException neitherCreate() {
        return new UnsupportedOperationException("create: provider " + name() + " (" + getClass().getName()
                + ") implements neither create(BackendOptions) nor create(); implement create(BackendOptions)");
    }
}
