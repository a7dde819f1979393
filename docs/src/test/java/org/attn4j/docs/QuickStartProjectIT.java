package org.attn4j.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Follows the root README's "Quick start" as a new user would, with the README's own text: its install command in
 * a copy of this repository, its {@code pom.xml} and {@code QuickStart.java} in a fresh folder, its run command
 * there, and compares what that prints with the README's expected output. Maven runs with a private local
 * repository (never the user's {@code ~/.m2}), seeded from the build's own local repository as a file repository so
 * that nothing already there is downloaded again.
 */
class QuickStartProjectIT {
    private static final long MINUTES = 15;

    @TempDir
    Path work;

    @Test
    void theQuickStartBuildsAndRunsWithTheCommandsTheReadmeGives() throws Exception {
        String section = Readmes.section(Readmes.read(Readmes.root().resolve("README.md")), "Quick start");
        List<Readmes.Block> blocks = Readmes.blocks(section);
        List<String> commands = blocks.stream().filter(b -> b.language().equals("shell"))
                .map(b -> b.text().strip()).toList();
        assertEquals(2, commands.size(), "an install command and a run command:\n" + section);
        String pom = only(blocks, "xml");
        String quickStart = only(blocks, "java");
        List<String> expected = only(blocks, "text").lines().toList();

        Path clone = copyOfRepository(work.resolve("attn4j"));
        Path settings = seededSettings(work.resolve("settings.xml"), work.resolve("m2"));
        Run install = maven(clone, commands.get(0), settings);
        assertEquals(0, install.exit(), install.transcript());

        Path project = Files.createDirectories(work.resolve("quickstart"));
        Files.writeString(project.resolve("pom.xml"), pom);
        Path source = project.resolve("src/main/java/QuickStart.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, quickStart);
        Run run = maven(project, commands.get(1), settings);
        assertEquals(0, run.exit(), run.transcript());

        List<String> printed = run.output().replaceAll("\u001B\\[[0-9;]*m", "").lines()
                .filter(l -> !l.startsWith("WARNING")).toList();
        assertTrue(printed.size() >= expected.size(), run.transcript());
        for (int i = 0; i < expected.size(); i++) {
            String want = expected.get(i);
            if (want.endsWith("…]")) {
                String prefix = want.substring(0, want.length() - 2);
                assertTrue(printed.get(i).startsWith(prefix), "line " + i + ": expected " + want + "\n"
                        + run.transcript());
            } else {
                assertEquals(want, printed.get(i), run.transcript());
            }
        }
    }

    private static String only(List<Readmes.Block> blocks, String language) {
        List<String> found = blocks.stream().filter(b -> b.language().equals(language)).map(Readmes.Block::text)
                .toList();
        assertEquals(1, found.size(), "one ```" + language + " block in the quick start");
        return found.get(0);
    }

    /** Copies the repository's sources, without build output and hidden folders other than {@code .mvn}. */
    private static Path copyOfRepository(Path to) throws IOException {
        Path root = Readmes.root();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path relative = root.relativize(p);
                boolean skip = Stream.of(relative.toString().split("/")).anyMatch(part -> part.equals("target")
                        || part.startsWith(".") && !part.equals(".mvn") && !part.isEmpty());
                if (skip) {
                    continue;
                }
                Path target = to.resolve(relative.toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
        return to;
    }

    /** A settings file: a private local repository, and the build's own local repository read as a remote one. */
    private static Path seededSettings(Path file, Path localRepository) throws IOException {
        String seed = Path.of(System.getProperty("attn4j.maven.seed")).toUri().toString();
        String repository = "<id>seed</id><url>" + seed + "</url><snapshots><enabled>false</enabled></snapshots>";
        Files.writeString(file, "<settings><localRepository>" + localRepository + "</localRepository>"
                + "<profiles><profile><id>seed</id>"
                + "<repositories><repository>" + repository + "</repository></repositories>"
                + "<pluginRepositories><pluginRepository>" + repository + "</pluginRepository></pluginRepositories>"
                + "</profile></profiles><activeProfiles><activeProfile>seed</activeProfile></activeProfiles>"
                + "</settings>\n");
        return file;
    }

    private record Run(int exit, String output, String command) {
        String transcript() {
            return "$ " + command + "\nexit " + exit + "\n" + output;
        }
    }

    /** Runs a README command line that starts with {@code mvn}, adding only {@code -s settings}. */
    private Run maven(Path dir, String commandLine, Path settings) throws Exception {
        List<String> words = new ArrayList<>(Arrays.asList(commandLine.split("\\s+")));
        assertEquals("mvn", words.get(0), commandLine);
        words.set(0, Path.of(System.getProperty("attn4j.maven.home"), "bin", "mvn").toString());
        words.add(1, "-s");
        words.add(2, settings.toString());
        Path log = Files.createTempFile(work, "mvn", ".log");
        Process p = new ProcessBuilder(words).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(MINUTES, TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly();
        }
        return new Run(done ? p.exitValue() : -1, Files.readString(log), String.join(" ", words));
    }
}
