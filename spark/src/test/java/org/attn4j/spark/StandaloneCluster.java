package org.attn4j.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Spark standalone cluster on the loopback interface, started from Spark's own classes: a SPARK_HOME whose
 * {@code jars/} links to Spark's jars on the test class path ({@code target/spark-home.classpath}, the provided
 * scope), one master and some workers started by its {@code bin/spark-class}, and applications submitted by its
 * {@code bin/spark-submit}, both of which run {@code org.apache.spark.launcher.Main} as Spark's own scripts do.
 *
 * <p>Every process runs under {@code bin/attn4j-tether}, which kills it when its standard input, a pipe from this
 * JVM, closes: when {@link #close()} closes it, or when this JVM dies in any way. {@link #close()} (also run by a
 * shutdown hook) then kills whatever this JVM started and is still alive, executors included, and waits for it.
 * Executors exit by themselves when their worker or driver goes.
 */
final class StandaloneCluster implements AutoCloseable {

    /** What spark-submit ships: this module's {@code target/spark-jars}. */
    static final Path SPARK_JARS = Path.of("target", "spark-jars").toAbsolutePath();
    private static final Path SPARK_CLASSPATH = Path.of("target", "spark-home.classpath").toAbsolutePath();
    private static final Duration START = Duration.ofMinutes(3);

    private final Path home;
    private final Path work;
    private final int masterPort;
    private final int masterUiPort;
    private final List<Daemon> processes = new CopyOnWriteArrayList<>();
    private final List<Path> workerDirs = new ArrayList<>();
    private final Thread hook = new Thread(this::stopAll, "attn4j-standalone-cluster-stop");

