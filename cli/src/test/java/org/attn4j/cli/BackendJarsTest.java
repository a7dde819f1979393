package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --backend-jar} with a third party's jar that holds only a provider class and its services file, compiled
 * here against the api so that nothing of it is on the test class path.
 */
class BackendJarsTest {
    private static final String REASON = "a third-party test provider that never runs";

    @TempDir
    static Path dir;

    private static Path jar;

    @BeforeAll
    static void buildThirdPartyJar() throws IOException {
        jar = providerJar(dir.resolve("loopy"), "LoopyProvider", "loopy",
                "return Availability.unavailable(\"" + REASON + "\");");
    }

    /** Compiles {@code com.example.NAME} (a provider) and jars it with its services file. */
    static Path providerJar(Path folder, String className, String name, String availabilityBody) throws IOException {
        Path src = Files.createDirectories(folder.resolve("src/com/example"));
        Path classes = Files.createDirectories(folder.resolve("classes"));
        Files.writeString(src.resolve(className + ".java"), "package com.example;\n"
                + "import org.attn4j.api.*;\n"
                + "public final class " + className + " implements BackendProvider {\n"
                + "  public String name() { return \"" + name + "\"; }\n"
                + "  public int priority() { return 0; }\n"
                + "  public Availability availability() { " + availabilityBody + " }\n"
                + "  public Capabilities capabilities() { return Capabilities.builder(\"none\").build(); }\n"
                + "  public Backend create(BackendOptions options) {\n"
                + "    throw new IllegalStateException(\"never created\");\n"
                + "  }\n"
                + "}\n");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
                src.resolve(className + ".java").toString());
        assertEquals(0, rc, "javac failed");
        Path out = folder.resolve(name + ".jar");
        try (JarOutputStream j = new JarOutputStream(Files.newOutputStream(out))) {
            j.putNextEntry(new JarEntry("com/example/" + className + ".class"));
            j.write(Files.readAllBytes(classes.resolve("com/example/" + className + ".class")));
            j.putNextEntry(new JarEntry("META-INF/services/org.attn4j.api.BackendProvider"));
            j.write(("com.example." + className + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void theJarsProvidersAreListedWhetherTheOptionComesBeforeOrAfterTheCommand() {
        for (Cli r : List.of(Cli.run("--backend-jar", jar.toString(), "backends"),
                Cli.run("backends", "--backend-jar", jar.toString()))) {
            assertEquals(0, r.exitCode(), r.transcript());
            assertTrue(r.out().contains("\n  loopy (priority 0): unavailable — " + REASON + "\n"), r.transcript());
        }
        Cli without = Cli.run("backends");
        assertFalse(without.out().contains("loopy"), without.transcript());
    }

    @Test
    void everyCommandSeesTheJarsBackend() {
        Cli embed = Cli.run("embed", "--backend-jar", jar.toString(), "--backend", "loopy", "a text");
        assertEquals(1, embed.exitCode(), embed.transcript());
        assertTrue(embed.err().contains("'loopy'") && embed.err().contains(REASON), embed.transcript());

        Cli tck = Cli.run("tck", "--backend-jar", jar.toString(), "--backend", "loopy");
        assertTrue(tck.out().contains("loopy") && tck.out().contains(REASON), tck.transcript());
    }

    @Test
    void theContextClassLoaderIsRestoredAfterTheCommand() {
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        Cli.run("--backend-jar", jar.toString(), "backends");
        assertEquals(before, Thread.currentThread().getContextClassLoader());
    }

    @Test
    void aMissingPathIsBadInput() {
        Path missing = dir.resolve("missing.jar");
        Cli r = Cli.run("--backend-jar", missing.toString(), "backends");
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals("attn4j backends: --backend-jar " + missing + " does not exist (see 'attn4j backends --help')",
                r.err().strip(), r.transcript());
    }

    @Test
    void aJarWithoutTheServicesFileIsBadInput() throws IOException {
        Path plain = dir.resolve("plain.jar");
        try (JarOutputStream j = new JarOutputStream(Files.newOutputStream(plain))) {
            j.putNextEntry(new JarEntry("readme.txt"));
            j.write(1);
        }
        Cli r = Cli.run("backends", "--backend-jar", plain.toString());
        assertEquals(2, r.exitCode(), r.transcript());
        assertTrue(r.err().startsWith("attn4j backends: --backend-jar " + plain + " has no "
                + "META-INF/services/org.attn4j.api.BackendProvider, so it registers no attn4j backend"),
                r.transcript());

        Path text = Files.writeString(dir.resolve("text.jar"), "not a zip");
        Cli t = Cli.run("backends", "--backend-jar", text.toString());
        assertEquals(2, t.exitCode(), t.transcript());
        assertTrue(t.err().startsWith("attn4j backends: --backend-jar " + text + " is not a readable jar"),
                t.transcript());
    }

    @Test
    void aProviderThatCannotBeLoadedIsBadInputNamingIt() throws IOException {
        Path broken = dir.resolve("broken.jar");
        try (JarOutputStream j = new JarOutputStream(Files.newOutputStream(broken))) {
            j.putNextEntry(new JarEntry("META-INF/services/org.attn4j.api.BackendProvider"));
            j.write("com.example.Missing\n".getBytes(StandardCharsets.UTF_8));
        }
        Cli r = Cli.run("backends", "--backend-jar", broken.toString());
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().strip().lines().count(), r.transcript());
        assertTrue(r.err().contains("a backend provider cannot be loaded") && r.err().contains("com.example.Missing"),
                r.transcript());
    }

    @Test
    void aFolderLoadsEveryJarInIt() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("folder"));
        Files.copy(jar, folder.resolve("loopy.jar"));
        Path second = providerJar(dir.resolve("other"), "OtherProvider", "other",
                "return Availability.unavailable(\"other\");");
        Files.copy(second, folder.resolve("other.jar"));
        Cli r = Cli.run("--backend-jar", folder.toString(), "backends");
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().contains("  loopy (priority 0)") && r.out().contains("  other (priority 0)"),
                r.transcript());
    }

    @Test
    void theFolderNextToTheJarIsReadWithoutAnOption() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("next-to-jar"));
        Files.copy(jar, folder.resolve("loopy.jar"));
        Optional<BackendJars> opened = BackendJars.open(List.of(), Optional.of(folder));
        assertTrue(opened.isPresent());
        assertEquals(List.of(folder.resolve("loopy.jar").toAbsolutePath()), opened.get().jars());
        assertTrue(BackendJars.open(List.of(), Optional.of(dir.resolve("absent"))).isEmpty());
        try (Stream<Path> files = Files.list(folder)) {
            assertEquals(1, files.count());
        }
        assertTrue(BackendJars.folderNextToJar().isEmpty(), "the tests run from classes, not from attn4j.jar");
    }
}
