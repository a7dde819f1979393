package org.attn4j.models.embed;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.checkpoint.Pooling;

/**
 * How a {@link SentenceEmbedder} embeds, a value that grows by {@code with…} methods. Unset pooling, normalisation
 * and length follow the model folder's sentence-transformers files ({@code modules.json},
 * {@code 1_Pooling/config.json}, {@code sentence_bert_config.json}), and without them: mean pooling, normalised,
 * the model's {@code max_position_embeddings}. Unset prompts follow {@code config_sentence_transformers.json}.
 * Unset weights stay in the types the model's files hold them in.
 */
public final class EmbeddingOptions {
    /** The default budget of the warm-up at load ({@link #withWarmUp}). */
    public static final Duration DEFAULT_WARM_UP = Duration.ofMillis(400);
    private static final EmbeddingOptions DEFAULTS = new EmbeddingOptions(new Values());

    /** Every option, in one place: the defaults are its initial values, a copy is one call. */
    private static final class Values implements Cloneable {
        Pooling pooling;
        Boolean normalize;
        int maxLength;
        int batchSize = 32;
        DType dtype = DType.F32;
        LongTexts longTexts = LongTexts.TRUNCATE;
        int dimensions;
        String promptName;
        String prompt;
        WeightType weights;
        Duration warmUp = DEFAULT_WARM_UP;

        Values copy() {
            try {
                return (Values) clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private final Values v;

    private EmbeddingOptions(Values v) {
        this.v = v;
    }

    private EmbeddingOptions with(Consumer<Values> change) {
        Values next = v.copy();
        change.accept(next);
        return new EmbeddingOptions(next);
    }

    /**
     * @return pooling and normalisation from the model, its length, batches of 32 texts, F32, long texts truncated,
     *     a warm-up of at most {@link #DEFAULT_WARM_UP} at load
     */
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
        return with(o -> o.pooling = value);
    }

    /**
     * @param value whether vectors are divided by their L2 norm
     * @return a copy with normalisation set
     */
    public EmbeddingOptions withNormalize(boolean value) {
        return with(o -> o.normalize = value);
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
        return with(o -> o.maxLength = tokens);
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
        return with(o -> o.batchSize = texts);
    }

    /**
     * @param value the dtype parameters and activations use on the backend
     * @return a copy with the dtype set
     */
    public EmbeddingOptions withDType(DType value) {
        if (value == null) {
            throw new IllegalArgumentException("EmbeddingOptions.withDType: argument value is null");
        }
        return with(o -> o.dtype = value);
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
        return with(o -> o.longTexts = value);
    }

    /**
     * Matryoshka truncation: keep the first {@code n} features of each vector (after the folder's Dense modules),
     * then normalise it if the embedder normalises, as sentence-transformers' {@code truncate_dim} with
     * {@code normalize_embeddings}.
     *
     * @param n at least 1 and at most the model's output dimension
     * @return a copy with the dimensions set
     */
    public EmbeddingOptions withDimensions(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("EmbeddingOptions.withDimensions: argument n is " + n
                    + "; it must be at least 1");
        }
        return with(o -> o.dimensions = n);
    }

