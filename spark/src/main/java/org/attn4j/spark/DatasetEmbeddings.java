package org.attn4j.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.attn4j.models.embed.EmbeddingOptions;

/**
 * Sentence embeddings for a {@link Dataset} without ML pipelines: one call that adds an {@code array<float>}
 * column. It runs {@link SentenceEmbeddings} underneath, so models are loaded once per executor and null texts give
 * null vectors.
 *
 * <pre>{@code
 * Dataset<Row> out = DatasetEmbeddings.embed(texts, "text", "embedding");   // the embedded all-MiniLM-L6-v2
 * }</pre>
 */
public final class DatasetEmbeddings {

    private DatasetEmbeddings() {
    }

    /**
     * Embeds with the embedded all-MiniLM-L6-v2 and its defaults (mean pooling, normalised) on each executor's own
     * choice of backend.
     *
     * @param data the rows
     * @param inputCol their string column
     * @param outputCol the {@code array<float>} column to add
     * @return {@code data}'s columns and {@code outputCol}
     */
    public static Dataset<Row> embed(Dataset<?> data, String inputCol, String outputCol) {
        return new SentenceEmbeddings().setInputCol(inputCol).setOutputCol(outputCol).transform(data);
    }

    /**
     * @param data the rows
     * @param inputCol their string column
     * @param outputCol the {@code array<float>} column to add
     * @param modelPath a Hugging Face folder on any Hadoop-readable path, or null for the embedded model
     * @param backend the backend provider each executor uses, or null for each executor's own choice
     * @param options pooling, normalisation, maximum length and batch size
     * @return {@code data}'s columns and {@code outputCol}
     */
    public static Dataset<Row> embed(Dataset<?> data, String inputCol, String outputCol, String modelPath,
            String backend, EmbeddingOptions options) {
        return new SentenceEmbeddings().setInputCol(inputCol).setOutputCol(outputCol)
                .setModelPath(modelPath == null ? "" : modelPath).setBackend(backend == null ? "" : backend)
                .setOptions(options).transform(data);
    }
}
