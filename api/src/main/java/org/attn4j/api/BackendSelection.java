package org.attn4j.api;

import java.util.List;

/**
 * The outcome of {@link Backends#select()}: the backend chosen and why.
 *
 * @param backend the chosen backend
 * @param reason how it was chosen, for example {@code "requested by system property attn4j.backend"}
 * @param providers every provider found, in name order
 */
public record BackendSelection(Backend backend, String reason, List<ProviderReport> providers) {

    /** Copies the provider list. */
    public BackendSelection {
        providers = List.copyOf(providers);
    }
}
