package org.attn4j.models.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.models.bert.BertInput;
import org.attn4j.models.bert.BertModel;
import org.attn4j.models.parameters.Parameters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The embedded all-MiniLM-L6-v2 on every backend against ONNX Runtime running the very same ONNX file, in F32:
 * token embeddings ({@code output_0}) and mean-pooled, normalised sentence embeddings within 1e-4 absolute, for texts
 * alone and in one padded batch of mixed lengths. A CUDA backend joins where the test class path and the host have
 * one.
 */
class MiniLmMatchesOnnxRuntimeTest {
    private static final double TOLERANCE = 1e-4;
    private static final List<String> TEXTS = List.of(
            "A man is eating food.",
            "The quick brown fox jumps over the lazy dog, and then it runs away into the forest as fast as it can.",
            "Héllo wörld! Ünïcödé àccents are stripped by the normalizer.",
            "東京は日本の首都です。",
            "Numbers: 3.14159, 42, and 1,000,000 — plus an URL https://example.com/a?b=c.",
            "ok",
            "");

    private static DefaultModel minilm;
    private static OrtEnvironment env;
    private static OrtSession session;

    @BeforeAll
    static void load() throws IOException, OrtException {
        minilm = DefaultModel.read();
        env = OrtEnvironment.getEnvironment();
        try (InputStream in = MiniLmMatchesOnnxRuntimeTest.class.getResourceAsStream("/all-minilm-l6-v2.onnx")) {
            OrtSession.SessionOptions options = new OrtSession.SessionOptions();
            options.setIntraOpNumThreads(2);
            session = env.createSession(in.readAllBytes(), options);
        }
    }

    @AfterAll
    static void close() throws OrtException {
        session.close();
    }

    static Stream<Backend> backends() {
        return Backends.describe().stream().filter(r -> r.availability().available())
                .map(r -> Backends.load(r.name()));
    }

    private static int[][] ids() {
        int[][] ids = new int[TEXTS.size()][];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = minilm.tokenizer().withMaxLength(DefaultModel.MAX_SEQ_LENGTH).encode(TEXTS.get(i)).ids();
        }
        return ids;
    }

    /** ONNX Runtime's {@code output_0} for a padded batch, flattened {@code [B, L, 384]}. */
    private static float[] onnxRuntime(BertInput in) throws OrtException {
        long[][] ids = new long[in.batch()][in.length()];
        long[][] mask = new long[in.batch()][in.length()];
        long[][] types = new long[in.batch()][in.length()];
        int[] flatIds = in.inputIds();
        int[] flatMask = in.attentionMask();
        int[] flatTypes = in.tokenTypeIds();
        for (int b = 0; b < in.batch(); b++) {
            for (int l = 0; l < in.length(); l++) {
                ids[b][l] = flatIds[b * in.length() + l];
                mask[b][l] = flatMask[b * in.length() + l];
                types[b][l] = flatTypes[b * in.length() + l];
            }
        }
        try (ai.onnxruntime.OnnxTensor i = ai.onnxruntime.OnnxTensor.createTensor(env, ids);
             ai.onnxruntime.OnnxTensor m = ai.onnxruntime.OnnxTensor.createTensor(env, mask);
             ai.onnxruntime.OnnxTensor t = ai.onnxruntime.OnnxTensor.createTensor(env, types);
             OrtSession.Result r = session.run(Map.of("input_ids", i, "attention_mask", m, "token_type_ids", t))) {
            float[][][] out = (float[][][]) r.get("output_0").orElseThrow().getValue();
            float[] flat = new float[in.batch() * in.length() * 384];
            for (int b = 0; b < in.batch(); b++) {
                for (int l = 0; l < in.length(); l++) {
                    System.arraycopy(out[b][l], 0, flat, (b * in.length() + l) * 384, 384);
                }
            }
            return flat;
        }
    }

    private static void assertClose(String what, float[] expected, float[] actual, int[] mask) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (mask != null && mask[i / 384] == 0) {
                continue;
            }
            double abs = Math.abs(expected[i] - actual[i]);
            if (!(abs <= TOLERANCE)) {
                fail(String.format("%s: index %d expected %.8g actual %.8g abs error %.3g rel error %.3g"
                        + " (tolerance %.0e)", what, i, expected[i], actual[i], abs, abs / Math.abs(expected[i]),
                        TOLERANCE));
            }
        }
    }

    private static float[] meanNormalised(float[] hidden, int[] mask, int row, int length) {
        double[] sum = new double[384];
        int n = 0;
        for (int l = 0; l < length; l++) {
            if (mask[row * length + l] == 1) {
                n++;
                for (int j = 0; j < 384; j++) {
                    sum[j] += hidden[(row * length + l) * 384 + j];
                }
            }
        }
        double norm = 0;
        for (int j = 0; j < 384; j++) {
            sum[j] /= n;
            norm += sum[j] * sum[j];
        }
        float[] out = new float[384];
        for (int j = 0; j < 384; j++) {
            out[j] = (float) (sum[j] / Math.sqrt(norm));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void tokenEmbeddingsEqualOnnxRuntimeAloneAndInAPaddedBatch(Backend backend) throws OrtException {
        int[][] ids = ids();
        try (Parameters p = Parameters.on(backend, DType.F32); Scope s = backend.newScope()) {
            BertModel model = minilm.model().bind(p);
            for (int i = 0; i < ids.length; i++) {
                BertInput alone = BertInput.pad(List.of(ids[i]));
                assertClose("output_0 of text " + i + " alone on " + backend.name(), onnxRuntime(alone),
                        model.forward(s, alone, DType.F32).toFloatArray(), null);
            }
            BertInput batch = BertInput.pad(Arrays.asList(ids));
            assertClose("output_0 of the padded batch on " + backend.name(), onnxRuntime(batch),
                    model.forward(s, batch, DType.F32).toFloatArray(), batch.attentionMask());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void sentenceEmbeddingsEqualOnnxRuntimeMeanPooledAndNormalised(Backend backend) throws IOException,
            OrtException {
        int[][] ids = ids();
        BertInput batch = BertInput.pad(Arrays.asList(ids));
        float[] reference = onnxRuntime(batch);
        int[] mask = batch.attentionMask();
        try (SentenceEmbedder e = SentenceEmbedder.loadDefault(backend, EmbeddingOptions.defaults().withBatchSize(3))) {
            List<SentenceEmbedding> out = e.embed(TEXTS);
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < TEXTS.size(); i++) {
                assertEquals(Arrays.toString(ids[i]), Arrays.toString(out.get(i).ids()));
                assertClose("sentence embedding of text " + i + " on " + backend.name(),
                        meanNormalised(reference, mask, i, batch.length()), out.get(i).vector(), null);
                seen.add(out.get(i).text());
            }
            assertEquals(TEXTS, seen);
        }
    }
}
