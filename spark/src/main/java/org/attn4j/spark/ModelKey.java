package org.attn4j.spark;

import java.io.Serializable;
import java.util.Locale;
import org.attn4j.models.checkpoint.Pooling;
import org.attn4j.models.embed.EmbeddingOptions;

/**
 * Which model an executor runs: the folder, the backend and the embedding options. Executors keep one loaded model
 * per distinct key ({@link ExecutorModels}). Pooling, normalisation and length left unset follow the model (its
 * sentence-transformers files; the embedded all-MiniLM-L6-v2: mean, normalised, 256 tokens).
 *
 * @param modelPath a Hadoop-readable Hugging Face folder, or empty for the embedded all-MiniLM-L6-v2
 * @param backend a backend provider's name, or empty for the executor's own choice ({@code Backends.select()})
 * @param pooling {@code mean}, {@code cls} or {@code max}; empty to follow the model
 * @param normalize whether vectors are scaled to unit L2 norm; null to follow the model
 * @param maxLength the most tokens per text, {@code [CLS]} and {@code [SEP]} included; 0 to follow the model
 * @param batchSize texts per forward pass
 */
record ModelKey(String modelPath, String backend, String pooling, Boolean normalize, int maxLength, int batchSize)
        implements Serializable {

    /**
     * @param name a backend provider's name
     * @return this key on that backend
     */
    ModelKey withBackend(String name) {
        return new ModelKey(modelPath, name, pooling, normalize, maxLength, batchSize);
    }

    /** @return the options the embedder is loaded with */
    EmbeddingOptions options() {
        EmbeddingOptions options = EmbeddingOptions.defaults().withBatchSize(batchSize);
        if (!pooling.isEmpty()) {
            options = options.withPooling(Pooling.valueOf(pooling.toUpperCase(Locale.ROOT)));
        }
        if (normalize != null) {
            options = options.withNormalize(normalize);
        }
        if (maxLength > 0) {
            options = options.withMaxLength(maxLength);
        }
        return options;
    }

    /** @return the model's description in error messages */
    String describeModel() {
        return modelPath.isEmpty() ? "the embedded all-MiniLM-L6-v2" : modelPath;
    }
}
