package org.attn4j.bench.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link DecodeBench} on each CPU backend and {@link OnnxDecodeBench} on every cache length and head shape in
 * one run, and writes {@code results/decode.md}: the median step time, tokens/s (one step per token) and the
 * ratio to ONNX Runtime on the same shape. Arguments: the output folder; system properties
 * {@code bench.backends} (default {@code ejml,nd4j}), {@code bench.caches} (default {@code 512,4096,16384}),
 * {@code bench.shapes} (default {@code h12_d64,h32_kv8_d128}), {@code bench.iterations} (default 5).
 */
public final class DecodeBenchMain {

    private DecodeBenchMain() {
    }

    /**
     * @param args the output folder
     * @throws RunnerException if JMH fails
     * @throws IOException if the report cannot be written
     */
    public static void main(String[] args) throws RunnerException, IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "results");
        String[] backends = System.getProperty("bench.backends", "ejml,nd4j").split(",");
        String[] caches = System.getProperty("bench.caches", "512,4096,16384").split(",");
        String[] shapes = System.getProperty("bench.shapes", "h12_d64,h32_kv8_d128").split(",");
        int iterations = Integer.getInteger("bench.iterations", 5);
        String load = Files.readString(Path.of("/proc/loadavg")).trim();
        Map<String, Double> medians = new LinkedHashMap<>();
        for (String shape : shapes) {
            for (String cache : caches) {
                medians.put(key("onnxruntime", shape, cache), median(run(OnnxDecodeBench.class, shape, cache,
                        iterations, null)));
                for (String backend : backends) {
                    medians.put(key(backend, shape, cache), median(run(DecodeBench.class, shape, cache,
                            iterations, backend)));
                }
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add("# Decode attention: one token against a KV cache");
        lines.add("");
        lines.add("Median time of one decoding step's attention (the new token's key and value appended to the cache,"
                + " then its query against every cached position), tokens/s = 1 / median, and the ratio to ONNX"
                + " Runtime's `com.microsoft.GroupQueryAttention` on the same shape and " + BenchData.threads()
                + " threads, measured in one run.");
        lines.add("");
        lines.add("Load average before the run: " + load + "; after: "
                + Files.readString(Path.of("/proc/loadavg")).trim() + ". JMH SampleTime, one fork per benchmark, "
                + iterations + " warm-up and " + iterations + " measured iterations of one second.");
        lines.add("");
        lines.add("| shape | cache | implementation | median µs | tokens/s | × ONNX Runtime |");
        lines.add("|---|---|---|---|---|---|");
        for (String shape : shapes) {
            for (String cache : caches) {
                double peer = medians.get(key("onnxruntime", shape, cache));
                lines.add(row(shape, cache, "onnxruntime", peer, peer));
                for (String backend : backends) {
                    lines.add(row(shape, cache, backend, medians.get(key(backend, shape, cache)), peer));
                }
            }
        }
        Files.createDirectories(out);
        Files.write(out.resolve("decode.md"), lines);
        lines.forEach(System.out::println);
    }

    private static String key(String implementation, String shape, String cache) {
        return implementation + "/" + shape + "/" + cache;
    }

    private static String row(String shape, String cache, String implementation, double nanos, double peer) {
        return String.format(Locale.ROOT, "| %s | %s | %s | %.1f | %.0f | %.2f |", shape, cache, implementation,
                nanos / 1e3, 1e9 / nanos, peer / nanos);
    }

    private static Collection<RunResult> run(Class<?> bench, String shape, String cache, int iterations,
                                             String backend) throws RunnerException {
        ChainedOptionsBuilder o = new OptionsBuilder().include(bench.getName() + ".step").forks(1)
                .warmupIterations(iterations).measurementIterations(iterations)
                .warmupTime(TimeValue.seconds(1)).measurementTime(TimeValue.seconds(1))
                .param("shape", shape).param("cache", cache)
                .jvmArgs("-Xmx4g", "--add-modules", "jdk.incubator.vector");
        if (backend != null) {
            o = o.param("backend", backend);
        }
        return new Runner(o.build()).run();
    }

    private static double median(Collection<RunResult> results) {
        return results.iterator().next().getPrimaryResult().getStatistics().getPercentile(50);
    }
}
