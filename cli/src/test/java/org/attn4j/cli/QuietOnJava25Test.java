package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On Java 25 a command prints nothing on standard error. {@code backends} probes every provider of the test class
 * path: the cuda provider loads JCuda's JNI library ({@code System::loadLibrary}) and the nd4j one JavaCPP, whose
 * indexers call {@code sun.misc.Unsafe}; Java 24 and later print four lines of warning for each unless the JVM
 * allows them, which the relaunched JVM does ({@link VectorModuleRelaunch#accessOptions}).
 *
 * <p>The JDK is the one named by {@value #JDK_PROPERTY} (its home folder), else a Java 25 installed beside the JDK
 * that runs the tests (a folder of {@code java.home}'s parent whose {@code release} file says
 * {@code JAVA_VERSION="25…"}); the test is skipped when there is none.
 */
class QuietOnJava25Test {
    /** The system property naming the home folder of a Java 25 for this test. */
    static final String JDK_PROPERTY = "attn4j.test.java25";

    @Test
    void backendsPrintsNothingOnStandardErrorOnJava25(@TempDir Path dir) throws Exception {
        Optional<Path> java = java25();
        assumeTrue(java.isPresent(), "no Java 25 found beside " + System.getProperty("java.home") + "; set -D"
                + JDK_PROPERTY + "=<its home folder> to run this test");
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        ProcessBuilder builder = new ProcessBuilder(java.get().toString(), "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "backends").redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().remove(VectorModuleRelaunch.MARKER);
        Process process = builder.start();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
        }

        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), stdout);
        assertTrue(stdout.contains("backend providers found"), stdout);
        assertEquals("", Files.readString(err, StandardCharsets.UTF_8), "standard error on " + java.get());
    }

    private static Optional<Path> java25() throws IOException {
        String named = System.getProperty(JDK_PROPERTY);
        if (named != null && !named.isBlank()) {
            return Optional.of(Path.of(named, "bin", "java"));
        }
        Path installed = Path.of(System.getProperty("java.home")).toAbsolutePath().getParent();
        if (installed == null || !Files.isDirectory(installed)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(installed)) {
            List<Path> found = homes.filter(h -> isJava25(h.resolve("release")))
                    .map(h -> h.resolve("bin").resolve("java")).filter(Files::isExecutable).sorted().toList();
            return found.stream().findFirst();
        }
    }

    private static boolean isJava25(Path release) {
        if (!Files.isRegularFile(release)) {
            return false;
        }
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(release, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (IOException e) {
            return false;
        }
        String version = p.getProperty("JAVA_VERSION", "");
        return version.matches("\"?25([.\"].*)?");
    }
}
