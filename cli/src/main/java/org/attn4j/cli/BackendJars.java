package org.attn4j.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.attn4j.api.BackendProvider;

/**
 * Backend jars the command line loads besides its own class path: those named by {@code --backend-jar PATH} (a jar,
 * or a folder whose {@code *.jar} files are all loaded) and every {@code *.jar} in the folder {@value #FOLDER} next
 * to {@code attn4j.jar}. They are opened in one class loader whose parent is the command line's own, made the
 * thread's context class loader for the command, so that {@link org.attn4j.api.Backends} (which asks
 * {@link ServiceLoader} through the context class loader) finds their providers. A jar needs only its
 * {@code BackendProvider} implementation and {@code META-INF/services/org.attn4j.api.BackendProvider}: the api,
 * and everything else the command line holds, comes from the parent.
 *
 * <p>Every jar is checked before any command runs: it must exist, be a jar and have that services file, and each
 * provider listed must load and construct. A failure is bad input (exit code 2) naming the jar and the provider.
 * The loader stays open for the life of the JVM: a backend's natives and shutdown hooks may load classes from it
 * until the end.
 */
final class BackendJars {
    /** The folder next to {@code attn4j.jar} whose jars are loaded on every run. */
    static final String FOLDER = "backends";

    private static final String SERVICES = "META-INF/services/" + BackendProvider.class.getName();

    private final URLClassLoader loader;
    private final List<Path> jars;

    private BackendJars(URLClassLoader loader, List<Path> jars) {
        this.loader = loader;
        this.jars = List.copyOf(jars);
    }

    /**
     * @param named the {@code --backend-jar} values, in order
     * @param folder the backend folder next to the running jar, if there is one
     * @return the loader over every jar found, or empty when there is none
     * @throws IllegalArgumentException naming the jar and what is wrong with it
     */
    static Optional<BackendJars> open(List<Path> named, Optional<Path> folder) {
        Set<Path> jars = new LinkedHashSet<>();
        if (folder.isPresent() && Files.isDirectory(folder.get())) {
            for (Path jar : jarsIn(folder.get())) {
                requireBackendJar(jar, jar + " (in the backend folder " + folder.get() + ")");
                jars.add(jar);
            }
        }
        for (Path p : named) {
            if (!Files.exists(p)) {
                throw new IllegalArgumentException("--backend-jar " + p + " does not exist");
            }
            List<Path> here = Files.isDirectory(p) ? jarsIn(p) : List.of(p.toAbsolutePath().normalize());
            if (here.isEmpty()) {
                throw new IllegalArgumentException("--backend-jar " + p + " is a folder without *.jar files");
            }
            for (Path jar : here) {
                requireBackendJar(jar, "--backend-jar " + jar);
                jars.add(jar);
            }
        }
        if (jars.isEmpty()) {
            return Optional.empty();
        }
        URL[] urls = jars.stream().map(BackendJars::url).toArray(URL[]::new);
        URLClassLoader loader = new URLClassLoader("attn4j-backend-jars", urls, BackendJars.class.getClassLoader());
        BackendJars opened = new BackendJars(loader, new ArrayList<>(jars));
        try {
            opened.requireLoadableProviders();
        } catch (RuntimeException e) {
            opened.closeAfterFailure();
            throw e;
        }
        return Optional.of(opened);
    }

    /** @return the backend folder next to the jar this class was loaded from, if it runs from a jar */
    static Optional<Path> folderNextToJar() {
        CodeSource source = BackendJars.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return Optional.empty();
        }
        try {
            Path location = Path.of(source.getLocation().toURI());
            return Files.isRegularFile(location) && location.getFileName().toString().endsWith(".jar")
                    ? Optional.of(location.resolveSibling(FOLDER)) : Optional.empty();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** @return the class loader that sees the command line's classes and every backend jar */
    ClassLoader loader() {
        return loader;
    }

    /** @return the jars loaded, the folder's first */
    List<Path> jars() {
        return jars;
    }

    private void closeAfterFailure() {
        try {
            loader.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> jarsIn(Path folder) {
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".jar") && Files.isRegularFile(f))
                    .map(f -> f.toAbsolutePath().normalize()).sorted().toList();
        } catch (IOException e) {
            throw new IllegalArgumentException("backend jars: cannot list " + folder + ": " + e.getMessage());
        }
    }

    private static void requireBackendJar(Path jar, String what) {
        try (JarFile j = new JarFile(jar.toFile())) {
            if (j.getEntry(SERVICES) == null) {
                throw new IllegalArgumentException(what + " has no " + SERVICES
                        + ", so it registers no attn4j backend");
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(what + " is not a readable jar: " + e.getMessage());
        }
    }

    /** Loads and constructs every provider on the class path and in the jars, so that a broken one is named now. */
    private void requireLoadableProviders() {
        Iterator<BackendProvider> it = ServiceLoader.load(BackendProvider.class, loader).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    return;
                }
                it.next();
            } catch (ServiceConfigurationError e) {
                throw new IllegalArgumentException("backend jars " + jars + ": a backend provider cannot be loaded: "
                        + rootMessage(e));
            }
        }
    }

    private static String rootMessage(Throwable e) {
        StringBuilder m = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
            m.append(": ").append(c);
        }
        return m.toString();
    }

    private static URL url(Path jar) {
        try {
            return jar.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("backend jars: " + jar + " has no URL: " + e.getMessage());
        }
    }
}
