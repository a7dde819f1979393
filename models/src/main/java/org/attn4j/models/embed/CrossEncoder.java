package org.attn4j.models.embed;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.models.bert.BertInput;
import org.attn4j.models.bert.SequenceClassifier;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.tokenize.Encoding;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * Scores how well passages answer a query with a cross-encoder, {@link SentenceEmbedder}'s sibling for reranking:
 * the query and each passage are read together, as sentence-transformers' {@code CrossEncoder} does.
 * <pre>
 *   ids    = [CLS] query [SEP] passage [SEP]      type ids 0 … 0 1 … 1, the longer text truncated first
 *   logit  = BertForSequenceClassification(ids)   one label
 *   score  = logit, or 1 / (1 + exp(-logit)) when the model's config.json names a Sigmoid activation
 *            (sentence_transformers.activation_fn) or the options ask for it
 * </pre>
 * A Qwen3-Reranker folder ({@code model_type} {@code qwen3}) is read as its model card reads it
 * ({@code Qwen3Reranker}): the pair in its instruction prompt, {@code logit = z[yes] − z[no]} of the last position,
 * and by default {@code score = P(yes) = 1 / (1 + exp(-logit))}; {@link RerankOptions#withInstruction} sets the task.
 * A higher score is a better passage. The parameters are uploaded once, at load, and freed by {@link #close()}; a
 * cross-encoder may be shared by threads.
 *
 * <pre>
 *   try (CrossEncoder r = CrossEncoder.load(Path.of("ms-marco-MiniLM-L-6-v2"), Backends.load(),
 *           RerankOptions.defaults())) {
 *       List&lt;CrossEncoder.Ranked&gt; best = r.rank("how do plants eat?", passages);
 *   }
 * </pre>
 */
public final class CrossEncoder implements AutoCloseable {
    private static final String SIGMOID = "torch.nn.modules.activation.Sigmoid";
    private static final String IDENTITY = "torch.nn.modules.linear.Identity";

    private final SequenceClassifier model;
    private final Parameters parameters;
    private final Qwen3Reranker decoder;
    private final Tokenizer tokenizer;
    private final boolean sigmoid;
    private final String activationStatedBy;
    private final int maxLength;
    private final int batchSize;
    private final DType dtype;
    private final String description;
    private final List<String> notes;

    /**
     * One passage's place in a ranking.
     *
     * @param index the passage's position in the list given
     * @param passage the passage
     * @param score its score for the query
     */
    public record Ranked(int index, String passage, double score) {
    }

    private CrossEncoder(EncoderCheckpoint c, Backend backend, RerankOptions options) throws IOException {
        if (!c.config().hasClassifier()) {
            throw new IOException(c.description() + ": a " + c.config().modelType() + " encoder; attn4j reranks with"
                    + " the cross-encoders of bert and xlm-roberta (their *ForSequenceClassification)");
        }
        int positions = c.config().maxLength();
        this.maxLength = options.maxLength().orElse(positions);
        if (maxLength > positions) {
            throw new IllegalArgumentException("CrossEncoder: maxLength " + maxLength
                    + " exceeds the longest input the model's position table allows, " + positions);
        }
        if (!backend.capabilities().supports(options.dtype())) {
            throw new IllegalArgumentException("CrossEncoder: backend " + backend.name() + " does not support "
                    + options.dtype());
        }
        if (options.instruction().isPresent()) {
            throw new IllegalArgumentException("CrossEncoder: " + c.description() + " is a BERT-family cross-encoder,"
                    + " which reads no instruction; RerankOptions.withInstruction is for Qwen3-Reranker");
        }
        int labels = labels(c);
        SequenceClassifier host = c.config().loadClassifier(c.weights(), labels);
        String named = c.configJson() == null ? null
                : c.configJson().path("sentence_transformers").path("activation_fn").asText(null);
        if (named != null && !named.equals(SIGMOID) && !named.equals(IDENTITY)) {
            throw new IOException(c.description() + ": sentence_transformers.activation_fn '" + named
                    + "' is not supported (" + SIGMOID + " and " + IDENTITY + " are)");
        }
        this.sigmoid = options.sigmoid().orElse(SIGMOID.equals(named));
        this.activationStatedBy = options.sigmoid().isPresent() ? "the options" : named == null ? null
                : "config.json (sentence_transformers.activation_fn)";
        this.tokenizer = c.tokenizer().withMaxLength(maxLength);
        this.batchSize = options.batchSize();
        this.dtype = options.dtype();
        this.description = c.description();
        this.notes = c.notes();
        this.decoder = null;
        this.parameters = Parameters.on(backend, dtype);
        try {
            this.model = host.bind(parameters);
        } catch (RuntimeException e) {
            parameters.close();
            throw e;
        }
    }

    /** A Qwen3-Reranker; the caller closes {@code c}'s model if this throws. */
    private CrossEncoder(Qwen3Checkpoint c, RerankOptions options) {
        int positions = c.model().config().maxPositions();
        this.maxLength = options.maxLength().orElse(positions);
        if (maxLength > positions) {
            throw new IllegalArgumentException("CrossEncoder: maxLength " + maxLength
                    + " exceeds the model's max_position_embeddings " + positions);
        }
        this.decoder = new Qwen3Reranker(c.model(), c.tokenizer(), maxLength, options.instruction().orElse(null),
                c.folder().toString());
        this.sigmoid = options.sigmoid().orElse(true);
        this.activationStatedBy = options.sigmoid().isPresent() ? "the options"
                : "Qwen3-Reranker's recipe (P(yes), the softmax over the logits of no and yes)";
        this.tokenizer = c.tokenizer();
        this.batchSize = options.batchSize();
        this.dtype = options.dtype();
        this.description = c.folder().toString();
        this.notes = c.notes();
        this.parameters = null;
        this.model = null;
    }

    /**
     * @param model a Hugging Face folder of a {@code BertForSequenceClassification} with one label (or of a
     *     Qwen3-Reranker, {@code model_type} {@code qwen3}), an
     *     {@code .onnx} export of one, or a jar holding one (see {@link EncoderSource})
     * @param backend where the parameters will live
     * @param options activation, length, batch size, dtype
     * @return the cross-encoder; close it to free the parameters
     * @throws IOException if a file is missing, unreadable, malformed, or describes an unsupported model
     * @throws IllegalArgumentException if the checkpoint is no one-label classifier or contradicts its config
     */
    public static CrossEncoder load(Path model, Backend backend, RerankOptions options) throws IOException {
        return from(Checkpoint.open(model, Checkpoint.Kind.ENCODER), backend, options);
    }

    /**
     * @param source the model and, optionally, its tokenizer
     * @param backend where the parameters will live
     * @param options activation, length, batch size, dtype
     * @return the cross-encoder; close it to free the parameters
     * @throws IOException if a file is missing, unreadable, malformed, or describes an unsupported model
     * @throws IllegalArgumentException if the checkpoint is no one-label classifier or contradicts its config
     */
    public static CrossEncoder load(EncoderSource source, Backend backend, RerankOptions options)
            throws IOException {
        return from(Checkpoint.open(source.path(), Checkpoint.Kind.ENCODER, source.tokenizer().orElse(null)), backend,
                options);
    }

    /**
     * @param checkpoint an encoder holding a {@code BertForSequenceClassification} with one label
     *     ({@link Checkpoint#open})
     * @param backend where the parameters will live
     * @param options activation, length, batch size, dtype
     * @return the cross-encoder; close it to free the parameters
     * @throws java.nio.file.NoSuchFileException if the checkpoint has no tokenizer
     * @throws IOException if {@code config.json} describes an unsupported model or activation
     * @throws IllegalArgumentException if the checkpoint is no one-label classifier or contradicts its config
     * @throws IllegalStateException if the checkpoint holds a decoder
     */
    public static CrossEncoder from(Checkpoint checkpoint, Backend backend, RerankOptions options)
            throws IOException {
        if (Qwen3Checkpoint.MODEL_TYPE.equals(checkpoint.family())) {
            checkpoint.requireKind("CrossEncoder.from", Checkpoint.Kind.ENCODER);
            if (!backend.capabilities().supports(options.dtype())) {
                throw new IllegalArgumentException("CrossEncoder: backend " + backend.name() + " does not support "
                        + options.dtype());
            }
            Qwen3Checkpoint c = Qwen3Checkpoint.of(checkpoint, backend, options.dtype(), true);
            try {
                return new CrossEncoder(c, options);
            } catch (RuntimeException e) {
                c.model().close();
                throw e;
            }
        }
        return new CrossEncoder(EncoderCheckpoint.of(checkpoint, "CrossEncoder.from"), backend, options);
    }

    private static int labels(EncoderCheckpoint c) {
        String output = c.config().classifierOutputWeight();
        if (!c.weights().contains(output)) {
            throw new IllegalArgumentException(c.description() + " is not a cross-encoder: it has no " + output
                    + " (a " + c.config().modelType() + " sequence classifier has its encoder's and classifier.*"
                    + " weights)");
        }
        int rows = c.weights().get(output).shape().dim(0);
        JsonNode json = c.configJson();
        if (json != null) {
            int declared = json.has("id2label") ? json.get("id2label").size()
                    : json.path("num_labels").asInt(rows);
            if (declared != rows) {
                throw new IllegalArgumentException(c.description() + ": config.json declares " + declared
                        + " labels but " + output + " has " + rows + " rows");
            }
        }
        if (rows != 1) {
            throw new IllegalArgumentException(c.description() + " classifies into " + rows + " labels; a "
                    + "cross-encoder for reranking has one (a relevance logit)");
        }
        return rows;
    }

    /**
     * @param query the query
     * @param passages the passages, none null
     * @return one score per passage, in the given order
     * @throws IllegalStateException if closed
     */
    public double[] score(String query, List<String> passages) {
        if (query == null || passages == null || passages.stream().anyMatch(p -> p == null)) {
            throw new IllegalArgumentException("CrossEncoder.score: argument query or passages is null or holds null");
        }
        if (!isOpen()) {
            throw new IllegalStateException("CrossEncoder.score: the cross-encoder is closed");
        }
        if (decoder != null) {
            return scoreQwen3(query, passages);
        }
        int n = passages.size();
        Encoding[] pairs = new Encoding[n];
        for (int i = 0; i < n; i++) {
            pairs[i] = tokenizer.encode(query, passages.get(i));
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> pairs[i].length()));
        double[] out = new double[n];
        for (int from = 0; from < n; from += batchSize) {
            int to = Math.min(n, from + batchSize);
            List<int[]> ids = new ArrayList<>(to - from);
            List<int[]> types = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                ids.add(pairs[order[i]].ids());
                types.add(pairs[order[i]].typeIds());
            }
            double[] logits;
            try (Scope scope = parameters.backend().newScope()) {
                logits = model.logits(scope, BertInput.pad(ids, types), dtype).toDoubleArray();
            }
            for (int b = 0; b < to - from; b++) {
                double logit = logits[b];
                out[order[from + b]] = sigmoid ? 1 / (1 + Math.exp(-logit)) : logit;
            }
        }
        return out;
    }

    private double[] scoreQwen3(String query, List<String> passages) {
        int n = passages.size();
        int[][] pairs = new int[n][];
        for (int i = 0; i < n; i++) {
            pairs[i] = decoder.encode(query, passages.get(i));
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> pairs[i].length));
        double[] out = new double[n];
        for (int from = 0; from < n; from += batchSize) {
            int to = Math.min(n, from + batchSize);
            List<int[]> batch = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                batch.add(pairs[order[i]]);
            }
            double[] logits = decoder.logits(batch);
            for (int b = 0; b < to - from; b++) {
                out[order[from + b]] = sigmoid ? 1 / (1 + Math.exp(-logits[b])) : logits[b];
            }
        }
        return out;
    }

    private boolean isOpen() {
        return decoder != null ? decoder.isOpen() : parameters.isOpen();
    }

    /**
     * @param query the query
     * @param passages the passages, none null
     * @return every passage with its score, the best first (equal scores keep the given order)
     * @throws IllegalStateException if closed
     */
    public List<Ranked> rank(String query, List<String> passages) {
        double[] scores = score(query, passages);
        List<Ranked> out = new ArrayList<>(scores.length);
        for (int i = 0; i < scores.length; i++) {
            out.add(new Ranked(i, passages.get(i), scores[i]));
        }
        out.sort(Comparator.comparingDouble(Ranked::score).reversed());
        return List.copyOf(out);
    }

    /**
     * @param query the query
     * @param passage a passage
     * @return how many tokens {@link #score} reads for the pair ({@code [CLS] query [SEP] passage [SEP]}, truncated
     *     to {@link #maxLength()}; for a Qwen3-Reranker, its whole prompt)
     */
    public int tokenCount(String query, String passage) {
        if (query == null || passage == null) {
            throw new IllegalArgumentException("CrossEncoder.tokenCount: argument query or passage is null");
        }
        return decoder != null ? decoder.encode(query, passage).length : tokenizer.encode(query, passage).length();
    }

    /** @return whether scores go through a sigmoid (else they are raw logits) */
    public boolean sigmoid() {
        return sigmoid;
    }

    /**
     * @return what set the activation: the model's config.json, Qwen3-Reranker's recipe or "the options"; empty when
     *     nothing did
     */
    public java.util.Optional<String> activationStatedBy() {
        return java.util.Optional.ofNullable(activationStatedBy);
    }

    /** @return the most tokens a pair keeps, special tokens included */
    public int maxLength() {
        return maxLength;
    }

    /** @return what was loaded, for people */
    public String description() {
        return description;
    }

    /** @return facts about the loading worth telling a user */
    public List<String> notes() {
        return notes;
    }

    /** @return the backend the parameters live on */
    public Backend backend() {
        return decoder != null ? decoder.backend() : parameters.backend();
    }

    /** @return the instruction a Qwen3-Reranker judges each pair for; empty for a BERT-family cross-encoder */
    public java.util.Optional<String> instruction() {
        return decoder == null ? java.util.Optional.empty() : java.util.Optional.of(decoder.instruction());
    }

    /** Frees the parameters; later calls throw {@link IllegalStateException}. */
    @Override
    public void close() {
        if (decoder != null) {
            decoder.close();
        } else {
            parameters.close();
        }
    }
}
