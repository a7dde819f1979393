package org.attn4j.bench.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.nio.FloatBuffer;
import java.util.Map;
import org.attn4j.bench.OnnxModels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OnnxAttentionModelTest {
    private static final int HEADS = 2;
    private static final int LENGTH = 5;
    private static final int DIM = 4;

    @Test
    void committedModelsAreTheGeneratorsOutput() throws IOException {
        for (int heads : OnnxModels.COMMITTED_HEADS) {
            for (boolean causal : new boolean[] {false, true}) {
                String resource = "/onnx/" + OnnxModels.fileName(heads, causal);
                try (InputStream in = getClass().getResourceAsStream(resource)) {
                    assertArrayEquals(OnnxModels.multiHeadAttention(heads, causal), in.readAllBytes(),
                            resource + " differs from OnnxModels' output; regenerate it (see bench/README.md)");
                }
            }
        }
    }

    @ParameterizedTest(name = "causal={0}")
    @ValueSource(booleans = {false, true})
    void onnxRuntimeComputesScaledDotProductAttentionWithTheGeneratedModel(boolean causal) throws OrtException {
        int size = LENGTH * HEADS * DIM;
        float[] q = BenchData.uniform(size, 11);
        float[] k = BenchData.uniform(size, 12);
        float[] v = BenchData.uniform(size, 13);
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        long[] shape = {1, LENGTH, HEADS * DIM};
        float[] actual;
        try (OrtSession session = env.createSession(OnnxModels.multiHeadAttention(HEADS, causal));
             OnnxTensor tq = OnnxTensor.createTensor(env, FloatBuffer.wrap(q), shape);
             OnnxTensor tk = OnnxTensor.createTensor(env, FloatBuffer.wrap(k), shape);
             OnnxTensor tv = OnnxTensor.createTensor(env, FloatBuffer.wrap(v), shape);
             OrtSession.Result result = session.run(Map.of("query", tq, "key", tk, "value", tv))) {
            actual = ((OnnxTensor) result.get(0)).getFloatBuffer().array();
        }
        double[] expected = reference(q, k, v, causal);
        assertEquals(expected.length, actual.length, "output size");
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs(expected[i] - actual[i]);
            assertEquals(expected[i], actual[i], 1e-5, "index " + i + " (token " + i / (HEADS * DIM) + ", head "
                    + i % (HEADS * DIM) / DIM + "): expected " + expected[i] + ", actual " + actual[i] + ", abs error "
                    + abs + ", rel error " + abs / Math.abs(expected[i]));
        }
    }

    /** softmax(q·kᵀ/√d, masked j > i when causal)·v per head, in double, on the [1, L, H·d] layout. */
    private static double[] reference(float[] q, float[] k, float[] v, boolean causal) {
        double[] out = new double[q.length];
        int width = HEADS * DIM;
        for (int h = 0; h < HEADS; h++) {
            for (int i = 0; i < LENGTH; i++) {
                double[] logits = new double[LENGTH];
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < LENGTH; j++) {
                    double dot = 0;
                    for (int c = 0; c < DIM; c++) {
                        dot += q[i * width + h * DIM + c] * (double) k[j * width + h * DIM + c];
                    }
                    logits[j] = causal && j > i ? Double.NEGATIVE_INFINITY : dot / Math.sqrt(DIM);
                    max = Math.max(max, logits[j]);
                }
                double sum = 0;
                for (int j = 0; j < LENGTH; j++) {
                    logits[j] = Math.exp(logits[j] - max);
                    sum += logits[j];
                }
                for (int j = 0; j < LENGTH; j++) {
                    for (int c = 0; c < DIM; c++) {
                        out[i * width + h * DIM + c] += logits[j] / sum * v[j * width + h * DIM + c];
                    }
                }
            }
        }
        return out;
    }
}
