package org.attn4j.api;

import java.util.List;
import java.util.function.Supplier;

/**
 * The outcome of {@link Backends#select()}: the backend chosen, why, and, when asked, every provider found.
 * Choosing a backend by name probes only that provider; {@link #providers()} probes the others on first call.
 */
public final class BackendSelection {
    private final Backend backend;
    private final String reason;
    private final Supplier<List<ProviderReport>> reports;
    private List<ProviderReport> providers;

    BackendSelection(Backend backend, String reason, Supplier<List<ProviderReport>> reports) {
        this.backend = backend;
        this.reason = reason;
        this.reports = reports;
    }

    /** @return the chosen backend */
    public Backend backend() {
        return backend;
    }

    /** @return how it was chosen, for example {@code "requested by system property attn4j.backend"} */
    public String reason() {
        return reason;
    }

    /**
     * Checks the availability of every provider not checked yet (which may load a native library), once.
     *
     * @return every provider found, in name order, with the chosen one marked
     */
    public synchronized List<ProviderReport> providers() {
        if (providers == null) {
            providers = List.copyOf(reports.get());
        }
        return providers;
    }

    @Override
    public String toString() {
        return "BackendSelection[backend=" + backend.name() + ", reason=" + reason + "]";
    }
}
