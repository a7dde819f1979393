package org.attn4j.api;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The one place that discovers and selects backends. Providers are found with {@link ServiceLoader} under
 * {@code META-INF/services/org.attn4j.api.BackendProvider}; the choice is deterministic:
 * <ol>
 *   <li>the system property {@value #PROPERTY}, if set and not blank;</li>
 *   <li>else the environment variable {@value #ENVIRONMENT}, if set and not blank;</li>
 *   <li>else the available provider with the highest {@link BackendProvider#priority()}, ties broken by name.</li>
 * </ol>
 * A requested name that is unknown or unavailable, or no available provider at all, fails with one
 * {@link IllegalStateException} listing every provider found and why each is or is not usable.
 *
 * <p>Selection touches only what it needs: a backend requested by name probes that provider's availability alone;
 * the default choice probes providers from the highest priority down and stops at the first available one (so a
 * lower-ranked backend's native library is never loaded when a higher one runs); only the chosen backend is
 * created, and {@link #describe()} creates none. Each provider's availability is checked once, and each backend created once per thread count, per class
 * loader; the first choice of each backend is logged through {@link System.Logger} at INFO.
 *
 * <p>How the chosen backend is created is a {@link BackendOptions}: {@code load(options)}, {@code load(name,
 * options)} and {@code select(options)} take one, the methods without it use {@link BackendOptions#defaults()}. Its
 * thread count is the most threads one op may use: the system property {@value BackendOptions#THREADS_PROPERTY},
 * else the environment variable {@value BackendOptions#THREADS_ENVIRONMENT}, else
 * {@link BackendOptions#withThreads(int)}, else the backend's default (every processor, for a CPU backend):
 * <pre>{@code
 * Backend backend = Backends.load(BackendOptions.defaults().withThreads(2));
 * backend.capabilities().maxThreads();   // 2, or what -Dattn4j.threads says
 * }</pre>
 */
public final class Backends {
    /** The system property that names the backend to use. */
    public static final String PROPERTY = "attn4j.backend";
    /** The environment variable that names the backend to use when the property is absent. */
    public static final String ENVIRONMENT = "ATTN4J_BACKEND";
    /** The artifact to add when no backend is found. */
    static final String DEFAULT_ARTIFACT = "org.attn4j:attn4j-backend-cpu-ejml";

    private static final System.Logger LOG = System.getLogger(Backends.class.getName());
    private static final Map<ClassLoader, Discovery> DISCOVERIES = new ConcurrentHashMap<>();

    private Backends() {
    }

    /**
     * @return the selected backend
     * @throws IllegalStateException if the requested backend is unknown or unusable, or none is usable
     * @throws IllegalArgumentException if {@value BackendOptions#THREADS_PROPERTY} or
     *     {@value BackendOptions#THREADS_ENVIRONMENT} is malformed
     */
    public static Backend load() {
        return select().backend();
    }

    /**
     * @param options how to create the backend, for example its thread count
     * @return the selected backend
     * @throws IllegalStateException if the requested backend is unknown or unusable, or none is usable
     * @throws IllegalArgumentException if {@code options} is null, or {@value BackendOptions#THREADS_PROPERTY} or
     *     {@value BackendOptions#THREADS_ENVIRONMENT} is malformed
     */
    public static Backend load(BackendOptions options) {
        return select(options).backend();
    }

    /**
     * @param name a provider name, as {@code attn4j.backend} would give it
     * @return that backend
     * @throws IllegalStateException if it is unknown or unusable
     * @throws IllegalArgumentException if {@value BackendOptions#THREADS_PROPERTY} or
     *     {@value BackendOptions#THREADS_ENVIRONMENT} is malformed
     */
    public static Backend load(String name) {
        return load(name, BackendOptions.defaults());
    }

    /**
     * @param name a provider name, as {@code attn4j.backend} would give it
     * @param options how to create the backend, for example its thread count
     * @return that backend
     * @throws IllegalStateException if it is unknown or unusable
     * @throws IllegalArgumentException if {@code options} is null, or {@value BackendOptions#THREADS_PROPERTY} or
     *     {@value BackendOptions#THREADS_ENVIRONMENT} is malformed
     */
    public static Backend load(String name, BackendOptions options) {
        return discovery().select(name, "requested by name", checked(options)).backend();
    }

    /** @return the selected backend, why it was chosen and, on request, every provider found */
    public static BackendSelection select() {
        return select(BackendOptions.defaults());
    }

    /**
     * @param options how to create the backend, for example its thread count
     * @return the selected backend, why it was chosen and, on request, every provider found
     * @throws IllegalStateException if the requested backend is unknown or unusable, or none is usable
     * @throws IllegalArgumentException if {@code options} is null, or {@value BackendOptions#THREADS_PROPERTY} or
     *     {@value BackendOptions#THREADS_ENVIRONMENT} is malformed
     */
    public static BackendSelection select(BackendOptions options) {
        Request r = request();
        return discovery().select(r.name(), r.how(), checked(options));
    }

    private static BackendOptions checked(BackendOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("Backends: argument options is null; use BackendOptions.defaults()");
        }
        return options;
    }

    /**
     * Checks the availability of every provider, and creates no backend.
     *
     * @return every provider found on the class path, in name order, with the one {@link #load()} picks marked
     */
    public static List<ProviderReport> describe() {
        return discovery().describe(request().name());
    }

    /** A backend named by the system property or the environment, or none (both fields null). */
    private record Request(String name, String how) {
    }

    private static Request request() {
        String property = System.getProperty(PROPERTY);
        if (property != null && !property.isBlank()) {
            return new Request(property.trim(), "requested by system property " + PROPERTY);
        }
        String env = System.getenv(ENVIRONMENT);
        if (env != null && !env.isBlank()) {
            return new Request(env.trim(), "requested by environment variable " + ENVIRONMENT);
        }
        return new Request(null, null);
    }

    private static Discovery discovery() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        ClassLoader key = loader != null ? loader : Backends.class.getClassLoader();
        return DISCOVERIES.computeIfAbsent(key, l -> new Discovery(ServiceLoader.load(BackendProvider.class, l)
                .stream().map(ServiceLoader.Provider::get).toList()));
    }

    /** Selection over a fixed list of providers; package-private so tests can feed their own. */
    static final class Discovery {
        private final List<BackendProvider> providers;
        private final Map<String, Availability> availability = new ConcurrentHashMap<>();
        /** The backends created, by provider name and the thread count asked for ("" for the default). */
        private final Map<String, Backend> created = new ConcurrentHashMap<>();

        Discovery(List<BackendProvider> found) {
            List<BackendProvider> sorted = new ArrayList<>(found);
            sorted.sort(Comparator.comparing(BackendProvider::name));
            this.providers = List.copyOf(sorted);
        }

        BackendSelection select(String requested, String how, BackendOptions options) {
            Choice choice = choose(requested, how);
            BackendProvider chosen = choice.provider();
            OptionalInt threads = options.requestedThreads();
            String key = chosen.name() + "/" + (threads.isPresent() ? Integer.toString(threads.getAsInt()) : "");
            Backend backend = created.computeIfAbsent(key, k -> {
                Backend made = chosen.create(options);
                LOG.log(Level.DEBUG, () -> "attn4j backend " + chosen.name() + " with "
                        + made.capabilities().maxThreads() + " threads: " + choice.reason());
                return made;
            });
            return new BackendSelection(backend, choice.reason(), () -> reports(chosen.name()));
        }

        List<ProviderReport> describe(String requested) {
            String selected;
            try {
                selected = choose(requested, "requested").provider().name();
            } catch (IllegalStateException e) {
                selected = null;
            }
            return reports(selected);
        }

        private record Choice(BackendProvider provider, String reason) {
        }

        private Choice choose(String requested, String how) {
            BackendProvider chosen;
            String reason;
            if (requested != null) {
                chosen = providers.stream().filter(p -> p.name().equalsIgnoreCase(requested)).findFirst()
                        .orElseThrow(() -> failure("Unknown attn4j backend '" + requested + "' (" + how + ")."));
                if (!availability(chosen).available()) {
                    throw failure("The attn4j backend '" + requested + "' (" + how + ") is not usable: "
                            + availability(chosen).reason() + ".");
                }
                reason = how;
            } else {
                chosen = providers.stream()
                        .sorted(Comparator.comparingInt(BackendProvider::priority).reversed()
                                .thenComparing(BackendProvider::name))
                        .filter(p -> availability(p).available())
                        .findFirst()
                        .orElseThrow(() -> failure("No usable attn4j backend."));
                reason = "highest priority (" + chosen.priority() + ") of the available backends; set -D"
                        + PROPERTY + " or " + ENVIRONMENT + " to choose another";
            }
            return new Choice(chosen, reason);
        }

        List<ProviderReport> reports(String selected) {
            return providers.stream().map(p -> new ProviderReport(p.name(), p.priority(), availability(p),
                    p.capabilities(), p.name().equals(selected))).toList();
        }

        private Availability availability(BackendProvider provider) {
            return availability.computeIfAbsent(provider.name(), n -> check(provider));
        }

        private static Availability check(BackendProvider provider) {
            try {
                return provider.availability();
            } catch (RuntimeException | LinkageError e) {
                return Availability.unavailable("its availability check failed with " + e);
            }
        }

        private IllegalStateException failure(String headline) {
            StringBuilder m = new StringBuilder(headline);
            if (providers.isEmpty()) {
                m.append(" No backend provider was found on the class path. Add a backend jar, for example ")
                        .append(DEFAULT_ARTIFACT).append(" (pure Java, no native code).");
            } else {
                m.append(" Providers found:");
                Function<BackendProvider, String> line = p -> "\n  - " + p.name() + " (priority " + p.priority()
                        + "): " + (availability(p).available() ? "available" : "unavailable") + " — "
                        + availability(p).reason();
                providers.forEach(p -> m.append(line.apply(p)));
            }
            return new IllegalStateException(m.toString());
        }
    }
}
