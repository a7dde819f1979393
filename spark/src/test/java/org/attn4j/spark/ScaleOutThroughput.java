package org.attn4j.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;

/**
 * Rows per second of {@link SentenceEmbeddings} on a {@code local[2]} SparkSession beside {@code SentenceEmbedder}
 * in this plain JVM, on the same texts, backend and options, in one run. Each side is warmed up (the model loaded,
 * one pass run), then timed {@code rounds} times; the medians are printed with the load average before and after.
 * Arguments: rows (default 2000), rounds (default 3), backend (default ejml), partitions (default 4).
 */
final class ScaleOutThroughput {

    private ScaleOutThroughput() {
    }

    public static void main(String[] args) throws IOException {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        String backend = args.length > 2 ? args[2] : "ejml";
        int partitions = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        List<String> texts = Corpus.texts(rows * 2, 42).stream().filter(t -> t != null && !t.isEmpty()
                && t.split(" ").length < 100).limit(rows).toList();
        EmbeddingOptions options = EmbeddingOptions.defaults();
        System.out.println("load before: " + loadAverage());

        double[] plain = new double[rounds];
        try (SentenceEmbedder embedder = SentenceEmbedder.loadDefault(Backends.load(backend), options)) {
            embedder.embed(texts.subList(0, Math.min(texts.size(), 256)));
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                embedder.embed(texts);
                plain[r] = texts.size() / ((System.nanoTime() - t0) / 1e9);
                System.out.printf(Locale.ROOT, "plain JVM round %d: %.1f rows/s%n", r + 1, plain[r]);
            }
        }

        SparkSession spark = LocalSpark.session();
        Dataset<Row> frame = Corpus.frame(spark, texts, partitions, List.of()).cache();
        frame.count();
        SentenceEmbeddings stage = new SentenceEmbeddings().setInputCol("text").setBackend(backend);
        stage.transform(frame.limit(256)).write().format("noop").mode("overwrite").save();
        double[] distributed = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            stage.transform(frame).write().format("noop").mode("overwrite").save();
            distributed[r] = texts.size() / ((System.nanoTime() - t0) / 1e9);
            System.out.printf(Locale.ROOT, "spark local[2] round %d: %.1f rows/s%n", r + 1, distributed[r]);
        }
        spark.stop();
        System.out.printf(Locale.ROOT, "%d rows (mean %.1f words), backend %s, %d partitions, %d rounds%n",
                texts.size(), texts.stream().mapToInt(t -> t.split(" ").length).average().orElse(0), backend,
                partitions, rounds);
        System.out.printf(Locale.ROOT, "median plain JVM: %.1f rows/s; median spark local[2]: %.1f rows/s; "
                + "ratio %.2f%n", median(plain), median(distributed), median(distributed) / median(plain));
        System.out.println("load after: " + loadAverage());
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static String loadAverage() throws IOException {
        Path loadavg = Path.of("/proc/loadavg");
        return Files.exists(loadavg) ? Files.readString(loadavg).strip() : "n/a";
    }
}
