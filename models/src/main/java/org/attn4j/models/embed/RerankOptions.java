package org.attn4j.models.embed;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.attn4j.api.DType;

/**
 * How a {@link CrossEncoder} scores, a value that grows by {@code with…} methods. Unset values follow the model:
 * the activation named by its {@code config.json} ({@code sentence_transformers.activation_fn}), else the raw
 * logit; its {@code max_position_embeddings} as the length. A Qwen3-Reranker reads an instruction with each pair
 * ({@link #withInstruction}); BERT-family cross-encoders take none.
 */
public final class RerankOptions {
    private static final RerankOptions DEFAULTS = new RerankOptions(new Values());

    /** Every option, in one place: the defaults are its initial values, a copy is one call. */
    private static final class Values implements Cloneable {
        Boolean sigmoid;
        int maxLength;
        int batchSize = 32;
        DType dtype = DType.F32;
        String instruction;

        Values copy() {
            try {
                return (Values) clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private final Values v;

    private RerankOptions(Values v) {
        this.v = v;
    }

    private RerankOptions with(Consumer<Values> change) {
        Values next = v.copy();
        change.accept(next);
        return new RerankOptions(next);
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
        return with(o -> o.sigmoid = value);
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
        return with(o -> o.maxLength = tokens);
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
        return with(o -> o.batchSize = pairs);
    }

    /**
     * @param value the dtype parameters and activations use on the backend
     * @return a copy with the dtype set
     */
    public RerankOptions withDType(DType value) {
        if (value == null) {
            throw new IllegalArgumentException("RerankOptions.withDType: argument value is null");
        }
        return with(o -> o.dtype = value);
    }

    /**
     * @param text the task a Qwen3-Reranker judges each pair for, the {@code {instruction}} of its prompt
     *     {@code <Instruct>: {instruction}\n<Query>: {query}\n<Document>: {doc}} (default: "Given a web search
     *     query, retrieve relevant passages that answer the query", the model card's); a cross-encoder that reads
     *     no instruction refuses it at load
     * @return a copy with the instruction set
     */
    public RerankOptions withInstruction(String text) {
        if (text == null) {
            throw new IllegalArgumentException("RerankOptions.withInstruction: argument text is null");
        }
        return with(o -> o.instruction = text);
    }

    /** @return the instruction asked for, empty for the model's default (or none) */
    public Optional<String> instruction() {
        return Optional.ofNullable(v.instruction);
    }

    /** @return whether scores go through a sigmoid, empty to follow the model */
    public Optional<Boolean> sigmoid() {
        return Optional.ofNullable(v.sigmoid);
    }

    /** @return the token limit asked for, empty to follow the model */
    public OptionalInt maxLength() {
        return v.maxLength == 0 ? OptionalInt.empty() : OptionalInt.of(v.maxLength);
    }

    /** @return pairs per forward call */
    public int batchSize() {
        return v.batchSize;
    }

    /** @return the compute dtype */
    public DType dtype() {
        return v.dtype;
    }

    @Override
    public String toString() {
        return "RerankOptions[sigmoid=" + (v.sigmoid == null ? "model" : v.sigmoid) + ", maxLength="
                + (v.maxLength == 0 ? "model" : v.maxLength) + ", batchSize=" + v.batchSize + ", dtype=" + v.dtype
                + (v.instruction == null ? "" : ", instruction=" + v.instruction) + "]";
    }
}
