package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.attn4j.api.Backends;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.checkpoint.Pooling;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.LongTexts;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every encoder family takes the same route in the stage as in {@code SentenceEmbedder.from(Checkpoint.open(folder,
 * ENCODER))}: the tiny random-weight folders of the models module's tests, with the folder's own settings and with
 * the options set through params, give the single-JVM embedder's vectors row by row. The XLM-R and MPNet folders
 * there keep their tokenizer apart ({@code tokenize/unigram/xlmr-template}); the test copies both into one folder,
 * as a Hugging Face folder holds them.
 */
class EncoderFamiliesStageTest {

    private static final Path MODELS = Path.of("../models/src/test/resources/org/attn4j/models").toAbsolutePath()
            .normalize();
    private static final double TOLERANCE = 1e-5;

    private static final Path UNIGRAM = MODELS.resolve("tokenize/unigram/xlmr-template/tokenizer.json");

    @TempDir
    static Path copies;

    private static List<String> texts;
    private static Dataset<Row> frame;

    @BeforeAll
    static void aFrameWithNullsAndEmptyTexts() {
        List<String> all = new ArrayList<>(Corpus.shortTexts(60, 29));
        all.add(7, null);
        all.add(31, "");
        texts = all;
        frame = Corpus.frame(LocalSpark.session(), texts, 3, List.of()).cache();
    }

    @ParameterizedTest
    @ValueSource(strings = {"bert/xlmr", "bert/mpnet", "bert/tiny-nomic", "bert/tiny-modernbert", "bert/tiny-gte",
        "embed/qwen3-embedding"})
    void aFolderOfEveryFamilyGivesTheEmbeddersVectorsWithItsOwnSettings(String folder) throws IOException {
        assertStageEqualsEmbedder(folder, new SentenceEmbeddings(), EmbeddingOptions.defaults());
    }

    static Stream<Arguments> optionsSetThroughParams() {
        return Stream.of(
                Arguments.of("bert/tiny-nomic", new SentenceEmbeddings().setPromptName("search_query")
                        .setPooling("weighted_mean").setDimensions(16), EmbeddingOptions.defaults()
                        .withPromptName("search_query").withPooling(Pooling.WEIGHTED_MEAN).withDimensions(16)),
                Arguments.of("bert/xlmr", new SentenceEmbeddings().setPrompt("query: ").setPooling("last_token")
                        .setNormalize(false), EmbeddingOptions.defaults().withPrompt("query: ")
                        .withPooling(Pooling.LAST_TOKEN).withNormalize(false)),
                Arguments.of("bert/tiny-modernbert", new SentenceEmbeddings().setPooling("mean_sqrt_len")
                        .setMaxLength(6).setLongTexts("split"), EmbeddingOptions.defaults()
                        .withPooling(Pooling.MEAN_SQRT_LEN).withMaxLength(6)
                        .withLongTexts(LongTexts.SPLIT)),
                Arguments.of("embed/qwen3-embedding", new SentenceEmbeddings().setPromptName("query")
                        .setDimensions(8), EmbeddingOptions.defaults().withPromptName("query").withDimensions(8)));
    }

    @ParameterizedTest
    @MethodSource("optionsSetThroughParams")
    void optionsSetThroughParamsGiveWhatTheSameEmbeddingOptionsGive(String folder, SentenceEmbeddings stage,
            EmbeddingOptions options) throws IOException {
        assertStageEqualsEmbedder(folder, stage, options);
        assertStageEqualsEmbedder(folder, new SentenceEmbeddings().setOptions(options), options);
    }

    @Test
    void anUnknownPoolingIsRefusedByNameWithThePoolingsThereAre() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SentenceEmbeddings().setPooling("sum"));
        assertTrue(e.getMessage().contains("pooling 'sum' is not one of mean, cls, max, mean_sqrt_len, "
                + "weighted_mean, last_token"), e.getMessage());
        IllegalArgumentException upper = assertThrows(IllegalArgumentException.class,
                () -> new SentenceEmbeddings().setPooling("LAST_TOKEN"));
        assertTrue(upper.getMessage().contains("pooling 'LAST_TOKEN'"), upper.getMessage());
        IllegalArgumentException mode = assertThrows(IllegalArgumentException.class,
                () -> new SentenceEmbeddings().setLongTexts("wrap"));
        assertTrue(mode.getMessage().contains("longTexts 'wrap' is not one of truncate, split"), mode.getMessage());
    }

    @Test
    void aPromptNameAndALiteralPromptTogetherAreRefusedOnTheDriver() {
        SentenceEmbeddings stage = new SentenceEmbeddings().setInputCol("text").setPromptName("query");
        stage.set(stage.prompt(), "query: ");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> stage.transform(frame));
        assertTrue(e.getMessage().contains("promptName 'query' and prompt 'query: ' both choose the prompt"),
                e.getMessage());
        SentenceEmbeddings later = new SentenceEmbeddings().setPromptName("query").setPrompt("");
        assertTrue(!later.isDefined(later.promptName()) && later.$(later.prompt()).isEmpty(),
                "setPrompt clears promptName");
    }

    private static void assertStageEqualsEmbedder(String folder, SentenceEmbeddings stage, EmbeddingOptions options)
            throws IOException {
        Path path = withTokenizer(MODELS.resolve(folder));
        List<String> present = texts.stream().filter(t -> t != null).toList();
        List<SentenceEmbedding> expected;
        try (SentenceEmbedder embedder = SentenceEmbedder.from(Checkpoint.open(path, Checkpoint.Kind.ENCODER),
                Backends.load("ejml"), options)) {
            expected = embedder.embed(present);
        }
        List<Row> rows = stage.setInputCol("text").setBackend("ejml").setModelPath(path.toString()).transform(frame)
                .collectAsList();
        assertEquals(texts.size(), rows.size(), folder);
        int k = 0;
        for (Row row : rows) {
            float[] actual = Vectors32.floats(row, "embedding");
            assertEquals(texts.get(row.getInt(0)), row.getString(1), folder + " row " + row.getInt(0));
            if (row.isNullAt(1)) {
                assertNull(actual, folder + " row " + row.getInt(0));
            } else {
                Vectors32.assertClose(folder + " row " + row.getInt(0), expected.get(k++).vector(), actual,
                        TOLERANCE);
            }
        }
        assertEquals(present.size(), k, folder);
    }

    /** @return {@code folder} itself if it holds a tokenizer, else a copy of it with the XLM-R template's */
    private static Path withTokenizer(Path folder) throws IOException {
        assertTrue(Files.isRegularFile(folder.resolve("config.json")), folder + " is missing");
        if (Files.isRegularFile(folder.resolve("tokenizer.json"))) {
            return folder;
        }
        Path copy = copies.resolve(folder.getFileName());
        if (!Files.isDirectory(copy)) {
            try (Stream<Path> files = Files.walk(folder)) {
                for (Path f : files.toList()) {
                    Path target = copy.resolve(folder.relativize(f).toString());
                    if (Files.isDirectory(f)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(f, target);
                    }
                }
            }
            Files.copy(UNIGRAM, copy.resolve("tokenizer.json"));
        }
        return copy;
    }
}
