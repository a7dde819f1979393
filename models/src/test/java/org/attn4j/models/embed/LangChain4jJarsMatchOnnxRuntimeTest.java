package org.attn4j.models.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import org.attn4j.api.Activation;
import org.attn4j.api.Backends;
import org.attn4j.models.bert.BertConfig;
import org.attn4j.models.bert.BertGraph;
import org.attn4j.models.checkpoint.Pooling;
import org.attn4j.models.onnx.OnnxModel;
import org.attn4j.models.onnx.OnnxStateDict;
import org.junit.jupiter.api.Test;

/**
 * The langchain4j model jars as users hold them, loaded by their path ({@code --model the.jar}): the configuration
 * comes from the ONNX graph, the tokenizer from beside it, the pooling from the jar's model class (CLS for BGE, mean
 * for e5); the sentence embeddings equal ONNX Runtime running the same ONNX file, pooled as langchain4j pools. The
 * int8-quantized {@code -q} jar loads the same way.
 */
class LangChain4jJarsMatchOnnxRuntimeTest {
    private static final double TOLERANCE = 1e-4;
    private static final List<String> TEXTS = List.of("The cat sat on the mat.", "Stock markets fell sharply.",
            "query: how do plants make food?", "Ünïcödé façade — naïve café", "ok");

