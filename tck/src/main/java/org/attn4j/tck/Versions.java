package org.attn4j.tck;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.attn4j.api.Backend;

/**
 * The versions a kit run checks: the kit's own, which names the api it was built against, and the api's on the class
 * path, each read from a properties file Maven writes into its jar. A kit checks the api of its own minor version
 * ({@code major.minor} equal): within a minor version the api only grows, which {@link ApiSignature} holds; across
 * minor versions the contract may change, so the kit refuses to run rather than judge a backend by the wrong one.
 *
 * @param kit the kit's version, for example {@code 0.1.0}
 * @param api the version of the api on the class path, or null if it carries none
 */
record Versions(String kit, String api) {
    private static final String KIT_RESOURCE = "/org/attn4j/tck/attn4j-tck.properties";
    private static final String API_RESOURCE = "/org/attn4j/api/attn4j-api.properties";
    private static final Pattern MINOR = Pattern.compile("(\\d+)\\.(\\d+)(?:[.\\-].*)?");

    /** @return the kit's version and that of the api the kit's classes run with */
    static Versions current() {
        return new Versions(read(Versions.class, KIT_RESOURCE), read(Backend.class, API_RESOURCE));
    }

    private static String read(Class<?> anchor, String resource) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param version a version such as {@code 0.1.0-SNAPSHOT}
     * @return its {@code major.minor}, or empty if it has none
     */
    static Optional<String> minor(String version) {
        if (version == null) {
            return Optional.empty();
        }
        Matcher m = MINOR.matcher(version);
        return m.matches() ? Optional.of(m.group(1) + "." + m.group(2)) : Optional.empty();
    }

    /**
     * @return why the kit must not run against this api (another minor version, or none recorded), or empty if it
     *     may
     */
    Optional<String> problem() {
        String where = " (the attn4j-api on the class path, from " + ServiceWiring.home(Backend.class) + ")";
        Optional<String> kitMinor = minor(kit);
        if (kitMinor.isEmpty()) {
            return Optional.of("attn4j-tck: its own version '" + kit + "' is unreadable; rebuild the kit");
        }
        Optional<String> apiMinor = minor(api);
        if (apiMinor.isEmpty()) {
            return Optional.of("attn4j-tck " + kit + " checks attn4j-api " + kitMinor.get() + ".x, but the api"
                    + where + " records no version (" + API_RESOURCE + " is missing or unreadable). Put attn4j-api "
                    + kitMinor.get() + ".x on the class path");
        }
        if (!apiMinor.equals(kitMinor)) {
            return Optional.of("attn4j-tck " + kit + " checks attn4j-api " + kitMinor.get() + ".x, not " + api
                    + where + ". Use the attn4j-tck of your api's minor version, " + apiMinor.get()
                    + ".x, or the api of this kit's");
        }
        return Optional.empty();
    }

    /** @throws IllegalStateException naming both versions if the kit must not run against this api */
    void requireCompatible() {
        problem().ifPresent(p -> {
            throw new IllegalStateException(p);
        });
    }

    /** @return {@code attn4j-tck 0.1.0 on attn4j-api 0.1.0}, the report's first line */
    String describe() {
        return "attn4j-tck " + kit + " on attn4j-api " + (api == null ? "of unknown version" : api);
    }
}
