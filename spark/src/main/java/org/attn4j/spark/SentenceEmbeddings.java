package org.attn4j.spark;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.DefaultParamsReadable;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.attn4j.models.checkpoint.Pooling;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.LongTexts;

/**
 * A Spark ML {@link Transformer} that appends the sentence embedding of a string column: each row's text goes
 * through the {@code SentenceEmbedder} of attn4j-models that {@code SentenceEmbedder.from(Checkpoint.open(folder,
 * ENCODER))} builds, so a folder of any encoder family it reads (BERT, XLM-R, MPNet, NomicBERT, ModernBERT, GTE,
 * Qwen3-Embedding…) works here with the same prompt, pooling ({@code mean}, {@code cls}, {@code max},
 * {@code mean_sqrt_len}, {@code weighted_mean} or {@code last_token}), Matryoshka truncation and normalisation as
 * the embedder, each either set here or left to the folder's sentence-transformers files.
 *
 * <pre>{@code
 * SentenceEmbeddings embeddings = new SentenceEmbeddings().setInputCol("text").setOutputCol("embedding");
 * Dataset<Row> out = embeddings.transform(texts);      // + embedding: array<float>, 384 values per row
 * }</pre>
 *
 * <p>Each executor JVM loads the model once, the first time one of its tasks meets a non-empty partition, and keeps
 * it for every later task and stage with the same model, backend and options; the model never travels with a task.
 * Within a partition, rows are read in windows of eight batches; the embedder sorts a window's texts by token count
 * and runs them {@code batchSize} at a time, so a batch pads little; rows keep their order. The backend is the
 * executor's: {@link #backend()} names one, or, left empty, the
 * executor picks as {@code Backends.select()} does (its {@code -Dattn4j.backend}, {@code ATTN4J_BACKEND}, else the
 * available provider of highest priority on its class path). The backend's thread count is the executor's cores
 * (its {@code --cores}, else {@code spark.executor.cores}, else {@code N} of {@code local[N]}), which
 * {@code -Dattn4j.threads} or {@code ATTN4J_THREADS} on the executor override. Each model load logs one INFO line
 * (model, backend, threads, load time) through SLF4J. An executor with no usable backend fails its task with the
 * list of providers it found and why each cannot run.
 *
 * <p>Null and empty texts: a null text gives a null output (the model never sees it); an empty string is a text
 * like any other and gives the model's embedding of {@code [CLS] [SEP]}.
 *
 * <p>Persisted with {@link #save(String)} / {@link #load(String)} (params only, as JSON metadata; the model folder
 * is referenced, not copied), also as a stage of a saved {@code Pipeline} or {@code PipelineModel}.
 */
public final class SentenceEmbeddings extends Transformer implements DefaultParamsWritable {

    private static final long serialVersionUID = 1L;
    private static final DefaultParamsReadable<SentenceEmbeddings> READER = new DefaultParamsReadable<>() {
    };
    private static final List<String> POOLINGS = names(Pooling.values());
    private static final List<String> LONG_TEXTS = names(LongTexts.values());
    private static final List<String> OUTPUT_TYPES = List.of("array", "vector");

    private final String uid;
    private final Param<String> inputCol;
    private final Param<String> outputCol;
    private final Param<String> modelPath;
    private final Param<String> backend;
    private final IntParam batchSize;
    private final IntParam maxLength;
    private final Param<String> pooling;
    private final BooleanParam normalize;
    private final IntParam dimensions;
    private final Param<String> promptName;
    private final Param<String> prompt;
    private final Param<String> longTexts;
    private final Param<String> outputType;

    /**
     * A transformer with a random uid and the defaults: the embedded all-MiniLM-L6-v2 with its own pooling (mean),
     * normalisation (on), length (256 tokens), prompt (none) and dimensions (all 384), long texts truncated, batches
     * of 32, an {@code array<float>} column named {@code embedding}.
     */
    public SentenceEmbeddings() {
        this(Identifiable$.MODULE$.randomUID("sentenceEmbeddings"));
    }

