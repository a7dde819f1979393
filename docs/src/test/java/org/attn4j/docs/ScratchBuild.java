package org.attn4j.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a new user has before following a README: a copy of this repository (its sources, without build output and
 * hidden folders other than {@code .mvn}) and a Maven with a private local repository (never the user's
 * {@code ~/.m2}), seeded from the build's own local repository as a file repository so that nothing already there is
 * downloaded again. One copy serves every integration test of a run, in {@code target/scratch}, made afresh when the
 * first test asks for it and deleted when the test JVM exits (it holds a few hundred MB of the private repository);
 * each test's project folders go beside it.
 */
final class ScratchBuild {
    private static final long MINUTES = 15;
    private static ScratchBuild shared;

    private final Path work;
    private final Path repository;
    private final Path settings;

    private ScratchBuild(Path work) throws IOException {
        this.work = work;
        this.repository = copyOfRepository(work.resolve("attn4j"));
        this.settings = seededSettings(work.resolve("settings.xml"), work.resolve("m2"));
    }

    /** @return the run's scratch build, made on first use */
    static synchronized ScratchBuild get() throws IOException {
        if (shared == null) {
            Path work = Path.of(System.getProperty("attn4j.it.work", "target/scratch")).toAbsolutePath();
            delete(work);
            shared = new ScratchBuild(Files.createDirectories(work));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    delete(work);
                } catch (IOException e) {
                    System.err.println("could not delete " + work + ": " + e);
                }
            }));
        }
        return shared;
    }

    /** @return the copy of the repository */
    Path repository() {
        return repository;
    }

    /**
     * @param name a folder name
     * @return a new, empty folder beside the copy
     */
    Path newFolder(String name) throws IOException {
        Path folder = work.resolve(name);
        delete(folder);
        return Files.createDirectories(folder);
    }

    /**
     * The outcome of one Maven command.
     *
     * @param exit its exit code, -1 if it ran past the time limit
     * @param output standard output and error together
     * @param command the command line as run
     */
    record Run(int exit, String output, String command) {
        String transcript() {
            return "$ " + command + "\nexit " + exit + "\n" + output;
        }

        /** @return the output's lines without terminal colours and the JDK's incubator warnings */
        List<String> lines() {
            return output.replaceAll("\u001B\\[[0-9;]*m", "").lines().filter(l -> !l.startsWith("WARNING")).toList();
        }
    }

    /**
     * Runs a README command line that starts with {@code mvn}, adding only {@code -s settings}.
     *
     * @param dir where to run it
     * @param commandLine the README's words, separated by white space
     * @return what it did
     */
    Run maven(Path dir, String commandLine) throws IOException, InterruptedException {
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

    private static void delete(Path folder) throws IOException {
        if (!Files.exists(folder)) {
            return;
        }
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
