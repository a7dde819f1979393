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
        return java(jar, jvmOptions, args);
    }

    private Run java(Path jarFile, List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jarFile.toString()));
        command.addAll(List.of(args));
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "java -jar attn4j.jar " + String.join(" ", args)
                + " did not finish in 5 minutes");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** @return the provider classes a jar's merged services file names */
    private static Set<String> services(Path jarFile) throws IOException {
        Set<String> inJar = new TreeSet<>();
        try (JarFile j = new JarFile(jarFile.toFile())) {
            ZipEntry e = j.getEntry("META-INF/services/" + BackendProvider.class.getName());
            assertNotNull(e, jarFile + " has no services file for " + BackendProvider.class.getName());
            try (InputStream in = j.getInputStream(e)) {
                new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                        .filter(l -> !l.isEmpty() && !l.startsWith("#")).forEach(inJar::add);
            }
        }
        return inJar;
    }

    @Test
    void theJarHoldsThePureJavaBackendAndTheAddOnsTheOthers() throws IOException {
        Set<String> expected = new TreeSet<>();
        ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::type)
                .filter(t -> t != UnpluggedProvider.class).forEach(t -> expected.add(t.getName()));
        assertEquals(Set.of("org.attn4j.backend.ejml.EjmlBackendProvider"), services(jar));
        try (JarFile j = new JarFile(jar.toFile())) {
            assertEquals("org.attn4j.cli.Main", j.getManifest().getMainAttributes().getValue("Main-Class"));
            List<String> foreign = j.stream().map(ZipEntry::getName).filter(n -> n.startsWith("org/nd4j/")
                    || n.startsWith("org/bytedeco/") || n.startsWith("jcuda/") || n.endsWith(".so")).limit(5)
                    .toList();
            assertEquals(List.of(), foreign, "attn4j.jar carries no ND4J, JavaCPP, JCuda or native library");
        }
        Path addOns = jar.resolveSibling(BackendJars.FOLDER);
        Set<String> all = new TreeSet<>(services(jar));
        all.addAll(services(addOns.resolve("attn4j-nd4j.jar")));
        all.addAll(services(addOns.resolve("attn4j-cuda.jar")));
        assertEquals(expected, all, "the jar and its add-ons together hold every provider of the build");
    }

    @Test
    void theJarAloneRunsTheDemoOnThePureJavaBackend() throws Exception {
        Path alone = Files.copy(jar, Files.createDirectories(dir.resolve("alone")).resolve("attn4j.jar"));
        Run r = java(alone, List.of(), "backends");
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().startsWith("1 backend provider found; selected: ejml"), r.transcript());
        Run demo = java(alone, List.of(), "demo");
        assertEquals(0, demo.exitCode(), demo.transcript());
        assertEquals("", demo.err(), demo.transcript());
    }

    /**
     * A third party's backend jar: the template backend's sources compiled against the api alone, with its services
     * file, and nothing else.
     */
    private Path templateBackendJar() throws IOException {
        Path main = Path.of(System.getProperty("attn4j.it.template"));
        Path classes = Files.createDirectories(dir.resolve("template-classes"));
        List<String> sources;
        try (var files = Files.walk(main.resolve("java"))) {
            sources = files.filter(f -> f.toString().endsWith(".java")).map(Path::toString).toList();
        }
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-cp",
                System.getProperty("java.class.path")));
        args.addAll(sources);
        assertEquals(0, javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null,
                args.toArray(String[]::new)), "javac of " + main);
        Path jarFile = dir.resolve("naive-backend.jar");
        try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jarFile));
             var files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new ZipEntry(classes.relativize(f).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(f));
            }
            String services = "META-INF/services/" + BackendProvider.class.getName();
            out.putNextEntry(new ZipEntry(services));
            out.write(Files.readAllBytes(main.resolve("resources").resolve(services)));
        }
        return jarFile;
    }

    @Test
    void aThirdPartyBackendJarRunsTheDemoThroughBackendJar() throws Exception {
        Path naive = templateBackendJar();
        Run r = java("--backend-jar", naive.toString(), "demo", "--backend", "naive");
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().contains("\nbackend: naive (requested with --backend)\n"), r.transcript());
        assertEquals("", withoutLog(r.err()), r.transcript());
    }

    @Test
    void noCommandPrintsAThirdPartyWarning() throws Exception {
        for (String[] args : new String[][] {{"backends"}, {"demo", "--backend", "nd4j"},
                {"embed", "--backend", "nd4j", "A first text.", "A second one."}, {"embed", "One text."}}) {
            Run r = java(args);
            assertEquals(0, r.exitCode(), r.transcript());
            assertEquals("", withoutLog(r.err()), String.join(" ", args) + "\n" + r.transcript());
        }
    }

    @Test
    void embedStreamsThroughAPipeAndDrawsProgressThroughTheRelaunchedJvm() throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-D" + Terminal.PROPERTY + "=true", "-jar", jar.toString(), "embed", "--input", "-"));
        Path err = dir.resolve("stream-err.txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectError(err.toFile()).start();
        try (var stdin = p.getOutputStream();
             var stdout = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                     StandardCharsets.UTF_8))) {
            stdin.write("The cat sat on the mat.\n".getBytes(StandardCharsets.UTF_8));
            stdin.flush();
            String first = stdout.readLine();
            assertNotNull(first, "no output while standard input stayed open");
            assertTrue(first.startsWith("{\"text\":\"The cat sat on the mat.\",\"tokens\":9,\"embedding\":["), first);
            stdin.write("A kitten is sitting on a rug.\n".getBytes(StandardCharsets.UTF_8));
            stdin.close();
            String second = stdout.readLine();
            assertTrue(second != null && second.startsWith("{\"text\":\"A kitten"), String.valueOf(second));
            assertEquals(null, stdout.readLine());
        }
        assertTrue(p.waitFor(5, TimeUnit.MINUTES));
        String progress = withoutLog(Files.readString(err));
        assertEquals(0, p.exitValue(), progress);
        assertTrue(progress.startsWith("\r") && progress.endsWith("\n") && progress.contains("2 texts")
                && !progress.contains("incubator"), progress);
    }

    @Test
    void backendsListsEveryProviderFromTheJarAndItsAddOns() throws Exception {
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
            String err = withoutLog(Files.readString(dir.resolve("stderr.txt")));
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

    /** @return standard error without the commands' INFO lines of load and first-call times ({@code CommandLog}) */
    private static String withoutLog(String err) {
        return err.replaceAll("(?m)^INFO: attn4j [^\\r\\n]*\\R", "");
    }
}
