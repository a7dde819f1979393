package org.attn4j.api;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * How a backend is created, an immutable value passed to {@link Backends#load(BackendOptions)} and
 * {@link BackendProvider#create(BackendOptions)}. Start from {@link #defaults()} and change what you need with the
 * {@code with…} methods; each returns a new value, so an option added later changes no caller:
 * <pre>{@code
 * Backend backend = Backends.load(BackendOptions.defaults().withThreads(2));   // ops use at most 2 threads
 * }</pre>
 *
 * <p><b>Threads.</b> The most threads one op of the backend may use; several threads calling the backend at once
 * share them (one pool per backend, not one per caller). The count a backend runs with is decided once, when it is
 * created, by {@link #resolveThreads(int)}, in this order:
 * <ol>
 *   <li>the system property {@value #THREADS_PROPERTY} ({@code -Dattn4j.threads=2}), if set and not blank: the
 *       operator's override, above any count set in code;</li>
 *   <li>else the environment variable {@value #THREADS_ENVIRONMENT}, if set and not blank;</li>
 *   <li>else {@link #withThreads(int)}'s count, if set;</li>
 *   <li>else the backend's own default: every processor of the machine for the CPU backends.</li>
 * </ol>
 * A backend whose ops run on the calling thread alone (the CUDA backend's host side, the template backend) accepts
 * any count and keeps using one; {@link Capabilities#maxThreads()} of the created backend reports the count it uses.
 */
public final class BackendOptions {
    /** The system property that sets the thread count, above any other setting. */
    public static final String THREADS_PROPERTY = "attn4j.threads";
    /** The environment variable that sets the thread count when the property is absent. */
    public static final String THREADS_ENVIRONMENT = "ATTN4J_THREADS";
    /** The largest thread count accepted: the most workers a {@code java.util.concurrent.ForkJoinPool} takes. */
    public static final int MAX_THREADS = 0x7fff;

    private static final BackendOptions DEFAULTS = new BackendOptions(0);

    /** The count set in code, or 0 for none. */
    private final int threads;

    private BackendOptions(int threads) {
        this.threads = threads;
    }

    /** @return no setting: the backend's defaults, unless the property or the environment variable says otherwise */
    public static BackendOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param count the most threads one op may use, 1 to {@value #MAX_THREADS}; {@value #THREADS_PROPERTY} and
     *     {@value #THREADS_ENVIRONMENT}, when set, still win
     * @return these options with that count
     * @throws IllegalArgumentException if {@code count} is out of range
     */
    public BackendOptions withThreads(int count) {
        return new BackendOptions(checked(count, "BackendOptions: argument threads"));
    }

    /** @return the count set in code by {@link #withThreads(int)}, if any (the property and environment aside) */
    public OptionalInt threads() {
        return threads == 0 ? OptionalInt.empty() : OptionalInt.of(threads);
    }

    /**
     * The thread count a backend created now runs with: {@value #THREADS_PROPERTY}, else {@value #THREADS_ENVIRONMENT},
     * else {@link #threads()}, else {@code backendDefault}.
     *
     * @param backendDefault the backend's own count, at least 1
     * @return the count to use
     * @throws IllegalArgumentException if the property or the environment variable is not a whole number from 1 to
     *     {@value #MAX_THREADS} (the message names it and its value), or {@code backendDefault} is below 1
     */
    public int resolveThreads(int backendDefault) {
        if (backendDefault < 1) {
            throw new IllegalArgumentException("BackendOptions: argument backendDefault is " + backendDefault
                    + "; it must be at least 1");
        }
        OptionalInt requested = requestedThreads();
        return requested.isPresent() ? requested.getAsInt() : Math.min(backendDefault, MAX_THREADS);
    }

    /**
     * @return the count asked for by the property, the environment variable or {@link #withThreads(int)}, in that
     *     order; empty when none is set
     * @throws IllegalArgumentException if the property or the environment variable is malformed
     */
    OptionalInt requestedThreads() {
        String property = System.getProperty(THREADS_PROPERTY);
        if (property != null && !property.isBlank()) {
            return OptionalInt.of(parse(property, "the system property " + THREADS_PROPERTY));
        }
        String env = System.getenv(THREADS_ENVIRONMENT);
        if (env != null && !env.isBlank()) {
            return OptionalInt.of(parse(env, "the environment variable " + THREADS_ENVIRONMENT));
        }
        return threads();
    }

    private static int parse(String value, String source) {
        int count;
        try {
            count = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + " is '" + value + "'; it must be a whole number from 1 to "
                    + MAX_THREADS, e);
        }
        return checked(count, source);
    }

    private static int checked(int count, String what) {
        if (count < 1 || count > MAX_THREADS) {
            throw new IllegalArgumentException(what + " is " + count + "; it must be from 1 to " + MAX_THREADS);
        }
        return count;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BackendOptions b && threads == b.threads;
    }

    @Override
    public int hashCode() {
        return Objects.hash(threads);
    }

    @Override
    public String toString() {
        return "BackendOptions[threads=" + (threads == 0 ? "default" : threads) + "]";
    }
}
