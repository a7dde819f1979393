package org.attn4j.spark;

import java.io.Serializable;
import java.util.Locale;
import org.attn4j.models.checkpoint.Pooling;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.LongTexts;

/**
 * Which model an executor runs: the folder, the backend and the embedding options. Executors keep one loaded model
 * per distinct key ({@link ExecutorModels}). Pooling, normalisation, length and prompt left unset follow the model
 * (its sentence-transformers files; the embedded all-MiniLM-L6-v2: mean, normalised, 256 tokens, no prompt).
 *
 * @param modelPath a Hadoop-readable Hugging Face folder, or empty for the embedded all-MiniLM-L6-v2
 * @param backend a backend provider's name, or empty for the executor's own choice ({@code Backends.select()})
 * @param pooling a {@link Pooling} constant's name in lower case ({@code mean}, {@code last_token}…); empty to follow
 *     the model
 * @param normalize whether vectors are scaled to unit L2 norm; null to follow the model
 * @param maxLength the most tokens per text, {@code [CLS]} and {@code [SEP]} included; 0 to follow the model
 * @param batchSize texts per forward pass
 * @param dimensions how many leading features each vector keeps (Matryoshka); 0 for all
 * @param promptName the name of one of the folder's prompts; null unless chosen
 * @param prompt a literal prompt; null unless chosen
 * @param longTexts a {@link LongTexts} constant's name in lower case
 */
record ModelKey(String modelPath, String backend, String pooling, Boolean normalize, int maxLength, int batchSize,
        int dimensions, String promptName, String prompt, String longTexts) implements Serializable {

    /**
     * @param name a backend provider's name
     * @return this key on that backend
     */
    ModelKey withBackend(String name) {
        return new ModelKey(modelPath, name, pooling, normalize, maxLength, batchSize, dimensions, promptName, prompt,
                longTexts);
    }

    /** @return the options the embedder is loaded with */
    EmbeddingOptions options() {
        EmbeddingOptions options = EmbeddingOptions.defaults().withBatchSize(batchSize)
                .withLongTexts(LongTexts.valueOf(longTexts.toUpperCase(Locale.ROOT)));
        if (!pooling.isEmpty()) {
            options = options.withPooling(Pooling.valueOf(pooling.toUpperCase(Locale.ROOT)));
        }
        if (normalize != null) {
            options = options.withNormalize(normalize);
        }
        if (maxLength > 0) {
            options = options.withMaxLength(maxLength);
        }
        if (dimensions > 0) {
            options = options.withDimensions(dimensions);
        }
        if (promptName != null) {
            options = options.withPromptName(promptName);
        }
        if (prompt != null) {
            options = options.withPrompt(prompt);
        }
        return options;
    }

    /** @return the model's description in error messages */
    String describeModel() {
        return modelPath.isEmpty() ? "the embedded all-MiniLM-L6-v2" : modelPath;
    }
}
