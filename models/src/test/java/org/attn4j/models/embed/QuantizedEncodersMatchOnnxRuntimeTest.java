package org.attn4j.models.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import org.attn4j.api.Activation;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.models.bert.BertConfig;
import org.attn4j.models.bert.BertGraph;
import org.attn4j.models.bert.BertInput;
import org.attn4j.models.bert.BertModel;
import org.attn4j.models.onnx.OnnxModel;
import org.attn4j.models.onnx.OnnxStateDict;
import org.attn4j.models.onnx.OnnxTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.tokenize.Tokenizer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The int8-quantized encoders langchain4j ships ({@code -q}: DynamicQuantizeLinear + MatMulInteger, embedding
 * tables through DequantizeLinear), their weights dequantized to F32 once at load, against ONNX Runtime running the
 * very same quantized file. ONNX Runtime also quantizes every activation to uint8 on the fly and attn4j does not, so
 * the two differ by that rounding: the token embeddings are held within {@value #TOKEN_BOUND} absolute and the
 * mean-pooled, normalised sentence embeddings within {@value #SENTENCE_BOUND}, the error the quantized models have
 * against their F32 originals; for all-MiniLM-L6-v2, whose F32 original is on the class path too, attn4j's distance
 * to ONNX Runtime's quantized run must also be smaller than that run's distance to the F32 original. Measured
 * (4 texts, ejml): all-MiniLM-L6-v2-q 0.450 / 0.035 (ONNX Runtime's quantized against its F32: 0.501 / 0.042),
 * bge-small-en-v1.5-q 0.235 / 0.017, e5-small-v2-q 0.256 / 0.013 (tokens / sentences).
 */
class QuantizedEncodersMatchOnnxRuntimeTest {
    private static final double TOKEN_BOUND = 0.5;
    private static final double SENTENCE_BOUND = 0.05;
    private static final List<String> TEXTS = List.of(
            "A man is eating food.",
            "The quick brown fox jumps over the lazy dog, and then it runs away into the forest as fast as it can.",
            "Numbers: 3.14159, 42, and 1,000,000 — plus an URL https://example.com/a?b=c.",
            "ok");

    static Stream<Arguments> models() {
        BertConfig minilm = new BertConfig(30522, 384, 6, 12, 1536, Activation.GELU, 1e-12, 512, 2);
        BertConfig small = new BertConfig(30522, 384, 12, 12, 1536, Activation.GELU, 1e-12, 512, 2);
        return Stream.of(Arguments.of("all-minilm-l6-v2-q", minilm), Arguments.of("bge-small-en-v1.5-q", small),
                Arguments.of("e5-small-v2-q", small));
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = QuantizedEncodersMatchOnnxRuntimeTest.class.getResourceAsStream("/" + name)) {
            if (in == null) {
                throw new IOException(name + " is not on the test class path");
            }
            return in.readAllBytes();
        }
    }

    private static float[] onnxRuntime(byte[] onnx, BertInput in, String output) throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(2);
        long[][] ids = new long[in.batch()][in.length()];
        long[][] mask = new long[in.batch()][in.length()];
        long[][] types = new long[in.batch()][in.length()];
        for (int b = 0; b < in.batch(); b++) {
            for (int l = 0; l < in.length(); l++) {
                ids[b][l] = in.inputIds()[b * in.length() + l];
                mask[b][l] = in.attentionMask()[b * in.length() + l];
                types[b][l] = in.tokenTypeIds()[b * in.length() + l];
            }
        }
        try (OrtSession session = env.createSession(onnx, options);
             ai.onnxruntime.OnnxTensor i = ai.onnxruntime.OnnxTensor.createTensor(env, ids);
             ai.onnxruntime.OnnxTensor m = ai.onnxruntime.OnnxTensor.createTensor(env, mask);
             ai.onnxruntime.OnnxTensor t = ai.onnxruntime.OnnxTensor.createTensor(env, types);
             OrtSession.Result r = session.run(Map.of("input_ids", i, "attention_mask", m, "token_type_ids", t))) {
            float[][][] out = (float[][][]) r.get(output).orElseThrow().getValue();
            int width = out[0][0].length;
            float[] flat = new float[in.batch() * in.length() * width];
            for (int b = 0; b < in.batch(); b++) {
                for (int l = 0; l < in.length(); l++) {
                    System.arraycopy(out[b][l], 0, flat, (b * in.length() + l) * width, width);
                }
            }
            return flat;
        }
    }

    /** @return the largest absolute difference over the real (unpadded) tokens */
    private static double maxError(float[] expected, float[] actual, int[] mask, int width) {
        double worst = 0;
        for (int i = 0; i < expected.length; i++) {
            if (mask[i / width] == 1) {
                worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
            }
        }
        return worst;
    }

    /** @return the largest absolute difference of the mean-pooled, normalised rows */
    private static double sentenceError(float[] expected, float[] actual, int[] mask, int batch, int length,
                                        int width) {
        double worst = 0;
        for (int b = 0; b < batch; b++) {
            double[] e = pooled(expected, mask, b, length, width);
            double[] a = pooled(actual, mask, b, length, width);
            for (int j = 0; j < width; j++) {
                worst = Math.max(worst, Math.abs(e[j] - a[j]));
            }
        }
        return worst;
    }

    private static double[] pooled(float[] hidden, int[] mask, int row, int length, int width) {
        double[] sum = new double[width];
        for (int l = 0; l < length; l++) {
            if (mask[row * length + l] == 1) {
                for (int j = 0; j < width; j++) {
                    sum[j] += hidden[(row * length + l) * width + j];
                }
            }
        }
        double norm = Math.sqrt(Arrays.stream(sum).map(x -> x * x).sum());
        return Arrays.stream(sum).map(x -> x / norm).toArray();
    }

    private static BertInput input(Tokenizer tokenizer) {
        List<int[]> ids = new ArrayList<>();
        for (String text : TEXTS) {
            ids.add(tokenizer.withMaxLength(256).encode(text).ids());
        }
        return BertInput.pad(ids);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void quantizedEncoderRunsWithinTheQuantizationErrorOfOnnxRuntime(String name, BertConfig config)
            throws IOException, OrtException {
        byte[] onnx = resource(name + ".onnx");
        Tokenizer tokenizer;
        try (InputStream in = QuantizedEncodersMatchOnnxRuntimeTest.class.getResourceAsStream("/" + name
                + "-tokenizer.json")) {
            tokenizer = Tokenizer.fromJson(in);
        }
        OnnxModel graph = OnnxModel.read(onnx);
        Map<String, OnnxTensor> mapped = OnnxStateDict.map(graph);
        Map<String, long[]> dims = new LinkedHashMap<>();
        mapped.forEach((k, v) -> dims.put(k, v.dims()));
        assertEquals(config, BertGraph.of(graph, dims).config(), "the quantized graph states the configuration");
        BertModel model = BertModel.load(OnnxStateDict.stateDict(mapped), config);
        BertInput batch = input(tokenizer);
        float[] reference = onnxRuntime(onnx, batch, "last_hidden_state");
        Backend backend = Backends.load("ejml");
        float[] ours;
        try (Parameters p = Parameters.on(backend, DType.F32); Scope s = backend.newScope()) {
            ours = model.bind(p).forward(s, batch, DType.F32).toFloatArray();
        }
        assertEquals(reference.length, ours.length);
        double token = maxError(reference, ours, batch.attentionMask(), config.hiddenSize());
        double sentence = sentenceError(reference, ours, batch.attentionMask(), batch.batch(), batch.length(),
                config.hiddenSize());
        String measured = String.format("%s: token embeddings differ from ONNX Runtime's by at most %.4f, "
                + "sentence embeddings by %.5f", name, token, sentence);
        if (name.equals("all-minilm-l6-v2-q")) {
            float[] original = onnxRuntime(resource("all-minilm-l6-v2.onnx"), batch, "output_0");
            double ortToken = maxError(original, reference, batch.attentionMask(), 384);
            double ortSentence = sentenceError(original, reference, batch.attentionMask(), batch.batch(),
                    batch.length(), 384);
            measured += String.format("; ONNX Runtime's quantized model differs from its F32 original by %.4f"
                    + " (tokens) and %.5f (sentences)", ortToken, ortSentence);
            assertTrue(token < ortToken && sentence < ortSentence, measured);
        }
        assertTrue(token <= TOKEN_BOUND && sentence <= SENTENCE_BOUND, measured);
    }
}
