package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import org.junit.jupiter.api.Test;

/** A model folder named by {@code modelPath}: read in place when local, copied to the executor otherwise. */
class ModelFolderTest {

    /** The tiny random-weight BERT folder of the models module's tests (16 wide, 2 layers, 40 word pieces). */
    static final Path TINY = Path.of("../models/src/test/resources/org/attn4j/models/bert/tiny").toAbsolutePath()
            .normalize();

    @Test
    void aLocalFolderAndTheSameFolderBehindAnotherSchemeGiveTheSingleJvmEmbeddings() throws IOException {
        assertTrue(Files.isRegularFile(TINY.resolve("config.json")), TINY + " is missing");
        List<String> texts = Corpus.texts(300, 5);
        Dataset<Row> frame = Corpus.frame(LocalSpark.session(), texts, 4, List.of(2));
        List<String> present = texts.stream().filter(t -> t != null).toList();
        List<SentenceEmbedding> expected;
        try (SentenceEmbedder embedder = SentenceEmbedder.load(TINY, Backends.load("ejml"),
                EmbeddingOptions.defaults())) {
            expected = embedder.embed(present);
        }
        for (String path : List.of(TINY.toString(), TINY.toUri().toString(),
                OtherSchemeFileSystem.SCHEME + "://" + TINY)) {
            List<Row> rows = new SentenceEmbeddings().setInputCol("text").setBackend("ejml").setModelPath(path)
                    .transform(frame).collectAsList();
            int k = 0;
            for (Row row : rows) {
                float[] actual = Vectors32.floats(row, "embedding");
                if (row.isNullAt(1)) {
                    assertNull(actual);
                } else {
                    Vectors32.assertClose(path + " row " + row.getInt(0), expected.get(k++).vector(), actual, 1e-5);
                }
            }
            assertEquals(present.size(), k, path);
        }
        assertTrue(ExecutorModels.loaded().stream().anyMatch(m -> m.modelPath().startsWith(
                OtherSchemeFileSystem.SCHEME + ":")), ExecutorModels.loaded().toString());
    }
}