    /** @param uid this stage's unique id (how {@link #load} recreates it) */
    public SentenceEmbeddings(String uid) {
        this.uid = uid;
        EmbeddingOptions defaults = EmbeddingOptions.defaults();
        inputCol = new Param<>(uid, "inputCol", "the string column to embed");
        outputCol = new Param<>(uid, "outputCol", "the column to add: the embedding of each row's text");
        modelPath = new Param<>(uid, "modelPath", "a Hugging Face or sentence-transformers model folder of any "
                + "encoder family (config.json, model.safetensors, tokenizer.json) on any Hadoop-readable path; "
                + "empty for the embedded all-MiniLM-L6-v2");
        backend = new Param<>(uid, "backend", "the attn4j backend provider each executor uses; empty for the "
                + "executor's own choice (attn4j.backend, ATTN4J_BACKEND, else the highest priority available)");
        batchSize = new IntParam(uid, "batchSize", "texts per forward pass (> 0)", ParamValidators.gt(0));
        maxLength = new IntParam(uid, "maxLength", "the most tokens per text, [CLS] and [SEP] included; longer "
                + "texts are truncated (>= 2; unset: the model's own limit)", ParamValidators.gtEq(2));
        pooling = new Param<>(uid, "pooling", "how token vectors become one: " + String.join(", ", POOLINGS)
                + " (unset: the model's own)", ParamValidators.inArray(POOLINGS));
        normalize = new BooleanParam(uid, "normalize", "whether each vector is scaled to unit L2 norm (unset: as the "
                + "model does)");
        dimensions = new IntParam(uid, "dimensions", "Matryoshka truncation: keep the first n features of each "
                + "vector, then normalise it if the model normalises (> 0; unset: all)", ParamValidators.gt(0));
        promptName = new Param<>(uid, "promptName", "one of the folder's prompts (config_sentence_transformers.json), "
                + "put before every text (unset: its default_prompt_name)");
        prompt = new Param<>(uid, "prompt", "a literal prompt put before every text, empty for none (unset: the "
                + "folder's default prompt)");
        longTexts = new Param<>(uid, "longTexts", "a text longer than the model's length: truncate (keep its first "
                + "tokens) or split (windows averaged by their tokens)", ParamValidators.inArray(LONG_TEXTS));
        outputType = new Param<>(uid, "outputType", "the output column's type: array (array<float>) or vector "
                + "(an ML dense vector)", ParamValidators.inArray(OUTPUT_TYPES));
        setDefault(outputCol, "embedding");
        setDefault(modelPath, "");
        setDefault(backend, "");
        setDefault(batchSize, defaults.batchSize());
        setDefault(longTexts, "truncate");
        setDefault(outputType, "array");
    }

    @Override
    public String uid() {
        return uid;
    }

    /** @return the string column to embed (no default) */
    public Param<String> inputCol() {
        return inputCol;
    }

    /** @return the column to add (default {@code embedding}) */
    public Param<String> outputCol() {
        return outputCol;
    }

    /** @return the model folder, any Hadoop-readable path; empty (the default) for the embedded all-MiniLM-L6-v2 */
    public Param<String> modelPath() {
        return modelPath;
    }

    /** @return the backend provider's name; empty (the default) for each executor's own choice */
    public Param<String> backend() {
        return backend;
    }

    /** @return texts per forward pass */
    public IntParam batchSize() {
        return batchSize;
    }

    /** @return the most tokens per text; unset (the default): the model's own limit (256 for all-MiniLM-L6-v2) */
    public IntParam maxLength() {
        return maxLength;
    }

    /**
     * @return {@code mean}, {@code cls}, {@code max}, {@code mean_sqrt_len}, {@code weighted_mean} or
     *     {@code last_token} (the {@link Pooling} constants in lower case); unset (the default): the model's own
     *     (mean for all-MiniLM-L6-v2, last_token for Qwen3-Embedding)
     */
    public Param<String> pooling() {
        return pooling;
    }

