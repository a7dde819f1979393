package org.attn4j.bench.run;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link MiniLmBench} and prints, per shape, each engine's sentences/s and its ratio to ONNX Runtime in the same
 * run; with {@code load} as the first argument it instead loads the embedded model once per backend in this JVM and
 * prints the load time and the growth of the resident set ({@code VmRSS}) against the F32 parameter bytes.
 *
 * <pre>
 *   mvn -B -q -pl bench -am test-compile -DskipTests
 *   java -cp "$(cat bench/target/test-classpath.txt):bench/target/test-classes" org.attn4j.bench.run.MiniLmMain [load|B×L,…]
 * </pre>
 */
public final class MiniLmMain {
    private MiniLmMain() {
    }

    /**
     * @param args {@code load} for the load measurement, else optional shapes such as {@code 1x16,32x128}
     * @throws RunnerException if JMH fails
     * @throws IOException if the model cannot be read
     */
    public static void main(String[] args) throws RunnerException, IOException {
        if (args.length > 0 && args[0].equals("load")) {
            load(args.length > 1 ? List.of(args[1].split(",")) : List.of("ejml", "nd4j"));
            return;
        }
        OptionsBuilder options = new OptionsBuilder();
        options.include(MiniLmBench.class.getSimpleName());
        if (args.length > 0) {
            options.param("shape", args[0].split(","));
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        Map<String, Map<String, Double>> msByShape = new LinkedHashMap<>();
        for (RunResult r : results) {
            String shape = r.getParams().getParam("shape");
            String engine = r.getParams().getParam("engine");
            msByShape.computeIfAbsent(shape, k -> new LinkedHashMap<>()).put(engine,
                    r.getPrimaryResult().getScore());
        }
        System.out.println("| B×L | engine | ms per call | sentences/s | × ONNX Runtime |");
        System.out.println("|---|---|---|---|---|");
        msByShape.forEach((shape, engines) -> {
            int batch = Integer.parseInt(shape.substring(0, shape.indexOf('x')));
            Double ort = engines.get("onnxruntime");
            engines.forEach((engine, ms) -> System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %.1f | %s |%n",
                    shape, engine, ms, batch * 1000 / ms, ort == null ? "—"
                            : String.format(Locale.ROOT, "%.2f", ort / ms)));
        });
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
                    + " heap used %.1f MB%n", name, ms, e.parameterBytes() / 1e6, (after - before) / 1e6,
                    (double) (after - before) / e.parameterBytes(),
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1e6);
            e.close();
        }
    }

    private static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }
}
