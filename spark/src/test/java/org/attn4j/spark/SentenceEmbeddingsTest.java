package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.feature.SQLTransformer;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SentenceEmbeddingsTest {

    private static final double TOLERANCE = 1e-5;
    private static final int ROWS = 1000;
    private static final int PARTITIONS = 8;
    private static final List<Integer> EMPTY_PARTITIONS = List.of(0, 3, 7);

    private static SparkSession spark;
    private static List<String> texts;
    private static Dataset<Row> corpus;
    private static Map<String, float[]> singleJvm;

    @TempDir
    Path dir;

    @BeforeAll
    static void embedTheCorpusInThisJvmAlone() throws IOException {
        spark = LocalSpark.session();
        texts = Corpus.texts(ROWS, 18);
        corpus = Corpus.frame(spark, texts, PARTITIONS, EMPTY_PARTITIONS).cache();
        List<String> distinct = texts.stream().filter(t -> t != null).distinct().toList();
        singleJvm = new HashMap<>();
        try (SentenceEmbedder embedder = SentenceEmbedder.loadDefault(Backends.load("ejml"),
                EmbeddingOptions.defaults())) {
            List<SentenceEmbedding> embeddings = embedder.embed(distinct);
            for (int i = 0; i < distinct.size(); i++) {
                singleJvm.put(distinct.get(i), embeddings.get(i).vector());
            }
        }
    }

    @Test
    void theCorpusHasEmptyPartitionsNullsEmptyAndVeryLongTexts() {
        assertEquals(PARTITIONS, corpus.rdd().getNumPartitions());
        List<Integer> sizes = corpus.javaRDD().glom().map(List::size).collect();
        for (int p = 0; p < PARTITIONS; p++) {
            assertEquals(EMPTY_PARTITIONS.contains(p), sizes.get(p) == 0, "partition " + p + " of " + sizes);
        }
        assertTrue(texts.stream().filter(t -> t == null).count() >= 10, "nulls");
        assertTrue(texts.stream().filter(t -> t != null && t.isEmpty()).count() >= 10, "empty texts");
        assertTrue(texts.stream().filter(t -> t != null && t.split(" ").length >= 3000).count() >= 4, "long texts");
    }

    @Test
    void everyRowEqualsTheSingleJvmEmbeddingAndKeepsItsPlace() {
        Dataset<Row> out = new SentenceEmbeddings().setInputCol("text").setOutputCol("embedding").setBackend("ejml")
                .transform(corpus);
        assertEquals(DataTypes.createArrayType(DataTypes.FloatType, false), out.schema().apply("embedding").dataType());
        assertEquals(PARTITIONS, out.rdd().getNumPartitions());
        List<Row> rows = out.collectAsList();
        assertEquals(ROWS, rows.size());
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            assertEquals(i, row.getInt(0), "row order");
            assertEquals(texts.get(i), row.getString(1), "row " + i + " text");
            float[] actual = Vectors32.floats(row, "embedding");
            if (texts.get(i) == null) {
                assertNull(actual, "row " + i + ": a null text gives a null embedding");
            } else {
                assertNotNull(actual, "row " + i);
                Vectors32.assertClose("row " + i, singleJvm.get(texts.get(i)), actual, TOLERANCE);
            }
        }
    }

    @Test
    void anExecutorLoadsEachModelOnceAndReusesItForLaterJobs() {
        Dataset<Row> small = corpus.filter("id < 30");
        new SentenceEmbeddings().setInputCol("text").setBackend("ejml").transform(small).collectAsList();
        int loads = ExecutorModels.loads();
        new SentenceEmbeddings().setInputCol("text").setBackend("ejml").transform(small).collectAsList();
        new SentenceEmbeddings().setInputCol("text").transform(corpus.filter("id >= 30 AND id < 60")).collectAsList();
        assertEquals(loads, ExecutorModels.loads(), "a later job with the same model loaded it again");
        assertEquals(List.of(new ModelKey("", "ejml", "", null, 0, 32, 0, null, null, "truncate")), ExecutorModels.loaded().stream()
                .filter(k -> k.modelPath().isEmpty()).toList(), "the default model asked for by name and by default");
    }

    @Test
    void theVectorOutputHoldsTheSameNumbersAsAnMlVector() {
        Dataset<Row> some = corpus.filter("id < 60");
        Dataset<Row> out = new SentenceEmbeddings().setInputCol("text").setOutputCol("v").setOutputType("vector")
                .setBackend("ejml").transform(some);
        assertEquals(SQLDataTypes.VectorType(), out.schema().apply("v").dataType());
        for (Row row : out.collectAsList()) {
            String text = row.getString(1);
            if (text == null) {
                assertTrue(row.isNullAt(2));
            } else {
                Vectors32.assertClose("row " + row.getInt(0), singleJvm.get(text),
                        Vectors32.floats((Vector) row.get(2)), TOLERANCE);
            }
        }
    }

    @Test
    void aPipelineSavedAndLoadedBackGivesTheSameOutput() throws IOException {
        Dataset<Row> some = corpus.filter("id < 150");
        SentenceEmbeddings stage = new SentenceEmbeddings().setInputCol("text").setOutputCol("embedding")
                .setModelPath(ModelFolderTest.TINY.toString()).setBackend("ejml").setBatchSize(8).setPooling("max")
                .setNormalize(false).setMaxLength(10);
        SQLTransformer keep = new SQLTransformer().setStatement("SELECT id, embedding FROM __THIS__");
        PipelineModel model = new Pipeline().setStages(new PipelineStage[] {stage, keep}).fit(some);
        String path = dir.resolve("pipeline").toUri().toString();
        model.save(path);
        PipelineModel loaded = PipelineModel.load(path);

        SentenceEmbeddings back = (SentenceEmbeddings) loaded.stages()[0];
        assertEquals(stage.uid(), back.uid());
        assertEquals(stage.extractParamMap().toString(), back.extractParamMap().toString());
        List<Row> before = model.transform(some).orderBy("id").collectAsList();
        List<Row> after = loaded.transform(some).orderBy("id").collectAsList();
        assertEquals(before.size(), after.size());
        for (int i = 0; i < before.size(); i++) {
            assertEquals(before.get(i).getInt(0), after.get(i).getInt(0));
            float[] b = Vectors32.floats(before.get(i), "embedding");
            float[] a = Vectors32.floats(after.get(i), "embedding");
            if (b == null) {
                assertNull(a, "row " + before.get(i).getInt(0));
            } else {
                Vectors32.assertClose("row " + before.get(i).getInt(0), b, a, 0);
            }
        }
    }

    @Test
    void aTransformerSavedAloneComesBackWithItsParams() throws IOException {
        SentenceEmbeddings stage = new SentenceEmbeddings().setInputCol("t").setOutputCol("e").setModelPath(
                "hdfs:///models/minilm").setBackend("nd4j").setBatchSize(5).setMaxLength(64).setPooling("last_token")
                .setNormalize(false).setDimensions(128).setPromptName("query").setLongTexts("split")
                .setOutputType("vector");
        String path = dir.resolve("stage").toUri().toString();
        stage.save(path);
        SentenceEmbeddings back = SentenceEmbeddings.load(path);
        assertEquals(stage.uid(), back.uid());
        assertEquals(Arrays.asList("t", "e", "hdfs:///models/minilm", "nd4j", 5, 64, "last_token", false, 128,
                "query", false, "split", "vector"),
                Arrays.asList(back.$(back.inputCol()), back.$(back.outputCol()), back.$(back.modelPath()),
                        back.$(back.backend()), back.$(back.batchSize()), back.$(back.maxLength()),
                        back.$(back.pooling()), back.$(back.normalize()), back.$(back.dimensions()),
                        back.$(back.promptName()), back.isDefined(back.prompt()), back.$(back.longTexts()),
                        back.$(back.outputType())));
    }

    @Test
    void theDatasetHelperGivesWhatTheTransformerGives() {
        Dataset<Row> some = corpus.filter("id < 40");
        List<Row> helper = DatasetEmbeddings.embed(some, "text", "e", null, "ejml", EmbeddingOptions.defaults())
                .collectAsList();
        for (Row row : helper) {
            String text = row.getString(1);
            float[] actual = Vectors32.floats(row, "e");
            if (text == null) {
                assertNull(actual);
            } else {
                Vectors32.assertClose("row " + row.getInt(0), singleJvm.get(text), actual, TOLERANCE);
            }
        }
    }

    @Test
    void badParamsAreRefusedOnTheDriverNamingTheParam() {
        SentenceEmbeddings stage = new SentenceEmbeddings();
        IllegalArgumentException pooling = assertThrows(IllegalArgumentException.class, () -> stage.setPooling("sum"));
        assertTrue(pooling.getMessage().contains("pooling"), pooling.getMessage());
        assertThrows(IllegalArgumentException.class, () -> stage.setBatchSize(0));
        IllegalArgumentException unset = assertThrows(IllegalArgumentException.class,
                () -> stage.transform(corpus));
        assertTrue(unset.getMessage().endsWith("inputCol is not set"), unset.getMessage());
        IllegalArgumentException notString = assertThrows(IllegalArgumentException.class,
                () -> stage.setInputCol("id").transform(corpus));
        assertTrue(notString.getMessage().contains("inputCol 'id' must be a string column, not int"),
                notString.getMessage());
        IllegalArgumentException taken = assertThrows(IllegalArgumentException.class,
                () -> stage.setInputCol("text").setOutputCol("id").transform(corpus));
        assertTrue(taken.getMessage().contains("outputCol 'id' already exists"), taken.getMessage());
    }

    @Test
    void anExecutorWithoutTheRequestedBackendFailsWithTheProviderListAndReasons() {
        Dataset<Row> out = new SentenceEmbeddings().setInputCol("text").setBackend("tpu").transform(corpus);
        Exception e = assertThrows(Exception.class, out::collectAsList);
        String message = rootMessages(e);
        assertTrue(message.contains("attn4j-spark on "), message);
        assertTrue(message.contains("Unknown attn4j backend 'tpu'"), message);
        assertTrue(message.contains("Providers found:") && message.contains("ejml (priority "), message);
        assertTrue(!message.contains("NoClassDefFoundError"), message);
    }

    @Test
    void aMissingModelFolderFailsTheTaskNamingIt() {
        String missing = dir.resolve("no-such-model").toString();
        Dataset<Row> out = new SentenceEmbeddings().setInputCol("text").setBackend("ejml").setModelPath(missing)
                .transform(corpus);
        Exception e = assertThrows(Exception.class, out::collectAsList);
        String message = rootMessages(e);
        assertTrue(message.contains("cannot load " + missing), message);
    }

    @Test
    void emptyPartitionsLoadNoModel() {
        Dataset<Row> none = corpus.filter("id < 0");
        int loads = ExecutorModels.loads();
        List<Row> out = new SentenceEmbeddings().setInputCol("text").setBackend("ejml").setMaxLength(17)
                .transform(none).collectAsList();
        assertEquals(List.of(), out);
        assertEquals(loads, ExecutorModels.loads());
    }

    private static String rootMessages(Throwable e) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return String.join("\n", messages);
    }
}
