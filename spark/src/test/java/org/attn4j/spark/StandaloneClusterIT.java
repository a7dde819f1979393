package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * attn4j-spark on a real multi-JVM Spark standalone cluster on this machine: a master and two workers of one core
 * each, started from Spark's own classes ({@link StandaloneCluster}), applications submitted through
 * {@code spark-submit} in client mode with the jars of {@code target/spark-jars} as {@code --jars}, loopback only.
 * The first application embeds mixed texts and saves its pipeline; the second reloads the pipeline while the test
 * kills one executor with SIGKILL in the middle of the job. Every process is stopped at the end, whatever happens.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StandaloneClusterIT {

    private static final int ROWS = 400;
    private static final int PARTITIONS = 8;
    private static final Duration APP = Duration.ofMinutes(10);
    private static final String LOAD_LINE = "attn4j-spark on executor ";

    @TempDir
    static Path dir;

    private static StandaloneCluster cluster;
    private static Path appJar;

    @BeforeAll
    static void startTheCluster() throws IOException {
        cluster = StandaloneCluster.start(dir, 2, 1, "1g");
        appJar = StandaloneCluster.jarOf(dir.resolve("cluster-job.jar"), ClusterJob.class, Corpus.class);
    }

    @AfterAll
    static void stopEveryProcess() {
        if (cluster != null) {
            cluster.close();
        }
        List<String> left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList();
        assertEquals(List.of(), left, "processes left behind by the cluster");
    }

    @Test
    @Order(1)
    void everyRowIsEmbeddedOnceOnBothExecutorsAsTheDriverEmbedsIt() throws Exception {
        List<List<String>> executorCommandLines = new ArrayList<>();
        AtomicInteger starts = new AtomicInteger();
        Properties r = run("embed", List.of(Integer.toString(ROWS), Integer.toString(PARTITIONS),
                dir.resolve("embedded").toString(), dir.resolve("pipeline").toString()), line -> {
                    if (line.startsWith(ClusterJob.TASK + " start") && starts.incrementAndGet() == 1) {
                        cluster.executors().values().forEach(p -> executorCommandLines.add(
                                p.info().arguments().map(Arrays::asList).orElse(List.of())));
                    }
                });
        assertExactlyOnce(r);
        assertTrue(Double.parseDouble(r.getProperty("maxAbsDiffToDriver")) <= 1e-5, r.toString());
        assertEquals("0,1", r.getProperty("executors"), "executors that ran tasks: " + r);
        assertEquals("0", r.getProperty("failedTasks"), r.getProperty("failures"));

        assertEquals(2, executorCommandLines.size(), "executor JVMs while the job ran");
        for (List<String> args : executorCommandLines) {
            assertTrue(args.contains("--add-modules=jdk.incubator.vector"), "Spark starts executors with the "
                    + "Vector API, so EJML runs its SIMD kernels: " + args);
        }
        Map<String, String> logs = cluster.executorLogs(r.getProperty("appId"));
        assertEquals(2, logs.size(), "executor logs: " + logs.keySet());
        for (Map.Entry<String, String> log : logs.entrySet()) {
            assertTrue(!log.getValue().contains("scalar kernel"), "executor " + log.getKey() + " ran EJML's scalar "
                    + "attention kernel");
            List<String> lines = log.getValue().lines().filter(l -> l.contains(LOAD_LINE) || l.contains("org.attn4j"))
                    .toList();
            assertEquals(1, lines.size(), "executor " + log.getKey() + " logs one line for its one model load, "
                    + "none per row: " + lines);
            String line = lines.get(0);
            assertTrue(line.contains(" INFO ") && line.contains(LOAD_LINE + log.getKey() + ": loaded the embedded "
                    + "all-MiniLM-L6-v2 (384 dimensions, mean pooling, normalized, at most 256 tokens, batches of 32)"
                    + " on ejml with 1 thread (the executor's --cores) in "), line);
        }
    }

    @Test
    @Order(2)
    void theReloadedPipelineWritesEveryRowExactlyOnceAlthoughAnExecutorIsKilledMidJob() throws Exception {
        assertTrue(Files.isDirectory(dir.resolve("pipeline")), "the first application saved no pipeline");
        AtomicReference<String> killed = new AtomicReference<>();
        AtomicInteger endsAfterKill = new AtomicInteger();
        Map<String, Boolean> seen = new ConcurrentHashMap<>();
        Properties r = run("reload", List.of(Integer.toString(ROWS), Integer.toString(PARTITIONS),
                dir.resolve("pipeline").toString(), dir.resolve("embedded").toString(),
                dir.resolve("reloaded").toString()), line -> {
                    if (!line.startsWith(ClusterJob.TASK + " end")) {
                        return;
                    }
                    if (killed.get() != null) {
                        endsAfterKill.incrementAndGet();
                    } else if (line.contains(" success ") && seen.putIfAbsent("first", true) == null) {
                        String executor = line.replaceAll(".* executor=(\\S+) .*", "$1");
                        ProcessHandle victim = cluster.executors().get(executor);
                        if (victim != null) {
                            victim.destroyForcibly();
                            killed.set(executor);
                        }
                    }
                });
        assertNotNull(killed.get(), "no executor was killed: none of the JVMs under the workers had the id of the "
                + "first task's executor");
        assertTrue(endsAfterKill.get() >= 1, "the job had tasks left when executor " + killed.get() + " was killed");
        assertExactlyOnce(r);
        assertEquals("0", r.getProperty("rowsNotBitIdenticalToExpected"), "the reloaded pipeline's output differs "
                + "from the first application's: " + r);
        Map<String, String> logs = cluster.executorLogs(r.getProperty("appId"));
        assertTrue(logs.size() >= 3, "a new executor replaces the killed one: " + logs.keySet());
        for (Map.Entry<String, String> log : logs.entrySet()) {
            long loads = log.getValue().lines().filter(l -> l.contains(LOAD_LINE)).count();
            assertTrue(loads <= 1, "executor " + log.getKey() + " loaded the model " + loads + " times");
        }
    }

    private static Properties run(String mode, List<String> arguments, Consumer<String> lines) throws Exception {
        Path result = dir.resolve(mode + ".properties");
        List<String> submit = new ArrayList<>(List.of("--conf", "spark.executor.memory=1g", "--conf",
                "spark.ui.enabled=false", "--jars", StandaloneCluster.shippedJars(), "--class",
                ClusterJob.class.getName(), appJar.toString(), mode));
        submit.addAll(arguments);
        submit.add(result.toString());
        StandaloneCluster.Application app = cluster.submit(mode, submit, lines);
        int exit = app.await(APP);
        assertEquals(0, exit, "the " + mode + " application failed:\n" + app.output() + cluster.logTails());
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(result)) {
            p.load(in);
        }
        return p;
    }

    private static void assertExactlyOnce(Properties r) {
        String all = r.toString();
        assertEquals(Integer.toString(ROWS), r.getProperty("rowsWritten"), all);
        assertEquals("0", r.getProperty("duplicateIds"), all);
        assertEquals("0", r.getProperty("missingIds"), all);
        assertEquals("0", r.getProperty("nullMismatches"), all);
        assertEquals("0", r.getProperty("badLengths"), all);
    }
}
