package org.attn4j.models.embed;

import java.util.Optional;
import java.util.OptionalInt;
import org.attn4j.api.DType;

/**
 * How a {@link CrossEncoder} scores, a value that grows by {@code with…} methods. Unset values follow the model:
 * the activation named by its {@code config.json} ({@code sentence_transformers.activation_fn}), else the raw
 * logit; its {@code max_position_embeddings} as the length.
 */
public final class RerankOptions {
    private static final RerankOptions DEFAULTS = new RerankOptions(null, 0, 32, DType.F32);

    private final Boolean sigmoid;
    private final int maxLength;
    private final int batchSize;
    private final DType dtype;

    private RerankOptions(Boolean sigmoid, int maxLength, int batchSize, DType dtype) {
        this.sigmoid = sigmoid;
        this.maxLength = maxLength;
        this.batchSize = batchSize;
        this.dtype = dtype;
    }

    /** @return the model's activation and length, batches of 32 pairs, F32 */
    public static RerankOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param value true for {@code 1 / (1 + exp(-logit))}, a score in (0, 1); false for the raw logit
     * @return a copy with the activation set
     */
    public RerankOptions withSigmoid(boolean value) {
        return new RerankOptions(value, maxLength, batchSize, dtype);
    }

    /**
     * @param tokens the most tokens a query and passage pair keeps, special tokens included (the longer text is
     *     truncated first), at least 3 and at most the model's {@code max_position_embeddings}
     * @return a copy with the length set
     */
    public RerankOptions withMaxLength(int tokens) {
        if (tokens < 3) {
            throw new IllegalArgumentException("RerankOptions.withMaxLength: argument tokens is " + tokens
                    + "; it must be at least 3 ([CLS] and two [SEP])");
        }
        return new RerankOptions(sigmoid, tokens, batchSize, dtype);
    }

    /**
     * @param pairs how many query and passage pairs one forward call takes
     * @return a copy with the batch size set
     */
    public RerankOptions withBatchSize(int pairs) {
        if (pairs < 1) {
            throw new IllegalArgumentException("RerankOptions.withBatchSize: argument pairs is " + pairs
                    + "; it must be at least 1");
        }
        return new RerankOptions(sigmoid, maxLength, pairs, dtype);
    }

    /**
     * @param value the dtype parameters and activations use on the backend
     * @return a copy with the dtype set
     */
    public RerankOptions withDType(DType value) {
        if (value == null) {
            throw new IllegalArgumentException("RerankOptions.withDType: argument value is null");
        }
        return new RerankOptions(sigmoid, maxLength, batchSize, value);
    }

    /** @return whether scores go through a sigmoid, empty to follow the model */
    public Optional<Boolean> sigmoid() {
        return Optional.ofNullable(sigmoid);
    }

    /** @return the token limit asked for, empty to follow the model */
    public OptionalInt maxLength() {
        return maxLength == 0 ? OptionalInt.empty() : OptionalInt.of(maxLength);
    }

    /** @return pairs per forward call */
    public int batchSize() {
        return batchSize;
    }

    /** @return the compute dtype */
    public DType dtype() {
        return dtype;
    }

    @Override
    public String toString() {
        return "RerankOptions[sigmoid=" + (sigmoid == null ? "model" : sigmoid) + ", maxLength="
                + (maxLength == 0 ? "model" : maxLength) + ", batchSize=" + batchSize + ", dtype=" + dtype + "]";
    }
}
