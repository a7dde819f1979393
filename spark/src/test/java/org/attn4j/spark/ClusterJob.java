package org.attn4j.spark;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.Success$;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.scheduler.TaskInfo;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The application the cluster tests submit with {@code spark-submit}: it embeds {@link Corpus} texts with
 * {@link SentenceEmbeddings} on the cluster, writes Parquet, reads it back and checks it in the driver, and writes
 * what it found to a properties file. While the embedding job runs it prints one line per task start and end
 * ({@value #TASK} ...), so that a test can kill an executor in the middle of it.
 *
 * <ul>
 *   <li>{@code embed ROWS PARTITIONS OUT PIPELINE RESULT}: fits a pipeline of one {@link SentenceEmbeddings} stage,
 *       saves it to PIPELINE, writes its output to OUT, and compares every row with the driver's own
 *       {@code SentenceEmbedder};</li>
 *   <li>{@code reload ROWS PARTITIONS PIPELINE EXPECTED OUT RESULT}: loads the saved pipeline, writes its output of
 *       the same rows to OUT and compares every row with EXPECTED, the first application's output.</li>
 *   <li>{@code throughput ROWS PARTITIONS ROUNDS RESULT}: embeds short texts once (the first tasks load the model
 *       and warm up), then ROUNDS more times, and records rows/s per round and the first tasks' durations.</li>
 * </ul>
 */
public final class ClusterJob {

    /** The prefix of the task lines it prints. */
    static final String TASK = "attn4j-task";
    /** The job group of the jobs whose tasks it reports. */
    private static final String GROUP = "attn4j-embed";

    private ClusterJob() {
    }

    public static void main(String[] args) throws IOException {
        SparkSession spark = SparkSession.builder().appName("attn4j-cluster-" + args[0]).getOrCreate();
        Tasks tasks = new Tasks();
        spark.sparkContext().addSparkListener(tasks);
        Properties result = new Properties();
        result.setProperty("appId", spark.sparkContext().applicationId());
        try {
            switch (args[0]) {
                case "embed" -> embed(spark, tasks, Integer.parseInt(args[1]), Integer.parseInt(args[2]), args[3],
                        args[4], result);
                case "reload" -> reload(spark, tasks, Integer.parseInt(args[1]), Integer.parseInt(args[2]), args[3],
                        args[4], args[5], result);
                case "throughput" -> throughput(spark, tasks, Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                        Integer.parseInt(args[3]), result);
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            }
        } finally {
            result.setProperty("failedTasks", Integer.toString(tasks.failed.size()));
            result.setProperty("failures", String.join(" | ", tasks.failed));
            result.setProperty("executors", String.join(",", new TreeSet<>(tasks.succeededOn)));
            try (Writer out = Files.newBufferedWriter(Path.of(args[args.length - 1]))) {
                result.store(out, "attn4j ClusterJob " + String.join(" ", args));
            }
            spark.stop();
        }
    }

    private static void embed(SparkSession spark, Tasks tasks, int rows, int partitions, String out,
                              String pipelineDir, Properties result) throws IOException {
        List<String> texts = Corpus.texts(rows, 23);
        Dataset<Row> frame = Corpus.frame(spark, texts, partitions, List.of());
        PipelineModel model = new Pipeline().setStages(new PipelineStage[] {
            new SentenceEmbeddings().setInputCol("text").setOutputCol("embedding")}).fit(frame);
        model.write().overwrite().save(pipelineDir);
        write(spark, model.transform(frame), out);
        Map<Integer, float[]> written = readBack(spark, out, texts, result);
        Map<String, float[]> driver = new HashMap<>();
        List<String> distinct = texts.stream().filter(t -> t != null).distinct().toList();
        try (SentenceEmbedder embedder = SentenceEmbedder.loadDefault(Backends.load(), EmbeddingOptions.defaults())) {
            List<SentenceEmbedding> embeddings = embedder.embed(distinct);
            for (int i = 0; i < distinct.size(); i++) {
                driver.put(distinct.get(i), embeddings.get(i).vector());
            }
        }
        double maxAbs = 0;
        for (Map.Entry<Integer, float[]> e : written.entrySet()) {
            String text = texts.get(e.getKey());
            if (text != null && e.getValue() != null) {
                maxAbs = Math.max(maxAbs, maxAbsDiff(driver.get(text), e.getValue()));
            }
        }
        result.setProperty("maxAbsDiffToDriver", Double.toString(maxAbs));
    }

    private static void reload(SparkSession spark, Tasks tasks, int rows, int partitions, String pipelineDir,
                               String expectedDir, String out, Properties result) {
        List<String> texts = Corpus.texts(rows, 23);
        Dataset<Row> frame = Corpus.frame(spark, texts, partitions, List.of());
        PipelineModel model = PipelineModel.load(pipelineDir);
        write(spark, model.transform(frame), out);
        Map<Integer, float[]> written = readBack(spark, out, texts, result);
        Map<Integer, float[]> expected = vectors(spark.read().parquet(expectedDir).collectAsList());
        int differing = 0;
        double maxAbs = 0;
        for (Map.Entry<Integer, float[]> e : written.entrySet()) {
            float[] want = expected.get(e.getKey());
            if (!Arrays.equals(want, e.getValue())) {
                differing++;
                if (want != null && e.getValue() != null) {
                    maxAbs = Math.max(maxAbs, maxAbsDiff(want, e.getValue()));
                }
            }
        }
        result.setProperty("rowsNotBitIdenticalToExpected", Integer.toString(differing));
        result.setProperty("maxAbsDiffToExpected", Double.toString(maxAbs));
    }

    private static void throughput(SparkSession spark, Tasks tasks, int rows, int partitions, int rounds,
                                   Properties result) {
        List<String> texts = Corpus.shortTexts(rows, 42);
        Dataset<Row> frame = Corpus.frame(spark, texts, partitions, List.of()).cache();
        frame.count();
        SentenceEmbeddings stage = new SentenceEmbeddings().setInputCol("text");
        long t0 = System.nanoTime();
        spark.sparkContext().setJobGroup(GROUP, "first", false);
        stage.transform(frame).write().format("noop").mode("overwrite").save();
        result.setProperty("firstRoundSeconds", seconds(System.nanoTime() - t0));
        result.setProperty("firstTaskSeconds", tasks.firstTaskSeconds());
        result.setProperty("laterTaskSecondsMedianOfFirstRound", tasks.laterTaskSecondsMedian());
        List<String> rates = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            long start = System.nanoTime();
            stage.transform(frame).write().format("noop").mode("overwrite").save();
            rates.add(String.format(Locale.ROOT, "%.1f", texts.size() / ((System.nanoTime() - start) / 1e9)));
        }
        result.setProperty("rowsPerSecond", String.join(",", rates));
        result.setProperty("rows", Integer.toString(texts.size()));
    }

    private static void write(SparkSession spark, Dataset<Row> out, String dir) {
        spark.sparkContext().setJobGroup(GROUP, "embed", false);
        out.write().mode("overwrite").parquet(dir);
        spark.sparkContext().clearJobGroup();
    }

    /** Reads OUT back: every id once, nulls kept, vectors of 384 values; records what it found. */
    private static Map<Integer, float[]> readBack(SparkSession spark, String dir, List<String> texts,
                                                  Properties result) {
        List<Row> rows = spark.read().parquet(dir).collectAsList();
        Map<Integer, float[]> vectors = vectors(rows);
        Map<Integer, Integer> counts = new HashMap<>();
        int nullMismatches = 0;
        int badLengths = 0;
        for (Row row : rows) {
            int id = row.getInt(row.fieldIndex("id"));
            counts.merge(id, 1, Integer::sum);
            boolean nullText = row.isNullAt(row.fieldIndex("text"));
            boolean nullVector = row.isNullAt(row.fieldIndex("embedding"));
            if (nullText != nullVector || nullText != (texts.get(id) == null)) {
                nullMismatches++;
            }
            if (!nullVector && row.getList(row.fieldIndex("embedding")).size() != 384) {
                badLengths++;
            }
        }
        long duplicates = counts.values().stream().filter(c -> c > 1).count();
        long missing = texts.size() - counts.size();
        result.setProperty("rowsExpected", Integer.toString(texts.size()));
        result.setProperty("rowsWritten", Integer.toString(rows.size()));
        result.setProperty("duplicateIds", Long.toString(duplicates));
        result.setProperty("missingIds", Long.toString(missing));
        result.setProperty("nullMismatches", Integer.toString(nullMismatches));
        result.setProperty("badLengths", Integer.toString(badLengths));
        return vectors;
    }

    private static Map<Integer, float[]> vectors(List<Row> rows) {
        Map<Integer, float[]> vectors = new HashMap<>();
        for (Row row : rows) {
            int e = row.fieldIndex("embedding");
            float[] v = null;
            if (!row.isNullAt(e)) {
                List<Object> values = row.getList(e);
                v = new float[values.size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = (Float) values.get(i);
                }
            }
            vectors.put(row.getInt(row.fieldIndex("id")), v);
        }
        return vectors;
    }

    private static double maxAbsDiff(float[] a, float[] b) {
        if (a.length != b.length) {
            return Double.POSITIVE_INFINITY;
        }
        double max = 0;
        for (int i = 0; i < a.length; i++) {
            max = Math.max(max, Math.abs((double) a[i] - b[i]));
        }
        return max;
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / 1e9);
    }

    /** Prints a line per task start and end of the jobs of {@link #GROUP}, and keeps the first tasks' times. */
    private static final class Tasks extends SparkListener {
        private final Set<Integer> stages = ConcurrentHashMap.newKeySet();
        private final Set<String> succeededOn = ConcurrentHashMap.newKeySet();
        private final List<String> failed = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final Map<String, Long> firstTaskMillis = new ConcurrentHashMap<>();
        private final List<Long> laterTaskMillis = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onJobStart(SparkListenerJobStart job) {
            if (job.properties() != null && GROUP.equals(job.properties().getProperty("spark.jobGroup.id"))) {
                for (Object id : CollectionConverters.asJava(job.stageIds())) {
                    stages.add((Integer) id);
                }
            }
        }

        @Override
        public void onTaskStart(SparkListenerTaskStart start) {
            if (stages.contains(start.stageId())) {
                TaskInfo t = start.taskInfo();
                System.out.println(TASK + " start executor=" + t.executorId() + " task=" + t.taskId()
                        + " partition=" + t.index());
            }
        }

        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            if (!stages.contains(end.stageId())) {
                return;
            }
            TaskInfo t = end.taskInfo();
            boolean success = end.reason() == Success$.MODULE$;
            System.out.println(TASK + " end executor=" + t.executorId() + " task=" + t.taskId() + " partition="
                    + t.index() + " " + (success ? "success" : "failed") + " millis=" + t.duration());
            if (success) {
                succeededOn.add(t.executorId());
                if (firstTaskMillis.putIfAbsent(t.executorId(), t.duration()) != null) {
                    laterTaskMillis.add(t.duration());
                }
            } else {
                failed.add("task " + t.taskId() + " on executor " + t.executorId() + ": " + end.reason());
            }
        }

        String firstTaskSeconds() {
            return new TreeSet<>(firstTaskMillis.keySet()).stream()
                    .map(e -> "executor " + e + " " + seconds(firstTaskMillis.get(e) * 1_000_000))
                    .reduce((a, b) -> a + ", " + b).orElse("none");
        }

        String laterTaskSecondsMedian() {
            List<Long> sorted = laterTaskMillis.stream().sorted().toList();
            return sorted.isEmpty() ? "none" : seconds(sorted.get(sorted.size() / 2) * 1_000_000);
        }
    }
}
