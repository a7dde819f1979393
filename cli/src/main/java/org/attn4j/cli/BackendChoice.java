package org.attn4j.cli;

import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import org.attn4j.api.Backend;
import org.attn4j.api.BackendProvider;
import org.attn4j.api.BackendSelection;
import org.attn4j.api.Backends;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The backend a command runs on and why: the one named by {@code --backend}, else {@link Backends#select()}'s
 * choice (system property {@code attn4j.backend}, environment variable {@code ATTN4J_BACKEND}, else the available
 * provider with the highest priority).
 *
 * @param backend the backend
 * @param reason how it was chosen, as {@link BackendSelection#reason()}
 */
record BackendChoice(Backend backend, String reason) {

    /** The reason given when {@code --backend} names the backend. */
    static final String BY_OPTION = "requested with --backend";

    /**
     * @param requested the {@code --backend} value, or null
     * @param spec the command, for usage errors
     * @return the backend and why it was chosen
     * @throws ParameterException if no provider has the requested name (exit code 2), listing the known names
     * @throws IllegalStateException if the backend cannot run here or none is usable (exit code 1), saying why
     */
    static BackendChoice resolve(String requested, CommandSpec spec) {
        if (requested == null) {
            BackendSelection s = Backends.select();
            return new BackendChoice(s.backend(), s.reason());
        }
        if (!known().contains(requested.toLowerCase(Locale.ROOT))) {
            throw unknown(requested, spec);
        }
        return new BackendChoice(Backends.load(requested), BY_OPTION);
    }

    /** @return the names of the providers on the class path, lower-cased, sorted; no backend is created */
    static List<String> known() {
        return ServiceLoader.load(BackendProvider.class).stream().map(p -> p.get().name().toLowerCase(Locale.ROOT))
                .sorted().toList();
    }

    /**
     * @param requested a name no provider has
     * @param spec the command
     * @return the usage error listing the names there are
     */
    static ParameterException unknown(String requested, CommandSpec spec) {
        List<String> known = known();
        return new ParameterException(spec.commandLine(), "unknown backend '" + requested + "'; known backends: "
                + (known.isEmpty() ? "none (no backend jar is on the class path)" : String.join(", ", known)));
    }
}
