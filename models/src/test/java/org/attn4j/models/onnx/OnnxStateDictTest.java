package org.attn4j.models.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;
import org.junit.jupiter.api.Test;

class OnnxStateDictTest {

    @Test
    void namesEveryMiniLmParameterAsTheOnnxPackageDoesWithTheSameShapesAndValues() throws IOException {
        Map<String, OnnxTensor> sd = OnnxStateDict.map(MiniLm.model());
        JsonNode golden;
        try (InputStream in = getClass().getResourceAsStream("minilm-state-dict.json")) {
            golden = new ObjectMapper().readTree(in);
        }
        TreeSet<String> expected = new TreeSet<>();
        golden.fieldNames().forEachRemaining(expected::add);
        assertEquals(expected, new TreeSet<>(sd.keySet()));
        assertEquals(103, sd.size());
        for (Map.Entry<String, JsonNode> e : golden.properties()) {
            OnnxTensor t = sd.get(e.getKey());
            long[] shape = new long[e.getValue().get("shape").size()];
            for (int i = 0; i < shape.length; i++) {
                shape[i] = e.getValue().get("shape").get(i).asLong();
            }
            assertArrayEquals(shape, t.dims(), e.getKey());
            assertEquals(OnnxDataType.FLOAT, t.dataType(), e.getKey());
            FloatBuffer v = t.floatBuffer();
            double sum = 0;
            for (int i = 0; i < v.limit(); i++) {
                sum += v.get(i);
            }
            double want = e.getValue().get("sum").asDouble();
            assertEquals(want, sum, 1e-9 * Math.max(1, Math.abs(want)) * Math.sqrt(v.limit()),
                    e.getKey() + ": sum");
            for (int i = 0; i < 4; i++) {
                assertEquals((float) e.getValue().get("first").get(i).asDouble(), v.get(i),
                        e.getKey() + "[" + i + "]");
                int j = v.limit() - 4 + i;
                assertEquals((float) e.getValue().get("last").get(i).asDouble(), v.get(j),
                        e.getKey() + "[" + j + "]");
            }
        }
    }