    private StandaloneCluster(Path home, Path work) throws IOException {
        this.home = home;
        this.work = work;
        this.masterPort = freePort();
        this.masterUiPort = freePort();
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Assembles a SPARK_HOME under {@code dir}, starts a master and {@code workers} workers of {@code cores} cores
     * each and waits until every worker has registered.
     *
     * @param dir an empty folder for SPARK_HOME, logs and the workers' folders
     * @param workers how many workers
     * @param cores the cores each worker offers
     * @param memory the memory each worker offers, for example {@code 1g}
     * @return the running cluster
     * @throws IOException if a file cannot be written or a process not started
     */
    static StandaloneCluster start(Path dir, int workers, int cores, String memory) throws IOException {
        StandaloneCluster cluster = new StandaloneCluster(sparkHome(dir.resolve("spark-home")),
                Files.createDirectories(dir.resolve("work")));
        try {
            cluster.spawn("master", List.of(cluster.sparkClass(), "org.apache.spark.deploy.master.Master",
                    "--host", "127.0.0.1", "--port", Integer.toString(cluster.masterPort), "--webui-port",
                    Integer.toString(cluster.masterUiPort)), Map.of(), null);
            for (int w = 0; w < workers; w++) {
                Path workerDir = Files.createDirectories(cluster.work.resolve("worker-" + w));
                cluster.workerDirs.add(workerDir);
                cluster.spawn("worker-" + w, List.of(cluster.sparkClass(), "org.apache.spark.deploy.worker.Worker",
                        "--host", "127.0.0.1", "--webui-port", "0", "--cores", Integer.toString(cores), "--memory",
                        memory, "--work-dir", workerDir.toString(), cluster.masterUrl()), Map.of(), null);
            }
            cluster.awaitWorkers(workers);
            return cluster;
        } catch (IOException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** @return {@code spark://127.0.0.1:port} */
    String masterUrl() {
        return "spark://127.0.0.1:" + masterPort;
    }

    /** @return the SPARK_HOME whose {@code bin/} has {@code spark-submit} and {@code spark-class} */
    Path home() {
        return home;
    }

    /** @return the environment every process of the cluster gets: SPARK_HOME, loopback only */
    Map<String, String> environment() {
        Map<String, String> env = new HashMap<>();
        env.put("SPARK_HOME", home.toString());
        env.put("SPARK_CONF_DIR", home.resolve("conf").toString());
        env.put("SPARK_SCALA_VERSION", "2.13");
        env.put("SPARK_LOCAL_IP", "127.0.0.1");
        env.put("SPARK_LOCAL_HOSTNAME", "127.0.0.1");
        env.put("SPARK_LOCAL_DIRS", work.resolve("local").toString());
        env.put("JAVA_HOME", System.getProperty("java.home"));
        return env;
    }

    /**
     * Runs {@code bin/spark-submit} of this cluster's SPARK_HOME in client mode against its master.
     *
     * @param name the name of its log files in the work folder
     * @param arguments everything after {@code spark-submit --master URL}
     * @param lines gets each line the driver prints on standard output, as it prints it
     * @return the running driver
     * @throws IOException if it cannot be started
     */
    Application submit(String name, List<String> arguments, Consumer<String> lines) throws IOException {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/spark-submit").toString(), "--master",
                masterUrl(), "--deploy-mode", "client"));
        command.addAll(arguments);
        Daemon driver = spawn(name, command, Map.of(), lines);
        return new Application(driver);
    }

    /**
     * Runs a shell script with this cluster's environment, {@code pathFirst} and then its {@code bin/} first on the
     * PATH, and {@code SPARK_MASTER} set to its master, under the tether like every other process.
     *
     * @param name the name of its log file in the work folder
     * @param script the script, run by {@code bash -euo pipefail -c}
     * @param dir its working folder
     * @param pathFirst a folder to put before everything else on the PATH
     * @param timeout how long it may take
     * @return its exit code (-1 if it ran out of time and was stopped) and everything it printed
     * @throws IOException if it cannot be started
     * @throws InterruptedException if interrupted while waiting
     */
    Run runScript(String name, String script, Path dir, Path pathFirst, Duration timeout)
            throws IOException, InterruptedException {
        Map<String, String> env = new HashMap<>(environment());
        env.put("SPARK_MASTER", masterUrl());
        env.put("PATH", pathFirst + File.pathSeparator + home.resolve("bin") + File.pathSeparator
                + System.getenv("PATH"));
        Daemon d = spawn(name, List.of("bash", "-euo", "pipefail", "-c", script), env, null, dir);
        boolean done = d.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!done) {
            d.stop();
        }
        d.awaitOutput();
        return new Run(done ? d.process.exitValue() : -1, d.output());
    }

    /**
     * @return the executor JVMs now running under the workers, by executor id
     */
    Map<String, ProcessHandle> executors() {
        Map<String, ProcessHandle> found = new HashMap<>();
        for (Daemon d : processes) {
            if (!d.name.startsWith("worker-")) {
                continue;
            }
            d.process.toHandle().descendants().filter(ProcessHandle::isAlive).forEach(p -> {
                List<String> args = p.info().arguments().map(Arrays::asList).orElse(List.of());
                int at = args.indexOf("--executor-id");
                if (args.contains("org.apache.spark.executor.CoarseGrainedExecutorBackend") && at >= 0
                        && at + 1 < args.size()) {
                    found.put(args.get(at + 1), p);
                }
            });
        }
        return found;
    }

    /**
     * @param appId an application's id
     * @return the standard error of each of its executors so far, by executor id, read from the workers' folders
     * @throws IOException if a log cannot be read
     */
    Map<String, String> executorLogs(String appId) throws IOException {
        Map<String, String> logs = new HashMap<>();
        for (Path workerDir : workerDirs) {
            Path app = workerDir.resolve(appId);
            if (!Files.isDirectory(app)) {
                continue;
            }
            try (Stream<Path> executors = Files.list(app)) {
                for (Path e : executors.filter(Files::isDirectory).toList()) {
                    Path stderr = e.resolve("stderr");
                    if (Files.exists(stderr)) {
                        logs.put(e.getFileName().toString(), Files.readString(stderr, StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return logs;
    }

    /** @return the last lines of every process's log, for a failure message */
    String logTails() {
        StringBuilder s = new StringBuilder();
        for (Daemon d : processes) {
            s.append("\n--- ").append(d.name).append(" (").append(d.log).append(") ---\n");
            List<String> lines = d.output().lines().toList();
            lines.subList(Math.max(0, lines.size() - 40), lines.size()).forEach(l -> s.append(l).append('\n'));
        }
        return s.toString();
    }

    /** Stops every process this cluster started, executors included, and waits for them to exit. */
    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down and the hook is running or has run
        }
    }

    private synchronized void stopAll() {
        List<Daemon> reversed = new ArrayList<>(processes);
        java.util.Collections.reverse(reversed);
        for (Daemon d : reversed) {
            d.stop();
        }
        killLeftovers();
    }

    /**
     * Kills, by id, every process this JVM started that is still alive (the cluster's executors, whose workers are
     * gone), and waits for each to exit.
     */
    static void killLeftovers() {
        List<ProcessHandle> left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
        left.forEach(ProcessHandle::destroy);
        for (ProcessHandle p : left) {
            try {
                p.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        }
        for (ProcessHandle p : left) {
            try {
                p.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                // reported by the caller's check that no process is left
            }
        }
    }

    private String sparkClass() {
        return home.resolve("bin/spark-class").toString();
    }

    private Daemon spawn(String name, List<String> command, Map<String, String> env, Consumer<String> lines)
            throws IOException {
        Map<String, String> all = new HashMap<>(environment());
        all.putAll(env);
        return spawn(name, command, all, lines, work);
    }

    private Daemon spawn(String name, List<String> command, Map<String, String> env, Consumer<String> lines,
                         Path dir) throws IOException {
        List<String> tethered = new ArrayList<>();
        tethered.add(home.resolve("bin/attn4j-tether").toString());
        tethered.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(tethered).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().putAll(env);
        Path log = work.resolve(name + ".log");
        Process process = builder.start();
        Daemon d = new Daemon(name, process, log);
        processes.add(d);
        Thread pump = new Thread(() -> d.pump(lines), "attn4j-log-" + name);
        pump.setDaemon(true);
        pump.start();
        return d;
    }

    private void awaitWorkers(int workers) {
        ObjectMapper json = new ObjectMapper();
        long deadline = System.nanoTime() + START.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                JsonNode state = json.readTree(new URL("http://127.0.0.1:" + masterUiPort + "/json/"));
                long alive = 0;
                for (JsonNode w : state.path("workers")) {
                    if ("ALIVE".equals(w.path("state").asText())) {
                        alive++;
                    }
                }
                if (alive == workers) {
                    return;
                }
                last = alive + " of " + workers + " workers alive";
            } catch (IOException e) {
                last = e.toString();
            }
            for (Daemon d : processes) {
                if (!d.process.isAlive()) {
                    throw new IllegalStateException(d.name + " exited with " + d.process.exitValue() + logTails());
                }
            }
            sleep(500);
        }
        throw new IllegalStateException("the standalone cluster did not start within " + START + ": " + last
                + logTails());
    }

    /** A running application: its driver process and what it printed. */
    static final class Application {
        private final Daemon driver;

        private Application(Daemon driver) {
            this.driver = driver;
        }

        /**
         * @param timeout how long to wait
         * @return the driver's exit code, or -1 if it was still running and has been stopped
         * @throws InterruptedException if interrupted while waiting
         */
        int await(Duration timeout) throws InterruptedException {
            if (!driver.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                driver.stop();
                return -1;
            }
            driver.awaitOutput();
            return driver.process.exitValue();
        }

        /** @return everything the driver printed so far */
        String output() {
            return driver.output();
        }
    }

    /** A finished script: its exit code and output. */
    record Run(int exit, String output) {
    }

    /** One process under the tether, its output copied to a log file by a thread of its own. */
    private static final class Daemon {
        private final String name;
        private final Process process;
        private final Path log;
        private volatile boolean pumped;

        Daemon(String name, Process process, Path log) {
            this.name = name;
            this.process = process;
            this.log = log;
        }

        void pump(Consumer<String> lines) {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8)); PrintWriter out = new PrintWriter(Files.newBufferedWriter(log), true)) {
                String line;
                while ((line = in.readLine()) != null) {
                    out.println(line);
                    if (lines != null) {
                        lines.accept(line);
                    }
                }
            } catch (IOException e) {
                // the process was killed; its log ends here
            } finally {
                synchronized (this) {
                    pumped = true;
                    notifyAll();
                }
            }
        }

        synchronized void awaitOutput() throws InterruptedException {
            long deadline = System.currentTimeMillis() + 10_000;
            while (!pumped && System.currentTimeMillis() < deadline) {
                wait(500);
            }
        }

        String output() {
            try {
                return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Closes the tether's standard input, so that it stops its command, and waits; kills it if it hangs. */
        void stop() {
            try {
                OutputStream stdin = process.getOutputStream();
                stdin.close();
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (IOException e) {
                process.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    /**
     * Writes a SPARK_HOME: {@code jars/} with a link to each of Spark's jars, an empty {@code RELEASE} (which tells
     * Spark's launcher that the jars are in {@code jars/}), an empty {@code conf/} (so Spark logs with its defaults),
     * and {@code bin/spark-class}, {@code bin/spark-submit} and {@code bin/attn4j-tether}.
     */
    private static Path sparkHome(Path home) throws IOException {
        Path jars = Files.createDirectories(home.resolve("jars"));
        String classpath = Files.readString(SPARK_CLASSPATH).strip();
        for (String entry : classpath.split(File.pathSeparator)) {
            Path jar = Path.of(entry);
            if (entry.endsWith(".jar") && !Files.exists(jars.resolve(jar.getFileName()))) {
                Files.createSymbolicLink(jars.resolve(jar.getFileName()), jar);
            }
        }
        Files.createFile(home.resolve("RELEASE"));
        Files.createDirectories(home.resolve("conf"));
        Path bin = Files.createDirectories(home.resolve("bin"));
        script(bin.resolve("spark-class"), """
                #!/usr/bin/env bash
                # Runs a Spark class as Spark's own bin/spark-class does: org.apache.spark.launcher.Main prints its
                # messages, one per line, then an empty line, then the java command line (Spark's class path and JVM
                # options) NUL-separated; this script appends the launcher's exit code.
                export SPARK_HOME="${SPARK_HOME:-$(cd "$(dirname "$0")/.." && pwd)}"
                export SPARK_SCALA_VERSION="${SPARK_SCALA_VERSION:-2.13}"
                java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
                launch() {
                  "$java" -Xmx128m -cp "$SPARK_HOME/jars/*" org.apache.spark.launcher.Main "$@"
                  printf '%d\\0' $?
                }
                command=()
                started=false
                delimiter=$'\n'
                while IFS= read -r -d "$delimiter" argument; do
                  if [ "$started" = true ]; then
                    command+=("$argument")
                  elif [ -z "$argument" ]; then
                    started=true
                    delimiter=''
                  else
                    echo "$argument" >&2
                  fi
                done < <(launch "$@")
                status="${command[${#command[@]}-1]}"
                unset 'command[${#command[@]}-1]'
                if [ "$status" != 0 ]; then exit "$status"; fi
                exec "${command[@]}"
                """);
        script(bin.resolve("spark-submit"), """
                #!/usr/bin/env bash
                exec "$(dirname "$0")/spark-class" org.apache.spark.deploy.SparkSubmit "$@"
                """);
        script(bin.resolve("attn4j-tether"), """
                #!/usr/bin/env bash
                # Runs a command until it ends, or until this script's standard input reaches its end (the test JVM
                # closed it, or died): then the command gets SIGTERM, and SIGKILL 10 s later.
                "$@" </dev/null &
                child=$!
                stop() {
                  kill -TERM "$child" 2>/dev/null || return 0
                  for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$child" 2>/dev/null || return 0; sleep 1; done
                  kill -KILL "$child" 2>/dev/null || true
                }
                trap stop EXIT
                while kill -0 "$child" 2>/dev/null; do
                  status=0
                  read -r -t 1 _ || status=$?
                  if [ "$status" -eq 1 ]; then exit 143; fi
                done
                wait "$child"
                """);
        return home;
    }

    private static void script(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /**
     * Writes a jar of classes of the test class path.
     *
     * @param jar the jar to write
     * @param classes the classes, each with its nested classes
     * @return {@code jar}
     * @throws IOException if a class file cannot be read or the jar written
     */
    static Path jarOf(Path jar, Class<?>... classes) throws IOException {
        Path root = Path.of("target", "test-classes");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (Class<?> c : classes) {
                Path dir = root.resolve(c.getPackageName().replace('.', '/'));
                String simple = c.getSimpleName();
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path f : files.filter(p -> p.getFileName().toString().equals(simple + ".class")
                            || p.getFileName().toString().startsWith(simple + "$")).toList()) {
                        out.putNextEntry(new JarEntry(root.relativize(f).toString().replace(File.separatorChar, '/')));
                        out.write(Files.readAllBytes(f));
                        out.closeEntry();
                    }
                }
            }
        }
        return jar;
    }

    /** @return the jars spark-submit ships, as {@code --jars} takes them */
    static String shippedJars() throws IOException {
        try (Stream<Path> jars = Files.list(SPARK_JARS)) {
            return jars.filter(p -> p.toString().endsWith(".jar")).map(Path::toString).sorted()
                    .collect(Collectors.joining(","));
        }
    }

    /** @return Spark's own jars, the entries of {@code target/spark-home.classpath} */
    static List<Path> sparkJars() throws IOException {
        return Stream.of(Files.readString(SPARK_CLASSPATH).strip().split(File.pathSeparator)).map(Path::of).toList();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cluster", e);
        }
    }
}
