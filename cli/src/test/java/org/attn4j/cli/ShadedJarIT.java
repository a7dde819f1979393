package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import javax.imageio.ImageIO;
import org.attn4j.api.BackendProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the packaged {@code attn4j.jar} in a fresh JVM, as the README tells a user to. */
class ShadedJarIT {
    private static Path jar;

    @TempDir
    Path dir;

    @BeforeAll
    static void findJar() {
        String property = System.getProperty("attn4j.jar");
        assertNotNull(property, "the build passes the jar's path in the system property attn4j.jar");
        jar = Path.of(property);
        assertTrue(Files.isRegularFile(jar), jar + " is missing; run mvn package");
    }

    /** A process's exit code and output. */
    private record Run(int exitCode, String out, String err) {
        String transcript() {
            return "exit " + exitCode + "\n--- out ---\n" + out + "--- err ---\n" + err;
        }
    }

    private Run java(String... args) throws IOException, InterruptedException {
        return java(List.of(), args);
    }

    private Run java(List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(List.of(args));
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "java -jar attn4j.jar " + String.join(" ", args)
                + " did not finish in 5 minutes");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void theMergedServicesFileNamesEveryBackendProviderOfTheBuild() throws IOException {
        Set<String> expected = new TreeSet<>();
        ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::type)
                .filter(t -> t != UnpluggedProvider.class).forEach(t -> expected.add(t.getName()));
        Set<String> inJar = new TreeSet<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            ZipEntry e = j.getEntry("META-INF/services/" + BackendProvider.class.getName());
            assertNotNull(e, jar + " has no services file for " + BackendProvider.class.getName());
            try (InputStream in = j.getInputStream(e)) {
                new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                        .filter(l -> !l.isEmpty() && !l.startsWith("#")).forEach(inJar::add);
            }
            assertEquals("org.attn4j.cli.Main", j.getManifest().getMainAttributes().getValue("Main-Class"));
        }
        assertTrue(!expected.isEmpty(), "no backend on the test class path");
        assertEquals(expected, inJar);
    }

    @Test
    void backendsListsEveryProviderFromTheJar() throws Exception {
        Run r = java("backends");
        assertEquals(0, r.exitCode(), r.transcript());
        for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
            if (!(p instanceof UnpluggedProvider)) {
                assertTrue(r.out().contains("\n  " + p.name() + " (priority " + p.priority() + "): "),
                        "no availability line for " + p.name() + "\n" + r.transcript());
            }
        }
    }

    @Test
    void plainJavaJarRunsTheEjmlSimdKernelWithoutTheIncubatorWarning() throws Exception {
        Run r = java("backends");
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("  ejml (priority 100): available")
                && l.contains("-bit SIMD vectors (jdk.incubator.vector)")), r.transcript());
        assertTrue(!r.err().contains("incubator"), r.transcript());

        Run off = java(List.of("-D" + VectorModuleRelaunch.PROPERTY + "=false"), "backends");
        assertTrue(off.out().lines().anyMatch(l -> l.startsWith("  ejml (priority 100): available")
                && l.contains("scalar kernel") && l.contains("--add-modules jdk.incubator.vector")),
                off.transcript());
    }

    @Test
    void theReadmeDemoRunsOnTheDefaultBackendAndLeavesTheHeatmap() throws Exception {
        Run r = java("demo");
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().contains("\n6. Transformer block"), r.transcript());
        assertTrue(r.out().contains("\n7. Pretrained all-MiniLM-L6-v2, layer 3 of 6"), r.transcript());
        Path png = dir.resolve("attn4j-demo").resolve(DemoCommand.HEATMAP);
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "cannot decode " + png + "\n" + r.transcript());
        assertTrue(r.out().contains("heatmap: attn4j-demo/" + DemoCommand.HEATMAP + " (" + image.getWidth() + "x"
                + image.getHeight() + " px, 23 panels: "), r.transcript());
    }

    @Test
    void serveAnswersOverHttpAndStopsWithItsJvm() throws Exception {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                jar.toString(), "serve", "--port", "0", "--backend", "ejml");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectError(dir.resolve("stderr.txt")
                .toFile()).start();
        try (java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                java.nio.charset.StandardCharsets.UTF_8))) {
            String line = out.readLine();
            while (line != null && !line.startsWith("listening on ")) {
                line = out.readLine();
            }
            assertNotNull(line, "serve ended before listening: " + Files.readString(dir.resolve("stderr.txt")));
            String base = line.substring("listening on ".length(), line.indexOf(' ', "listening on ".length()));
            java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/embeddings"))
                            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                    "{\"model\": \"all-minilm-l6-v2\", \"input\": \"hello\"}")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(r.body().contains("\"prompt_tokens\":3"), r.body());
            List<ProcessHandle> children = p.descendants().toList();
            p.destroy();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "serve did not stop on SIGTERM");
            for (ProcessHandle child : children) {
                assertTrue(child.onExit().get(60, TimeUnit.SECONDS) != null, "the relaunched JVM outlived serve");
            }
            String err = Files.readString(dir.resolve("stderr.txt"));
            assertTrue(err.isEmpty(), err);
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void badInputExitsTwoWithOneLine() throws Exception {
        Run r = java("demo", "--text", "");
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
    }
}
