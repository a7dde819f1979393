package org.attn4j.models.embed;

import java.util.Optional;
import java.util.OptionalInt;
import org.attn4j.api.DType;

/**
 * How a {@link SentenceEmbedder} embeds, a value that grows by {@code with…} methods. Unset pooling, normalisation
 * and length follow the model folder's sentence-transformers files ({@code modules.json},
 * {@code 1_Pooling/config.json}, {@code sentence_bert_config.json}), and without them: mean pooling, normalised,
 * the model's {@code max_position_embeddings}.
 */
public final class EmbeddingOptions {
    private static final EmbeddingOptions DEFAULTS = new EmbeddingOptions(null, null, 0, 32, DType.F32,
            LongTexts.TRUNCATE);

    private final Pooling pooling;
    private final Boolean normalize;
    private final int maxLength;
    private final int batchSize;
    private final DType dtype;
    private final LongTexts longTexts;

    private EmbeddingOptions(Pooling pooling, Boolean normalize, int maxLength, int batchSize, DType dtype,
                             LongTexts longTexts) {
        this.pooling = pooling;
        this.normalize = normalize;
        this.maxLength = maxLength;
        this.batchSize = batchSize;
        this.dtype = dtype;
        this.longTexts = longTexts;
    }

    /** @return pooling and normalisation from the model, its length, batches of 32 texts, F32, long texts truncated */
    public static EmbeddingOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param value MEAN, CLS or MAX
     * @return a copy with the pooling set
     */
    public EmbeddingOptions withPooling(Pooling value) {
        if (value == null) {
            throw new IllegalArgumentException("EmbeddingOptions.withPooling: argument value is null");
        }
        return new EmbeddingOptions(value, normalize, maxLength, batchSize, dtype, longTexts);
    }

    /**
     * @param value whether vectors are divided by their L2 norm
     * @return a copy with normalisation set
     */
    public EmbeddingOptions withNormalize(boolean value) {
        return new EmbeddingOptions(pooling, value, maxLength, batchSize, dtype, longTexts);
    }

    /**
     * @param tokens the most tokens a text keeps, {@code [CLS]} and {@code [SEP]} included (longer texts are
     *     truncated), at least 2 and at most the model's {@code max_position_embeddings}
     * @return a copy with the length set
     */
    public EmbeddingOptions withMaxLength(int tokens) {
        if (tokens < 2) {
            throw new IllegalArgumentException("EmbeddingOptions.withMaxLength: argument tokens is " + tokens
                    + "; it must be at least 2 ([CLS] and [SEP])");
        }
        return new EmbeddingOptions(pooling, normalize, tokens, batchSize, dtype, longTexts);
    }

    /**
     * @param texts how many texts one forward call takes (texts are sorted by length first, so a batch pads little)
     * @return a copy with the batch size set
     */
    public EmbeddingOptions withBatchSize(int texts) {
        if (texts < 1) {
            throw new IllegalArgumentException("EmbeddingOptions.withBatchSize: argument texts is " + texts
                    + "; it must be at least 1");
        }
        return new EmbeddingOptions(pooling, normalize, maxLength, texts, dtype, longTexts);
    }

    /**
     * @param value the dtype parameters and activations use on the backend
     * @return a copy with the dtype set
     */
    public EmbeddingOptions withDType(DType value) {
        if (value == null) {
            throw new IllegalArgumentException("EmbeddingOptions.withDType: argument value is null");
        }
        return new EmbeddingOptions(pooling, normalize, maxLength, batchSize, value, longTexts);
    }

    /**
     * @param value what to do with a text longer than the model's maximum length: {@link LongTexts#TRUNCATE} (the
     *     default) or {@link LongTexts#SPLIT}
     * @return a copy with it set
     */
    public EmbeddingOptions withLongTexts(LongTexts value) {
        if (value == null) {
            throw new IllegalArgumentException("EmbeddingOptions.withLongTexts: argument value is null");
        }
        return new EmbeddingOptions(pooling, normalize, maxLength, batchSize, dtype, value);
    }

    /** @return what happens to a text longer than the maximum length */
    public LongTexts longTexts() {
        return longTexts;
    }

    /** @return the pooling asked for, empty to follow the model */
    public Optional<Pooling> pooling() {
        return Optional.ofNullable(pooling);
    }

    /** @return whether to normalise, empty to follow the model */
    public Optional<Boolean> normalize() {
        return Optional.ofNullable(normalize);
    }

    /** @return the token limit asked for, empty to follow the model */
    public OptionalInt maxLength() {
        return maxLength == 0 ? OptionalInt.empty() : OptionalInt.of(maxLength);
    }

    /** @return texts per forward call */
    public int batchSize() {
        return batchSize;
    }

    /** @return the compute dtype */
    public DType dtype() {
        return dtype;
    }

    @Override
    public String toString() {
        return "EmbeddingOptions[pooling=" + (pooling == null ? "model" : pooling) + ", normalize="
                + (normalize == null ? "model" : normalize) + ", maxLength=" + (maxLength == 0 ? "model" : maxLength)
                + ", batchSize=" + batchSize + ", dtype=" + dtype + ", longTexts=" + longTexts + "]";
    }
}