    /** @return whether vectors are scaled to unit length; unset (the default): as the model does (yes for all-MiniLM-L6-v2) */
    public BooleanParam normalize() {
        return normalize;
    }

    /** @return how many leading features each vector keeps (Matryoshka); unset (the default): all */
    public IntParam dimensions() {
        return dimensions;
    }

    /** @return the name of one of the folder's prompts; unset (the default): the folder's default prompt, if any */
    public Param<String> promptName() {
        return promptName;
    }

    /** @return a literal prompt, empty for none; unset (the default): the folder's default prompt, if any */
    public Param<String> prompt() {
        return prompt;
    }

    /** @return {@code truncate} (the default) or {@code split}, as {@link LongTexts} */
    public Param<String> longTexts() {
        return longTexts;
    }

    /** @return {@code array} (default: {@code array<float>}) or {@code vector} (an ML dense vector of doubles) */
    public Param<String> outputType() {
        return outputType;
    }

    /**
     * @param value the string column to embed
     * @return this
     */
    public SentenceEmbeddings setInputCol(String value) {
        set(inputCol, value);
        return this;
    }

    /**
     * @param value the column to add
     * @return this
     */
    public SentenceEmbeddings setOutputCol(String value) {
        set(outputCol, value);
        return this;
    }

    /**
     * @param value a Hadoop-readable model folder, or empty for the embedded model
     * @return this
     */
    public SentenceEmbeddings setModelPath(String value) {
        set(modelPath, value);
        return this;
    }

    /**
     * @param value a backend provider's name, or empty for each executor's choice
     * @return this
     */
    public SentenceEmbeddings setBackend(String value) {
        set(backend, value);
        return this;
    }

    /**
     * @param value texts per forward pass
     * @return this
     */
    public SentenceEmbeddings setBatchSize(int value) {
        set(batchSize, value);
        return this;
    }

    /**
     * @param value the most tokens per text
     * @return this
     */
    public SentenceEmbeddings setMaxLength(int value) {
        set(maxLength, value);
        return this;
    }

    /**
     * @param value one of {@link #pooling()}'s names
     * @return this
     * @throws IllegalArgumentException naming the value and the poolings there are, if it is none of them
     */
    public SentenceEmbeddings setPooling(String value) {
        if (!POOLINGS.contains(value)) {
            throw new IllegalArgumentException(uid + ": pooling '" + value + "' is not one of "
                    + String.join(", ", POOLINGS));
        }
        set(pooling, value);
        return this;
    }

    /**
     * @param value whether vectors are scaled to unit length
     * @return this
     */
    public SentenceEmbeddings setNormalize(boolean value) {
        set(normalize, value);
        return this;
    }

    /**
     * @param value how many leading features each vector keeps, at most the model's dimension
     * @return this
     */
    public SentenceEmbeddings setDimensions(int value) {
        set(dimensions, value);
        return this;
    }

    /**
     * @param value the name of one of the folder's prompts; clears {@link #prompt()}
     * @return this
     */
    public SentenceEmbeddings setPromptName(String value) {
        set(promptName, value);
        clear(prompt);
        return this;
    }

    /**
     * @param value a literal prompt, empty for none; clears {@link #promptName()}
     * @return this
     */
    public SentenceEmbeddings setPrompt(String value) {
        set(prompt, value);
        clear(promptName);
        return this;
    }

    /**
     * @param value {@code truncate} or {@code split}
     * @return this
     * @throws IllegalArgumentException naming the value and the modes there are, if it is neither
     */
    public SentenceEmbeddings setLongTexts(String value) {
        if (!LONG_TEXTS.contains(value)) {
            throw new IllegalArgumentException(uid + ": longTexts '" + value + "' is not one of "
                    + String.join(", ", LONG_TEXTS));
        }
        set(longTexts, value);
        return this;
    }

    /**
     * @param value {@code array} or {@code vector}
     * @return this
     */
    public SentenceEmbeddings setOutputType(String value) {
        set(outputType, value);
        return this;
    }

