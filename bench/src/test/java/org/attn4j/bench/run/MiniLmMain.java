package org.attn4j.bench.run;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.openjdk.jmh.profile.JavaFlightRecorderProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * all-MiniLM-L6-v2 end to end, in three modes:
 * <pre>
 *   MiniLmMain [B×L,…] [engine,…]   MiniLmBench (JMH, 3 forks): per shape and engine ms per call, the slowest fork,
 *                                   sentences/s and × ONNX Runtime (of the mean and of the slowest fork)
 *   MiniLmMain load [backend,…]     loads the embedded model once per backend in this JVM: load time and growth of
 *                                   the resident set against the F32 parameter bytes
 *   MiniLmMain jvms N [L]           N fresh JVMs each load the model and embed one L-token text 40 times
 *                                   ({@link ColdStartMain}): load time, first call, median of calls 20–40, RSS
 * </pre>
 * Engines are {@code ejml}, {@code nd4j}, {@code onnxruntime}, and the EJML backend in JVMs with other vector
 * widths: {@code ejml-256} ({@code -Dattn4j.ejml.vectorBits=256}, 256-bit species on an AVX-512 CPU) and
 * {@code ejml-avx2} ({@code -XX:UseAVX=2}). {@code -Dminilm.jfr=DIR} records each JMH fork's measured iterations
 * with JFR into {@code DIR} and prints the top frames of each engine ({@link JfrSummary}); {@code
 * -Dminilm.jvmArgs="…"} passes options to the JVMs of {@code jvms}.
 *
 * <pre>
 *   mvn -B -q -pl bench -am test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 *   java -cp "$(cat bench/target/cp.txt):bench/target/test-classes:bench/target/classes" org.attn4j.bench.run.MiniLmMain [args]
 * </pre>
 */
public final class MiniLmMain {
    private static final List<String> DEFAULT_ENGINES = List.of("ejml", "nd4j", "onnxruntime");

    private MiniLmMain() {
    }

    /**
     * @param args as the class comment says
     * @throws RunnerException if JMH fails
     * @throws IOException if the model cannot be read
     * @throws InterruptedException if interrupted while waiting for a JVM
     */
    public static void main(String[] args) throws RunnerException, IOException, InterruptedException {
        if (args.length > 0 && args[0].equals("load")) {
            load(args.length > 1 ? List.of(args[1].split(",")) : List.of("ejml", "nd4j"));
            return;
        }
        if (args.length > 0 && args[0].equals("jvms")) {
            jvms(args.length > 1 ? Integer.parseInt(args[1]) : 6, args.length > 2 ? Integer.parseInt(args[2]) : 128);
            return;
        }
        String[] shapes = args.length > 0 ? args[0].split(",") : null;
        List<String> engines = args.length > 1 ? List.of(args[1].split(",")) : DEFAULT_ENGINES;
        String jfr = System.getProperty("minilm.jfr");
        Map<String, Map<String, double[]>> byShape = new LinkedHashMap<>();
        for (String engine : engines) {
            ChainedOptionsBuilder options = new OptionsBuilder()
                    .include(MiniLmBench.class.getSimpleName())
                    .param("engine", engine)
                    .jvmArgsAppend(jvmArgs(engine).toArray(String[]::new));
            if (shapes != null) {
                options.param("shape", shapes);
            }
            if (jfr != null) {
                Path dir = Path.of(jfr, engine);
                Files.createDirectories(dir);
                options.addProfiler(JavaFlightRecorderProfiler.class, "dir=" + dir.toAbsolutePath());
            }
            Collection<RunResult> results = new Runner(options.build()).run();
            for (RunResult r : results) {
                double slowest = 0;
                for (BenchmarkResult fork : r.getBenchmarkResults()) {
                    slowest = Math.max(slowest, fork.getPrimaryResult().getScore());
                }
                byShape.computeIfAbsent(r.getParams().getParam("shape"), k -> new LinkedHashMap<>())
                        .put(engine, new double[] {r.getPrimaryResult().getScore(), slowest});
            }
        }
        System.out.println("| B×L | engine | ms per call | slowest fork | sentences/s | × ONNX Runtime | × ONNX Runtime,"
                + " slowest fork |");
        System.out.println("|---|---|---|---|---|---|---|");
        byShape.forEach((shape, results) -> {
            int batch = Integer.parseInt(shape.substring(0, shape.indexOf('x')));
            double[] ort = results.get("onnxruntime");
            results.forEach((engine, ms) -> System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.1f | %s | %s |%n",
                    shape, engine, ms[0], ms[1], batch * 1000 / ms[0],
                    ort == null ? "—" : String.format(Locale.ROOT, "%.2f", ort[0] / ms[0]),
                    ort == null ? "—" : String.format(Locale.ROOT, "%.2f", ort[0] / ms[1])));
        });
        if (jfr != null) {
            for (String engine : engines) {
                System.out.println();
                System.out.println("### " + engine + ": top frames of the measured iterations");
                System.out.println();
                System.out.print(JfrSummary.markdown(JfrSummary.files(Path.of(jfr, engine)), 25));
            }
        }
    }

    /**
     * @return the options of an engine's forks: those of {@link MiniLmBench}'s {@code @Fork} (which options given here
     *     replace), and the engine's own
     */
    static List<String> jvmArgs(String engine) {
        List<String> args = new ArrayList<>(List.of("-Xmx3g", "--add-modules", "jdk.incubator.vector"));
        switch (engine) {
            case "ejml-256" -> args.add("-Dattn4j.ejml.vectorBits=256");
            case "ejml-avx2" -> args.add("-XX:UseAVX=2");
            default -> { }
        }
        return args;
    }

    private static void load(List<String> backends) throws IOException {
        for (String name : backends) {
            System.gc();
            long before = rssBytes();
            long t0 = System.nanoTime();
            SentenceEmbedder e = SentenceEmbedder.loadDefault(Backends.load(name), EmbeddingOptions.defaults());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.gc();
            long after = rssBytes();
            System.out.printf(Locale.ROOT, "%s: load %d ms, parameters %.1f MB (F32), RSS growth %.1f MB (%.2f×),"
                    + " heap used %.1f MB, committed %.1f MB%n", name, ms, e.parameterBytes() / 1e6,
                    (after - before) / 1e6, (double) (after - before) / e.parameterBytes(),
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1e6,
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted() / 1e6);
            e.close();
        }
    }

    /**
     * Runs {@link ColdStartMain} in {@code count} fresh JVMs, one after the other, and prints a row per JVM.
     */
    private static void jvms(int count, int length) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String extra = System.getProperty("minilm.jvmArgs", "");
        System.out.println("| JVM | load ms | first call ms | calls 2–5 ms | median of calls 20–40 ms | RSS growth MB |");
        System.out.println("|---|---|---|---|---|---|");
        for (int i = 1; i <= count; i++) {
            List<String> command = new ArrayList<>(List.of(java, "-Xmx3g", "--add-modules", "jdk.incubator.vector"));
            if (!extra.isBlank()) {
                command.addAll(Arrays.asList(extra.trim().split("\\s+")));
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), ColdStartMain.class.getName(),
                    "ejml", String.valueOf(length), "40"));
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (p.waitFor() != 0) {
                System.out.println("| " + i + " | failed: " + out.replace('\n', ' ') + " |||||");
                continue;
            }
            System.out.println("| " + i + " | " + out.lines().reduce((a, b) -> b).orElse("") + " |");
        }
    }

    static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }
}