    /** @return the jar on the test class path that holds {@code resource} */
    static Path jarOf(String resource) {
        URL url = LangChain4jJarsMatchOnnxRuntimeTest.class.getResource("/" + resource);
        if (url == null || !url.getProtocol().equals("jar")) {
            throw new IllegalStateException(resource + " is not in a jar on the test class path: " + url);
        }
        String file = url.getPath().substring(0, url.getPath().indexOf("!/"));
        try {
            return Path.of(new java.net.URI(file));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void bgeSmallFromItsJarUsesClsPoolingAndMatchesOnnxRuntime() throws Exception {
        check("bge-small-en-v1.5.onnx", Pooling.CLS, "BgeSmallEnV15EmbeddingModel.class");
    }

    @Test
    void e5SmallFromItsJarUsesMeanPoolingAndMatchesOnnxRuntime() throws Exception {
        check("e5-small-v2.onnx", Pooling.MEAN, "E5SmallV2EmbeddingModel.class");
    }

    private static void check(String onnx, Pooling pooling, String modelClass) throws IOException, OrtException {
        Path jar = jarOf(onnx);
        try (SentenceEmbedder e = SentenceEmbedder.load(jar, Backends.load("ejml"), EmbeddingOptions.defaults())) {
            assertEquals(pooling, e.pooling());
            assertTrue(e.poolingStatedBy().orElseThrow().contains(modelClass), e.poolingStatedBy().toString());
            assertTrue(e.normalizes());
            assertEquals(onnx + " in " + jar, e.description());
            assertTrue(e.notes().contains("configuration read from the ONNX graph: 12 layers of width 384, 12 heads,"
                    + " feed-forward 1536") || onnx.startsWith("e5"), e.notes().toString());
            List<SentenceEmbedding> v = e.embed(TEXTS);
            float[][] reference = onnxRuntime(onnx, pooling, v);
            for (int i = 0; i < TEXTS.size(); i++) {
                float[] actual = v.get(i).vector();
                for (int k = 0; k < actual.length; k++) {
                    double abs = Math.abs(reference[i][k] - actual[k]);
                    if (!(abs <= TOLERANCE)) {
                        fail(String.format("%s text %d index %d expected %.8g actual %.8g abs error %.3g rel error"
                                + " %.3g", onnx, i, k, reference[i][k], actual[k], abs,
                                abs / Math.abs(reference[i][k])));
                    }
                }
            }
        }
    }

    /**
     * Each text's ids (as attn4j's tokenizer gave them; the tokenizer is checked against Hugging Face's elsewhere)
     * alone through ONNX Runtime, pooled as the jar's class says, normalised as langchain4j does.
     */
    private static float[][] onnxRuntime(String onnx, Pooling pooling, List<SentenceEmbedding> embeddings)
            throws IOException, OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(2);
        float[][] out = new float[TEXTS.size()][];
        try (InputStream in = LangChain4jJarsMatchOnnxRuntimeTest.class.getResourceAsStream("/" + onnx);
             OrtSession session = env.createSession(in.readAllBytes(), options)) {
            String output = session.getOutputNames().iterator().next();
            for (int i = 0; i < TEXTS.size(); i++) {
                int[] ids = embeddings.get(i).ids();
                long[][] id = new long[1][ids.length];
                long[][] mask = new long[1][ids.length];
                long[][] types = new long[1][ids.length];
                for (int k = 0; k < ids.length; k++) {
                    id[0][k] = ids[k];
                    mask[0][k] = 1;
                }
                try (ai.onnxruntime.OnnxTensor a = ai.onnxruntime.OnnxTensor.createTensor(env, id);
                     ai.onnxruntime.OnnxTensor m = ai.onnxruntime.OnnxTensor.createTensor(env, mask);
                     ai.onnxruntime.OnnxTensor t = ai.onnxruntime.OnnxTensor.createTensor(env, types);
                     OrtSession.Result r = session.run(Map.of("input_ids", a, "attention_mask", m,
                             "token_type_ids", t))) {
                    float[][] hidden = ((float[][][]) r.get(output).orElseThrow().getValue())[0];
                    double[] v = new double[hidden[0].length];
                    for (int l = 0; l < (pooling == Pooling.CLS ? 1 : hidden.length); l++) {
                        for (int j = 0; j < v.length; j++) {
                            v[j] += hidden[l][j];
                        }
                    }
                    double norm = 0;
                    for (double x : v) {
                        norm += x * x;
                    }
                    out[i] = new float[v.length];
                    for (int j = 0; j < v.length; j++) {
                        out[i][j] = (float) (v[j] / Math.sqrt(norm));
                    }
                }
            }
        }
        return out;
    }

    @Test
    void aWrongHeadCountBesideBgeIsCaughtFromTheGraph() throws IOException {
        OnnxModel graph;
        try (InputStream in = getClass().getResourceAsStream("/bge-small-en-v1.5.onnx")) {
            graph = OnnxModel.read(in);
        }
        Map<String, long[]> dims = new java.util.LinkedHashMap<>();
        OnnxStateDict.map(graph).forEach((k, v) -> dims.put(k, v.dims()));
        BertGraph stated = BertGraph.of(graph, dims);
        assertEquals(new BertConfig(30522, 384, 12, 12, 1536, Activation.GELU, 1e-12, 512, 2), stated.config());
        BertConfig six = new BertConfig(30522, 384, 12, 6, 1536, Activation.GELU, 1e-12, 512, 2);
        assertEquals(List.of("num_attention_heads 6 in the config, 12 in the graph (the attention reshapes to "
                + "[batch, length, 12, 32])"), stated.contradictions(six));
    }

    /**
     * The int8 jar loads by its path like the F32 one (its int8 weights dequantized once, its configuration and
     * pooling read the same way), and its sentence embeddings stay within the quantization's own error of the F32
     * jar's: ONNX Runtime's quantized BGE differs from its F32 original by about 0.02 per component.
     */
    @Test
    void theQuantizedJarLoadsByItsPathAndStaysWithinTheQuantizationError() throws IOException {
        try (SentenceEmbedder q = SentenceEmbedder.load(jarOf("bge-small-en-v1.5-q.onnx"), Backends.load("ejml"),
                EmbeddingOptions.defaults());
             SentenceEmbedder f = SentenceEmbedder.load(jarOf("bge-small-en-v1.5.onnx"), Backends.load("ejml"),
                     EmbeddingOptions.defaults())) {
            assertEquals(f.pooling(), q.pooling());
            List<SentenceEmbedding> quantized = q.embed(TEXTS);
            List<SentenceEmbedding> full = f.embed(TEXTS);
            for (int i = 0; i < TEXTS.size(); i++) {
                float[] a = quantized.get(i).vector();
                float[] b = full.get(i).vector();
                for (int k = 0; k < a.length; k++) {
                    double abs = Math.abs(a[k] - b[k]);
                    if (!(abs <= 0.05)) {
                        fail(String.format("text %d index %d: F32 %.6g, int8 %.6g, abs error %.3g > 0.05", i, k, b[k],
                                a[k], abs));
                    }
                }
            }
        }
    }
}