    /**
     * @param options pooling, normalisation, maximum length, batch size, dimensions, prompt and long-text mode in one
     *     value; what it leaves to the model is cleared here too (its dtype is not a param: executors compute in F32)
     * @return this
     */
    public SentenceEmbeddings setOptions(EmbeddingOptions options) {
        setBatchSize(options.batchSize());
        options.pooling().ifPresentOrElse(p -> setPooling(p.name().toLowerCase(Locale.ROOT)), () -> clear(pooling));
        options.normalize().ifPresentOrElse(this::setNormalize, () -> clear(normalize));
        options.maxLength().ifPresentOrElse(this::setMaxLength, () -> clear(maxLength));
        options.dimensions().ifPresentOrElse(this::setDimensions, () -> clear(dimensions));
        clear(promptName);
        clear(prompt);
        options.promptName().ifPresent(this::setPromptName);
        options.prompt().ifPresent(this::setPrompt);
        setLongTexts(options.longTexts().name().toLowerCase(Locale.ROOT));
        return this;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        if (!isDefined(inputCol)) {
            throw new IllegalArgumentException(uid + ": inputCol is not set");
        }
        String in = $(inputCol);
        String out = $(outputCol);
        if (!Arrays.asList(schema.fieldNames()).contains(in)) {
            throw new IllegalArgumentException(uid + ": inputCol '" + in + "' is not a column of "
                    + schema.simpleString());
        }
        DataType type = schema.apply(in).dataType();
        if (!type.equals(DataTypes.StringType)) {
            throw new IllegalArgumentException(uid + ": inputCol '" + in + "' must be a string column, not "
                    + type.simpleString());
        }
        if (isDefined(promptName) && isDefined(prompt)) {
            throw new IllegalArgumentException(uid + ": promptName '" + $(promptName) + "' and prompt '" + $(prompt)
                    + "' both choose the prompt; set one");
        }
        if (Arrays.asList(schema.fieldNames()).contains(out)) {
            throw new IllegalArgumentException(uid + ": outputCol '" + out + "' already exists in "
                    + schema.simpleString());
        }
        DataType outType = $(outputType).equals("vector") ? SQLDataTypes.VectorType()
                : DataTypes.createArrayType(DataTypes.FloatType, false);
        return schema.add(new StructField(out, outType, true, Metadata.empty()));
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType outSchema = transformSchema(dataset.schema(), true);
        ModelKey key = new ModelKey($(modelPath), $(backend), isDefined(pooling) ? $(pooling) : "",
                isDefined(normalize) ? (Boolean) $(normalize) : null, isDefined(maxLength) ? (Integer) $(maxLength) : 0,
                (Integer) $(batchSize), isDefined(dimensions) ? (Integer) $(dimensions) : 0,
                isDefined(promptName) ? $(promptName) : null, isDefined(prompt) ? $(prompt) : null, $(longTexts));
        byte[] hadoopConf = key.modelPath().isEmpty() || ModelFiles.isLocal(key.modelPath()) ? null
                : ModelFiles.serialize(dataset.sparkSession().sparkContext().hadoopConfiguration());
        PartitionEmbedder embedder = new PartitionEmbedder(key, dataset.schema().fieldIndex($(inputCol)),
                $(outputType).equals("vector"), hadoopConf);
        return dataset.toDF().mapPartitions(embedder, Encoders.row(outSchema));
    }

    @Override
    public SentenceEmbeddings copy(ParamMap extra) {
        return (SentenceEmbeddings) defaultCopy(extra);
    }

    private static List<String> names(Enum<?>[] values) {
        return Stream.of(values).map(v -> v.name().toLowerCase(Locale.ROOT)).toList();
    }

    /** @return the reader {@link #load(String)} uses; Spark's pipeline reader finds it by this name */
    public static MLReader<SentenceEmbeddings> read() {
        return READER.read();
    }

    /**
     * @param path where {@link #save(String)} wrote the transformer
     * @return the transformer with the saved params
     */
    public static SentenceEmbeddings load(String path) {
        return READER.load(path);
    }
}
