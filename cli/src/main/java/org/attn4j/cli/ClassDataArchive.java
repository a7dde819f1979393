package org.attn4j.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The JDK's class-data sharing archive of the relaunched JVM ({@link VectorModuleRelaunch}): the classes a command
 * loads (picocli, Jackson, the models, the backend, the Vector API's), parsed and verified once and mapped into later
 * JVMs, which then start loading the model sooner. The first run with a given jar, JDK and JVM options writes the
 * archive when its JVM exits ({@code -XX:ArchiveClassesAtExit}, JDK 13 and later) under a name of its own, which
 * {@link #publish()} renames into place once that JVM has ended, so that no JVM ever maps a half-written file; later
 * runs map it ({@code -XX:SharedArchiveFile}). The archive lives in the user's cache folder
 * ({@code $XDG_CACHE_HOME/attn4j}, else {@code ~/.cache/attn4j}; {@code ~/Library/Caches/attn4j} on macOS,
 * {@code %LOCALAPPDATA%\attn4j} on Windows) under a name that digests the JDK, the class path's files (path, size,
 * time) and the JVM's options, so that a new jar or JDK gets a new archive. It is never required: the JVM's CDS
 * logging is turned off, and an archive the JVM cannot use (another JDK build, a changed file) is ignored by it
 * silently. Nothing is archived under {@code -D}{@value #PROPERTY}{@code =false}, on a JDK before 13, when the JVM's
 * options already choose what it shares ({@code -Xshare}, {@code -XX:SharedArchiveFile}, an AOT cache), when the
 * class path holds anything but jar files (a dynamic archive refuses directories), or when the cache folder cannot
 * be written.
 */
final class ClassDataArchive {
    /** The system property that turns the archive off when {@code false}. */
    static final String PROPERTY = "attn4j.cds";

    private final Path archive;
    private final Path pending;

    private ClassDataArchive(Path archive, Path pending) {
        this.archive = archive;
        this.pending = pending;
    }

    /**
     * @param jvmOptions the options of the JVM being relaunched
     * @return the archive for a JVM with these options, this JDK and this class path, or empty where none is used
     */
    static Optional<ClassDataArchive> of(List<String> jvmOptions) {
        if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
            return Optional.empty();
        }
        Optional<Path> folder = cacheFolder(System.getenv(), System.getProperty("os.name", ""),
                System.getProperty("user.home"));
        if (folder.isEmpty()) {
            return Optional.empty();
        }
        return of(jvmOptions, Runtime.version().feature(), System.getProperty("java.class.path", ""), folder.get());
    }

    /**
     * @param jvmOptions the options of the JVM being relaunched
     * @param feature the JDK's feature version
     * @param classPath the class path the relaunched JVM gets
     * @param folder where archives are kept
     * @return the archive, or empty where none is used (see the class comment)
     */
    static Optional<ClassDataArchive> of(List<String> jvmOptions, int feature, String classPath, Path folder) {
        if (feature < 13 || jvmOptions.stream().anyMatch(ClassDataArchive::choosesSharing) || classPath.isEmpty()) {
            return Optional.empty();
        }
        List<String> identity = new ArrayList<>();
        identity.add(System.getProperty("java.home"));
        identity.add(System.getProperty("java.vm.version"));
        identity.addAll(jvmOptions);
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            Path jar = Path.of(entry);
            if (!entry.toLowerCase(Locale.ROOT).endsWith(".jar") || !Files.isRegularFile(jar)) {
                return Optional.empty();
            }
            try {
                identity.add(jar.toAbsolutePath() + " " + Files.size(jar) + " " + Files.getLastModifiedTime(jar));
            } catch (IOException e) {
                return Optional.empty();
            }
        }
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            return Optional.empty();
        }
        if (!Files.isWritable(folder)) {
            return Optional.empty();
        }
        Path archive = folder.resolve("attn4j-" + digest(identity) + ".jsa");
        return Optional.of(new ClassDataArchive(archive,
                folder.resolve(archive.getFileName() + "." + ProcessHandle.current().pid() + ".tmp")));
    }

    /**
     * @param feature the JDK's feature version
     * @return the JVM options: map the archive if it is there, else write it at exit under a name of this process,
     *     with the JVM's CDS logging off either way (and, from JDK 25, its AOT logging, which CDS reports under)
     */
    List<String> options(int feature) {
        List<String> options = new ArrayList<>();
        options.add(Files.isRegularFile(archive) ? "-XX:SharedArchiveFile=" + archive
                : "-XX:ArchiveClassesAtExit=" + pending);
        options.add("-Xlog:cds=off");
        options.add("-Xlog:cds+dynamic=off");
        if (feature >= 25) {
            options.add("-Xlog:aot=off");
        }
        return options;
    }

    /** Moves an archive the ended JVM wrote into place; does nothing when it wrote none. */
    void publish() {
        if (!Files.isRegularFile(pending)) {
            return;
        }
        try {
            try {
                Files.move(pending, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.deleteIfExists(pending);
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(pending);
            } catch (IOException ignored) {
                // a leftover file of this process's name is never read
            }
        }
    }

    /** @return where the archive is, or will be once published */
    Path path() {
        return archive;
    }

    /**
     * @param env the environment
     * @param osName the {@code os.name} property
     * @param home the {@code user.home} property
     * @return the user's cache folder for attn4j, or empty if it cannot be told
     */
    static Optional<Path> cacheFolder(Map<String, String> env, String osName, String home) {
        String os = osName.toLowerCase(Locale.ROOT);
        if (os.startsWith("windows")) {
            String local = env.get("LOCALAPPDATA");
            return local == null || local.isBlank() ? Optional.empty() : Optional.of(Path.of(local, "attn4j"));
        }
        if (home == null || home.isBlank()) {
            return Optional.empty();
        }
        if (os.startsWith("mac")) {
            return Optional.of(Path.of(home, "Library", "Caches", "attn4j"));
        }
        String xdg = env.get("XDG_CACHE_HOME");
        return Optional.of(xdg != null && Path.of(xdg).isAbsolute() ? Path.of(xdg, "attn4j")
                : Path.of(home, ".cache", "attn4j"));
    }

    /** @return whether a JVM option already decides what the JVM shares or caches ahead of time */
    private static boolean choosesSharing(String option) {
        return option.startsWith("-Xshare") || option.startsWith("-XX:SharedArchiveFile")
                || option.startsWith("-XX:ArchiveClassesAtExit") || option.startsWith("-XX:+AutoCreateSharedArchive")
                || option.startsWith("-XX:AOT") || option.startsWith("-XX:SharedClassListFile");
    }

    private static String digest(List<String> parts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String p : parts) {
                sha.update(String.valueOf(p).getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