    /**
     * @param name one of the folder's prompts ({@code config_sentence_transformers.json}), put before every text
     *     instead of its {@code default_prompt_name}
     * @return a copy with the prompt name set (and no literal prompt)
     */
    public EmbeddingOptions withPromptName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("EmbeddingOptions.withPromptName: argument name is null");
        }
        return with(o -> {
            o.promptName = name;
            o.prompt = null;
        });
    }

    /**
     * @param text a prompt put before every text (for example {@code "query: "}), instead of the folder's
     *     default; the empty string embeds texts without a prompt
     * @return a copy with the prompt set (and no prompt name)
     */
    public EmbeddingOptions withPrompt(String text) {
        if (text == null) {
            throw new IllegalArgumentException("EmbeddingOptions.withPrompt: argument text is null");
        }
        return with(o -> {
            o.prompt = text;
            o.promptName = null;
        });
    }

    /** @return the dimensions asked for, empty for all */
    public OptionalInt dimensions() {
        return v.dimensions == 0 ? OptionalInt.empty() : OptionalInt.of(v.dimensions);
    }

    /** @return the prompt name asked for, empty to follow the model */
    public Optional<String> promptName() {
        return Optional.ofNullable(v.promptName);
    }

    /** @return the literal prompt asked for, empty to follow the model */
    public Optional<String> prompt() {
        return Optional.ofNullable(v.prompt);
    }

    /** @return what happens to a text longer than the maximum length */
    public LongTexts longTexts() {
        return v.longTexts;
    }

    /** @return the pooling asked for, empty to follow the model */
    public Optional<Pooling> pooling() {
        return Optional.ofNullable(v.pooling);
    }

    /** @return whether to normalise, empty to follow the model */
    public Optional<Boolean> normalize() {
        return Optional.ofNullable(v.normalize);
    }

    /** @return the token limit asked for, empty to follow the model */
    public OptionalInt maxLength() {
        return v.maxLength == 0 ? OptionalInt.empty() : OptionalInt.of(v.maxLength);
    }

    /** @return texts per forward call */
    public int batchSize() {
        return v.batchSize;
    }

    /**
     * @param type how the encoder's weights are held on the backend: {@link WeightType#F32}, every matrix widened
     *     (or dequantized) to F32 once at load; or {@link WeightType#I8}, every projection of an F32, F16 or BF16
     *     encoder quantized once at load to int8 rows with one scale per output feature, as ONNX Runtime's
     *     {@code quantize_dynamic} quantizes langchain4j's {@code -q} models (see
     *     {@link org.attn4j.models.parameters.Parameters#withInt8Projections}), its input quantized per text at each
     *     call; embedding tables and norms stay as they are. I8 applies to the families whose
     *     {@link org.attn4j.models.bert.Encoder#takesInt8Projections()} (bert, xlm-roberta, mpnet) in F32; the
     *     embedder refuses it for others
     * @return a copy with it set
     * @throws IllegalArgumentException if {@code type} is null or neither F32 nor I8
     */
    public EmbeddingOptions withWeights(WeightType type) {
        if (type != WeightType.F32 && type != WeightType.I8) {
            throw new IllegalArgumentException("EmbeddingOptions.withWeights: argument type is " + type
                    + "; an encoder's weights are held as F32 or I8");
        }
        return with(o -> o.weights = type);
    }

    /** @return how the weights are held, or empty to keep the files' types ({@link #withWeights}) */
    public Optional<WeightType> weights() {
        return Optional.ofNullable(v.weights);
    }

    /**
     * @param budget the longest the embedder spends, when it is loaded, embedding two texts of its own (one of up
     *     to 96 tokens and one of up to 24, padded together) round after round, so that the kernels a real call runs
     *     (products over several tiles, attention over several key blocks with a padding mask, the activations, the
     *     pooling) are compiled, with profiles of the model's own shapes, before the first request rather than during
     *     it; at most 20 rounds. {@link Duration#ZERO} turns it off
     * @return a copy with it set
     * @throws IllegalArgumentException if {@code budget} is null or negative
     */
    public EmbeddingOptions withWarmUp(Duration budget) {
        if (budget == null || budget.isNegative()) {
            throw new IllegalArgumentException("EmbeddingOptions.withWarmUp: argument budget is " + budget
                    + "; it must be zero (no warm-up) or positive");
        }
        return with(o -> o.warmUp = budget);
    }

    /** @return the warm-up's budget at load ({@link #withWarmUp}) */
    public Duration warmUp() {
        return v.warmUp;
    }

    /** @return the compute dtype */
    public DType dtype() {
        return v.dtype;
    }

    @Override
    public String toString() {
        return "EmbeddingOptions[pooling=" + (v.pooling == null ? "model" : v.pooling) + ", normalize="
                + (v.normalize == null ? "model" : v.normalize) + ", maxLength="
                + (v.maxLength == 0 ? "model" : v.maxLength) + ", batchSize=" + v.batchSize + ", dtype=" + v.dtype
                + ", longTexts=" + v.longTexts + ", dimensions=" + (v.dimensions == 0 ? "all" : v.dimensions)
                + ", prompt=" + (v.prompt != null ? "'" + v.prompt + "'" : v.promptName != null ? v.promptName
                : "model") + ", weights=" + (v.weights == null ? "model" : v.weights) + ", warmUp=" + v.warmUp + "]";
    }
}