    @Test
    void generalisesBeyondSixLayersOf384() {
        OnnxModel m = MiniLm.model();
        Map<String, OnnxTensor> sd = OnnxStateDict.map(m);
        assertArrayEquals(new long[] {1536, 384}, sd.get("encoder.layer.5.intermediate.dense.weight").dims());
        assertArrayEquals(new long[] {384, 1536}, sd.get("encoder.layer.5.output.dense.weight").dims());
        assertFalse(sd.containsKey("embeddings.position_ids"), "an integer buffer is no parameter");
        Proto[] nodes = {
            Proto.node("/encoder/layer.11/attention/self/query/MatMul", "MatMul", "h", "onnx::MatMul_1"),
            Proto.node("/encoder/layer.11/attention/self/query/Add", "Add", "onnx::Add_2", "q"),
        };
        Map<String, OnnxTensor> small = OnnxStateDict.map(readModel(nodes,
                Proto.floatTensor("onnx::MatMul_1", new long[] {2, 3}, 1, 2, 3, 4, 5, 6),
                Proto.floatTensor("onnx::Add_2", new long[] {3}, 7, 8, 9)));
        OnnxTensor w = small.get("encoder.layer.11.attention.self.query.weight");
        assertArrayEquals(new long[] {3, 2}, w.dims());
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, w.toFloatArray(), "W = Bᵀ");
        assertArrayEquals(new float[] {7, 8, 9}, small.get("encoder.layer.11.attention.self.query.bias")
                .toFloatArray());
    }

    @Test
    void keepsTheLayoutOfAGemmWithTransposedBAndTransposesOneWithout() {
        Proto[] nodes = {
            Proto.node("/pooler/dense/Gemm", "Gemm", "x", "onnx::Gemm_1", "onnx::Gemm_2")
                    .message(5, Proto.intAttribute("transB", 1)),
            Proto.node("/head/Gemm", "Gemm", "x", "onnx::Gemm_3"),
        };
        Map<String, OnnxTensor> sd = OnnxStateDict.map(readModel(nodes,
                Proto.floatTensor("onnx::Gemm_1", new long[] {2, 3}, 1, 2, 3, 4, 5, 6),
                Proto.floatTensor("onnx::Gemm_2", new long[] {2}, 1, 1),
                Proto.floatTensor("onnx::Gemm_3", new long[] {2, 1}, 1, 2)));
        assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, sd.get("pooler.dense.weight").toFloatArray());
        assertArrayEquals(new long[] {2, 3}, sd.get("pooler.dense.weight").dims());
        assertArrayEquals(new float[] {1, 1}, sd.get("pooler.dense.bias").toFloatArray());
        assertArrayEquals(new long[] {1, 2}, sd.get("head.weight").dims());
    }

    @Test
    void listsEveryAnonymousWeightItCannotName() {
        Proto[] nodes = {Proto.node("MatMul", "MatMul", "x", "onnx::MatMul_1")};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OnnxStateDict.map(
                readModel(new Proto[0], Proto.floatTensor("onnx::MatMul_9", new long[] {2}, 1, 2))));
        assertTrue(e.getMessage().contains("onnx::MatMul_9: FLOAT[2]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> OnnxStateDict.map(
                readModel(nodes, Proto.floatTensor("onnx::MatMul_1", new long[] {1, 1}, 1))));
        assertTrue(e.getMessage().contains("gives no module path"), e.getMessage());
    }

    @Test
    void refusesTwoSourcesForOneName() {
        Proto[] nodes = {Proto.node("/a/MatMul", "MatMul", "x", "onnx::MatMul_1")};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OnnxStateDict.map(
                readModel(nodes, Proto.floatTensor("onnx::MatMul_1", new long[] {1, 1}, 1),
                        Proto.floatTensor("a.weight", new long[] {1, 1}, 2))));
        assertTrue(e.getMessage().contains("'a.weight' is given by both"), e.getMessage());
    }

    @Test
    void dequantizesMatMulIntegerWeightsWithTheirPerColumnScalesAndZeroPoints() {
        Proto[] nodes = {
            Proto.node("/enc/dense/MatMul_quant_scales_mul", "Mul", "x_scale", "onnx::MatMul_1_scale"),
            Proto.node("/enc/dense/MatMul_quant", "MatMulInteger", "xq", "onnx::MatMul_1_quantized", "x_zp",
                    "onnx::MatMul_1_zero_point"),
            Proto.node("/enc/dense/cast", "Cast", "/enc/dense/MatMul_quant_output_0"),
            Proto.node("/enc/dense/MatMul_quant_output_scale_mul", "Mul", "/enc/dense/cast_output_0",
                    "/enc/dense/MatMul_quant_scales_mul_output_0"),
        };
        Map<String, OnnxTensor> sd = OnnxStateDict.map(readModel(nodes,
                int8("onnx::MatMul_1_quantized", new long[] {2, 3}, 1, -2, 3, 4, 5, -6),
                int8("onnx::MatMul_1_zero_point", new long[] {3}, 0, 1, -1),
                Proto.floatTensor("onnx::MatMul_1_scale", new long[] {3}, 0.5f, 2f, 0.25f)));
        assertEquals(List.of("enc.dense.weight"), List.copyOf(sd.keySet()), "scales and zero points are no parameters");
        assertArrayEquals(new long[] {3, 2}, sd.get("enc.dense.weight").dims());
        assertArrayEquals(new float[] {0.5f, 2f, -6f, 8f, 1f, -1.25f}, sd.get("enc.dense.weight").toFloatArray(),
                "W[o][i] = (B[i][o] - zp[o]) * s[o]");
    }

    @Test
    void keepsMatMulIntegerWeightsInIntegersAsI8RowsWhenTheirInputIsDynamicallyQuantized() {
        Proto[] nodes = {
            Proto.node("/enc/dense/quant", "DynamicQuantizeLinear", "x"),
            Proto.node("/enc/dense/MatMul_quant_scales_mul", "Mul", "x_scale", "onnx::MatMul_1_scale"),
            Proto.node("/enc/dense/MatMul_quant", "MatMulInteger", "/enc/dense/quant_output_0",
                    "onnx::MatMul_1_quantized", "x_zp", "onnx::MatMul_1_zero_point"),
            Proto.node("/enc/dense/cast", "Cast", "/enc/dense/MatMul_quant_output_0"),
            Proto.node("/enc/dense/MatMul_quant_output_scale_mul", "Mul", "/enc/dense/cast_output_0",
                    "/enc/dense/MatMul_quant_scales_mul_output_0"),
            Proto.node("/enc/dense/Add", "Add", "onnx::Add_9", "/enc/dense/MatMul_quant_output_scale_mul_output_0"),
        };
        Map<String, HostTensor> sd = OnnxStateDict.parameters(readModel(nodes,
                int8("onnx::MatMul_1_quantized", new long[] {2, 3}, 1, -2, 3, 4, 5, -6),
                int8("onnx::MatMul_1_zero_point", new long[] {3}, 0, 1, -1),
                Proto.floatTensor("onnx::MatMul_1_scale", new long[] {3}, 0.5f, 2f, 0.25f),
                Proto.floatTensor("onnx::Add_9", new long[] {3}, 1f, 2f, 3f)));
        assertEquals(List.of("enc.dense.bias", "enc.dense.weight"), List.copyOf(new TreeSet<>(sd.keySet())));
        HostTensor w = sd.get("enc.dense.weight");
        assertEquals(WeightType.I8, w.type());
        assertEquals(Shape.of(3, 2), w.shape());
        assertArrayEquals(new float[] {0.5f, 2f, -6f, 8f, 1f, -1.25f}, w.toFloatArray(),
                "W[o][i] = (B[i][o] - zp[o]) * s[o], the values map() dequantizes to");
        ByteBuffer b = w.bytes();
        assertEquals(2f, b.getFloat(10), 0f, "row 1: its column's scale");
        assertEquals(1, b.getInt(14), "row 1: its column's zero point");
        assertEquals(-2, b.get(18), "row 1: B[0][1]");
    }

    @Test
    void refusesToKeepInIntegersAMatMulIntegerWhoseInputNoDynamicQuantizeLinearMade() {
        Proto[] nodes = {
            Proto.node("/enc/dense/MatMul_quant_scales_mul", "Mul", "x_scale", "onnx::MatMul_1_scale"),
            Proto.node("/enc/dense/MatMul_quant", "MatMulInteger", "xq", "onnx::MatMul_1_quantized"),
            Proto.node("/enc/dense/cast", "Cast", "/enc/dense/MatMul_quant_output_0"),
            Proto.node("/enc/dense/MatMul_quant_output_scale_mul", "Mul", "/enc/dense/cast_output_0",
                    "/enc/dense/MatMul_quant_scales_mul_output_0"),
        };
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OnnxStateDict.parameters(
                readModel(nodes, int8("onnx::MatMul_1_quantized", new long[] {2, 3}, 1, -2, 3, 4, 5, -6),
                        Proto.floatTensor("onnx::MatMul_1_scale", new long[] {3}, 0.5f, 2f, 0.25f))));
        assertTrue(e.getMessage().contains("'/enc/dense/MatMul_quant'")
                && e.getMessage().contains("DynamicQuantizeLinear"), e.getMessage());
    }

    @Test
    void theQuantizedMiniLmNamesTheParametersOfItsF32Original() throws IOException {
        Map<String, OnnxTensor> original = OnnxStateDict.map(MiniLm.model());
        OnnxModel quantized;
        try (var in = OnnxStateDictTest.class.getResourceAsStream("/all-minilm-l6-v2-q.onnx")) {
            quantized = OnnxModel.read(in);
        }
        Map<String, OnnxTensor> q = OnnxStateDict.map(quantized);
        TreeSet<String> expected = new TreeSet<>(original.keySet());
        expected.removeIf(n -> n.startsWith("pooler."));
        assertEquals(expected, new TreeSet<>(q.keySet()), "the quantized export has no pooler");
        for (String name : q.keySet()) {
            assertArrayEquals(original.get(name).dims(), q.get(name).dims(), name);
            float[] a = original.get(name).toFloatArray();
            float[] b = q.get(name).toFloatArray();
            double worst = 0;
            double largest = 0;
            for (int i = 0; i < a.length; i++) {
                worst = Math.max(worst, Math.abs(a[i] - b[i]));
                largest = Math.max(largest, Math.abs(a[i]));
            }
            assertTrue(worst <= largest / 100, name + " differs by " + worst + " from the F32 original, whose largest"
                    + " value is " + largest);
        }
    }

    @Test
    void anUnsupportedQuantizedOperatorIsNamedInOneLine() {
        Proto[] nodes = {Proto.node("/enc/dense/MatMul", "QLinearMatMul", "x", "w")};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OnnxStateDict.map(readModel(nodes)));
        assertTrue(e.getMessage().contains("QLinearMatMul") && e.getMessage().contains("'/enc/dense/MatMul'")
                && !e.getMessage().contains("\n"), e.getMessage());
    }

    /** An INT8 TensorProto: dims 1, data_type 2 = INT8 (3), name 8, raw_data 9. */
    private static Proto int8(String name, long[] dims, int... values) {
        byte[] raw = new byte[values.length];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = (byte) values[i];
        }
        return new Proto().packedVarints(1, dims).varint(2, 3).string(8, name).bytes(9, raw);
    }

    private static OnnxModel readModel(Proto[] nodes, Proto... initializers) {
        try {
            return OnnxModel.read(Proto.model(nodes, initializers));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
