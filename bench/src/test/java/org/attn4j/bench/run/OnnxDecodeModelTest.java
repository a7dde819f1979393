package org.attn4j.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.util.Map;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backends;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.bench.OnnxModels;
import org.junit.jupiter.api.Test;

/** The decode peer computes what the attn4j decode step computes: ONNX Runtime's GQA against EJML. */
class OnnxDecodeModelTest {
    private static final int HEADS = 4;
    private static final int KV_HEADS = 2;
    private static final int DIM = 8;
    private static final int CACHE = 20;

    @Test
    void groupQueryAttentionMatchesTheBottomRightCausalStepOfTheEjmlBackend() throws OrtException {
        int past = CACHE - 1;
        float[] q = BenchData.uniform(HEADS * DIM, 1);
        float[] newK = BenchData.uniform(KV_HEADS * DIM, 4);
        float[] newV = BenchData.uniform(KV_HEADS * DIM, 5);
        float[] pastK = BenchData.uniform((long) KV_HEADS * past * DIM, 2);
        float[] pastV = BenchData.uniform((long) KV_HEADS * past * DIM, 3);
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        long[] pastShape = {1, KV_HEADS, past, DIM};
        float[] actual;
        try (OrtSession session = env.createSession(OnnxModels.groupQueryAttention(HEADS, KV_HEADS));
             OnnxTensor tq = OnnxTensor.createTensor(env, FloatBuffer.wrap(q), new long[] {1, 1, HEADS * DIM});
             OnnxTensor tk = OnnxTensor.createTensor(env, FloatBuffer.wrap(newK), new long[] {1, 1, KV_HEADS * DIM});
             OnnxTensor tv = OnnxTensor.createTensor(env, FloatBuffer.wrap(newV), new long[] {1, 1, KV_HEADS * DIM});
             OnnxTensor pk = OnnxTensor.createTensor(env, FloatBuffer.wrap(pastK), pastShape);
             OnnxTensor pv = OnnxTensor.createTensor(env, FloatBuffer.wrap(pastV), pastShape);
             OnnxTensor seq = OnnxTensor.createTensor(env, IntBuffer.wrap(new int[] {CACHE - 1}), new long[] {1});
             OnnxTensor total = OnnxTensor.createTensor(env, IntBuffer.wrap(new int[] {CACHE}), new long[] {});
             OrtSession.Result result = session.run(Map.of("query", tq, "key", tk, "value", tv, "past_key", pk,
                     "past_value", pv, "seqlens_k", seq, "total_sequence_length", total))) {
            actual = ((OnnxTensor) result.get(0)).getFloatBuffer().array();
        }
        float[] expected;
        try (Scope s = Backends.load("ejml").newScope()) {
            Shape cache = Shape.of(1, KV_HEADS, CACHE, DIM);
            Tensor keys = s.ops().writeSlice(s.zeros(cache, DType.F32),
                    s.tensor(pastK, Shape.of(1, KV_HEADS, past, DIM)), 2, 0);
            keys = s.ops().writeSlice(keys, s.tensor(newK, Shape.of(1, KV_HEADS, 1, DIM)), 2, past);
            Tensor values = s.ops().writeSlice(s.zeros(cache, DType.F32),
                    s.tensor(pastV, Shape.of(1, KV_HEADS, past, DIM)), 2, 0);
            values = s.ops().writeSlice(values, s.tensor(newV, Shape.of(1, KV_HEADS, 1, DIM)), 2, past);
            AttentionOptions step = AttentionOptions.defaults().withCausal(true)
                    .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT);
            expected = s.ops().attention(s.tensor(q, Shape.of(1, HEADS, 1, DIM)), keys, values, step).output()
                    .toFloatArray();
        }
        assertEquals(expected.length, actual.length, "output size");
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs(expected[i] - actual[i]);
            assertEquals(expected[i], actual[i], 1e-5, "index " + i + ": expected " + expected[i] + ", actual "
                    + actual[i] + ", abs error " + abs + ", rel error " + abs / Math.abs(expected[i]));
        }
    }
}
