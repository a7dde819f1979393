package org.attn4j.spark;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.attn4j.api.BackendOptions;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;

/**
 * Rows per second and first-task latency of sentence embeddings on the same short texts (1 to 12 words) with the
 * embedded all-MiniLM-L6-v2 on EJML, three ways, one after the other on this machine:
 * <ol>
 *   <li>one plain JVM: {@code SentenceEmbedder} on a backend of two threads, loaded here, the first partition's worth
 *       of texts embedded once (its time is the first-task latency), then all texts {@code rounds} times;</li>
 *   <li>Spark standalone, two executors of one core: two workers of one core each;</li>
 *   <li>Spark standalone, one executor of two cores: one worker of two cores.</li>
 * </ol>
 * Each cluster is started from Spark's own classes ({@link StandaloneCluster}) and runs {@link ClusterJob}'s
 * {@code throughput} mode: a first job over all texts (the executors start, load the model and warm up; its first
 * task per executor is the first-task latency), then {@code rounds} timed jobs. Prints a Markdown table and the load
 * average before and after; writes the table to {@code target/cluster-throughput.md}.
 * Arguments: rows (default 2000), rounds (default 3), partitions (default 8).
 */
final class ClusterThroughput {

    private ClusterThroughput() {
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        String before = loadAverage();
        List<String> table = new ArrayList<>(List.of(
                "| setup | first task (s) | later tasks of the first job, median (s) | rows/s per round | median rows/s |",
                "| --- | --- | --- | --- | --- |"));
        table.add(plainJvm(rows, rounds, partitions));
        Path dir = Files.createTempDirectory("attn4j-throughput");
        table.add(cluster("2 executors × 1 core", dir.resolve("two-by-one"), 2, 1, rows, rounds, partitions));
        table.add(cluster("1 executor × 2 cores", dir.resolve("one-by-two"), 1, 2, rows, rounds, partitions));
        String text = String.format(Locale.ROOT, "%d texts of 1 to 12 words (Corpus.shortTexts, seed 42), %d "
                + "partitions, %d timed rounds, all-MiniLM-L6-v2 on ejml; load average before %s, after %s; the "
                + "clusters' logs are in %s%n%n%s%n", rows, partitions, rounds, before, loadAverage(), dir,
                String.join("\n", table));
        System.out.print(text);
        Files.writeString(Path.of("target", "cluster-throughput.md"), text);
    }

    private static String plainJvm(int rows, int rounds, int partitions) throws IOException {
        List<String> texts = Corpus.shortTexts(rows, 42);
        long t0 = System.nanoTime();
        try (SentenceEmbedder embedder = SentenceEmbedder.loadDefault(
                Backends.load("ejml", BackendOptions.defaults().withThreads(2)), EmbeddingOptions.defaults())) {
            embedder.embed(texts.subList(0, (texts.size() + partitions - 1) / partitions));
            double first = (System.nanoTime() - t0) / 1e9;
            double[] rates = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                long start = System.nanoTime();
                embedder.embed(texts);
                rates[r] = texts.size() / ((System.nanoTime() - start) / 1e9);
            }
            return row("one plain JVM, 2 threads", String.format(Locale.ROOT, "%.2f (load and first %d texts)",
                    first, (texts.size() + partitions - 1) / partitions), "—", rates);
        }
    }

    private static String cluster(String setup, Path dir, int workers, int cores, int rows, int rounds,
                                  int partitions) throws Exception {
        Files.createDirectories(dir);
        Path result = dir.resolve("result.properties");
        Path appJar = StandaloneCluster.jarOf(dir.resolve("cluster-job.jar"), ClusterJob.class, Corpus.class);
        try (StandaloneCluster cluster = StandaloneCluster.start(dir, workers, cores, "1g")) {
            StandaloneCluster.Application app = cluster.submit("throughput", List.of("--conf",
                    "spark.executor.memory=1g", "--conf", "spark.ui.enabled=false", "--jars",
                    StandaloneCluster.shippedJars(), "--class", ClusterJob.class.getName(), appJar.toString(),
                    "throughput", Integer.toString(rows), Integer.toString(partitions), Integer.toString(rounds),
                    result.toString()), line -> { });
            int exit = app.await(Duration.ofMinutes(30));
            if (exit != 0) {
                throw new IllegalStateException(setup + ": the application failed:\n" + app.output()
                        + cluster.logTails());
            }
        }
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(result)) {
            p.load(in);
        }
        double[] rates = Arrays.stream(p.getProperty("rowsPerSecond").split(",")).mapToDouble(Double::parseDouble)
                .toArray();
        return row(setup, p.getProperty("firstTaskSeconds"), p.getProperty("laterTaskSecondsMedianOfFirstRound"),
                rates);
    }

    private static String row(String setup, String first, String later, double[] rates) {
        double[] sorted = rates.clone();
        Arrays.sort(sorted);
        double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        StringBuilder each = new StringBuilder();
        for (double r : rates) {
            each.append(each.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", r));
        }
        return String.format(Locale.ROOT, "| %s | %s | %s | %s | %.1f |", setup, first, later, each, median);
    }

    private static String loadAverage() throws IOException {
        Path loadavg = Path.of("/proc/loadavg");
        return Files.exists(loadavg) ? Files.readString(loadavg).strip() : "n/a";
    }
}
