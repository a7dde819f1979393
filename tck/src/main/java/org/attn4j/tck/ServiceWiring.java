package org.attn4j.tck;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import org.attn4j.api.BackendProvider;

/**
 * What {@link ServiceLoader} sees of backend providers through a class loader, as {@code Backends} finds them: the
 * providers it instantiates, the errors it meets, and the service files that list each class.
 */
final class ServiceWiring {
    /** The service file a backend jar lists its provider in. */
    static final String SERVICE_FILE = "META-INF/services/" + BackendProvider.class.getName();
    /** Stops a pathological class path from looping forever. */
    private static final int MAX_PROVIDERS = 1000;

    private final ClassLoader loader;
    private final List<BackendProvider> providers;
    private final List<String> errors;

    private ServiceWiring(ClassLoader loader, List<BackendProvider> providers, List<String> errors) {
        this.loader = loader;
        this.providers = providers;
        this.errors = errors;
    }

    /** @return what the thread's context class loader (else the kit's) offers, the loader {@code Backends} uses */
    static ServiceWiring current() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return of(context != null ? context : ServiceWiring.class.getClassLoader());
    }

    /**
     * @param loader the class loader to look through
     * @return every provider its {@link ServiceLoader} instantiates, and every error it reports on the way
     */
    static ServiceWiring of(ClassLoader loader) {
        List<BackendProvider> found = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        Iterator<BackendProvider> it = ServiceLoader.load(BackendProvider.class, loader).iterator();
        for (int i = 0; i < MAX_PROVIDERS; i++) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                found.add(it.next());
            } catch (ServiceConfigurationError e) {
                errors.add(e.getMessage());
            }
        }
        return new ServiceWiring(loader, List.copyOf(found), List.copyOf(errors));
    }

    /** @return the providers found, in class-path order */
    List<BackendProvider> providers() {
        return providers;
    }

    /** @return the messages of the errors {@link ServiceLoader} reported (a listed class missing or not a provider) */
    List<String> errors() {
        return errors;
    }

    /**
     * @param type a provider class
     * @return the service files on the class path that list it, in class-path order
     */
    List<URL> filesListing(Class<?> type) {
        List<URL> listing = new ArrayList<>();
        try {
            for (URL file : Collections.list(loader.getResources(SERVICE_FILE))) {
                if (entries(file).contains(type.getName())) {
                    listing.add(file);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("tck: cannot list " + SERVICE_FILE + " on the class path: " + e, e);
        }
        return listing;
    }

    /** @return the class names a service file lists, comments and blanks left out, as ServiceLoader reads them */
    private static List<String> entries(URL file) throws IOException {
        List<String> names = new ArrayList<>();
        var connection = file.openConnection();
        if (connection instanceof JarURLConnection jar) {
            jar.setUseCaches(false);
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(connection.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                int hash = line.indexOf('#');
                String name = (hash >= 0 ? line.substring(0, hash) : line).strip();
                if (!name.isEmpty()) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /**
     * @param type a class
     * @return the jar or folder it was loaded from, or null if its class loader does not say
     */
    static Path home(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return null;
        }
        return path(source.getLocation());
    }

    /**
     * @param serviceFile the URL of a service file
     * @return the jar or folder that holds it, or null for a URL of another kind
     */
    static Path home(URL serviceFile) {
        String url = serviceFile.toString();
        try {
            if (url.startsWith("jar:")) {
                return path(new URL(url.substring(4, url.indexOf("!/"))));
            }
            if (url.startsWith("file:") && url.endsWith(SERVICE_FILE)) {
                return path(new URL(url.substring(0, url.length() - SERVICE_FILE.length())));
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    private static Path path(URL location) {
        try {
            return "file".equals(location.getProtocol()) ? Path.of(location.toURI()).toAbsolutePath().normalize()
                    : null;
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }
}
