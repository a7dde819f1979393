package org.attn4j.models.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OnnxModelTest {

    @Test
    void readsTheHeaderGraphAndInitializersOfTheEmbeddedMiniLm() {
        OnnxModel m = MiniLm.model();
        assertEquals(7, m.irVersion());
        assertEquals("pytorch", m.producerName());
        assertEquals(14, m.opsetVersion());
        assertEquals(List.of("input_ids", "attention_mask", "token_type_ids"), m.inputs());
        assertEquals(List.of("output_0", "882"), m.outputs());
        assertEquals(104, m.initializers().size());
        assertEquals(692, m.nodes().size());
        Map<String, Long> ops = m.nodes().stream().collect(Collectors.groupingBy(OnnxNode::opType,
                Collectors.counting()));
        assertEquals(48, ops.get("MatMul"));
        assertEquals(6, ops.get("Softmax"));
        OnnxTensor words = m.initializer("embeddings.word_embeddings.weight");
        assertEquals(OnnxDataType.FLOAT, words.dataType());
        assertArrayEquals(new long[] {30522, 384}, words.dims());
        assertEquals(30522L * 384, words.floatBuffer().remaining());
        assertEquals(30522L * 384 * 4, words.bytes().remaining());
    }

    @Test
    void readsIntegerInitializersAndConstantNodeTensors() {
        OnnxModel m = MiniLm.model();
        OnnxTensor positions = m.initializer("embeddings.position_ids");
        assertEquals(OnnxDataType.INT64, positions.dataType());
        assertArrayEquals(LongStream.range(0, 512).toArray(), positions.toLongArray());
        long constantsWithTensors = m.nodes().stream().filter(n -> n.opType().equals("Constant"))
                .filter(n -> n.tensorAttribute("value").isPresent()).count();
        assertEquals(198, constantsWithTensors);
        OnnxNode gemm = m.nodes().stream().filter(n -> n.opType().equals("Gemm")).findFirst().orElseThrow();
        assertEquals(1, gemm.intAttribute("transB", 0));
        assertEquals(1.0f, gemm.floatAttribute("alpha", 1.0f));
    }

    @Test
    void readsTypedDataFieldsAsWellAsRawData() throws IOException {
        Proto packed = new Proto().packedVarints(1, 2).varint(2, 1).string(8, "f").packedFloats(4, 1.5f, -2f);
        Proto unpacked = new Proto().varint(1, 2).varint(2, 1).string(8, "g").fixed32(4, 3f).fixed32(4, 4f);
        Proto half = new Proto().varint(1, 3).varint(2, 10).string(8, "h")
                .packedVarints(5, 0x3C00, 0xC000, 0x0001);
        Proto bf16 = new Proto().varint(1, 1).varint(2, 16).string(8, "b").packedVarints(5, 0x3FC0);
        Proto ints = new Proto().varint(1, 2).varint(2, 7).string(8, "i").packedVarints(7, -5, 1L << 40);
        OnnxModel m = OnnxModel.read(Proto.model(new Proto[0], packed, unpacked, half, bf16, ints));
        assertArrayEquals(new float[] {1.5f, -2f}, m.initializer("f").toFloatArray());
        assertArrayEquals(new float[] {3f, 4f}, m.initializer("g").toFloatArray());
        assertArrayEquals(new float[] {1f, -2f, 0x1p-24f}, m.initializer("h").toFloatArray());
        assertArrayEquals(new float[] {1.5f}, m.initializer("b").toFloatArray());
        assertArrayEquals(new long[] {-5, 1L << 40}, m.initializer("i").toLongArray());
        assertEquals(List.of("x"), m.inputs());
        assertEquals(17, m.opsetVersion());
    }

    @Test
    void readsAFileThroughAMemoryMap(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("tiny.onnx");
        Files.write(file, Proto.model(new Proto[] {Proto.node("/a/MatMul", "MatMul", "x", "w")},
                Proto.floatTensor("w", new long[] {2, 1}, 7f, 8f)));
        OnnxModel m = OnnxModel.read(file);
        assertEquals("MatMul", m.nodes().get(0).opType());
        assertEquals(List.of("x", "w"), m.nodes().get(0).inputs());
        assertArrayEquals(new float[] {7f, 8f}, m.initializer("w").toFloatArray());
    }

    @Test
    void refusesExternalDataWithHowToEmbedIt() {
        Proto t = new Proto().varint(1, 2).varint(2, 1).string(8, "big")
                .message(13, new Proto().string(1, "location").string(2, "weights.bin")).varint(14, 1);
        IOException e = assertThrows(IOException.class, () -> OnnxModel.read(Proto.model(new Proto[0], t)));
        assertTrue(e.getMessage().contains("'big'") && e.getMessage().contains("save_as_external_data=False"),
                e.getMessage());
    }

    @Test
    void refusesDataThatContradictsTheDims() {
        Proto t = Proto.floatTensor("w", new long[] {3, 2}, 1f, 2f);
        IOException e = assertThrows(IOException.class, () -> OnnxModel.read(Proto.model(new Proto[0], t)));
        assertTrue(e.getMessage().contains("'w'") && e.getMessage().contains("needs 24 bytes but holds 8"),
                e.getMessage());
    }

    @Test
    void refusesNegativeAndOverflowingDimsAndUnknownTypes() {
        Proto negative = new Proto().packedVarints(1, -1).varint(2, 1).string(8, "n");
        Proto huge = new Proto().packedVarints(1, 1L << 40, 1L << 40).varint(2, 1).string(8, "o");
        Proto unknown = new Proto().varint(1, 1).varint(2, 99).string(8, "u").packedFloats(4, 1f);
        Proto untyped = new Proto().varint(1, 1).string(8, "t").packedFloats(4, 1f);
        for (Proto t : List.of(negative, huge, unknown, untyped)) {
            IOException e = assertThrows(IOException.class, () -> OnnxModel.read(Proto.model(new Proto[0], t)));
            assertTrue(e.getMessage().contains("initializer[0]"), e.getMessage());
        }
    }

    @Test
    void refusesTruncatedFilesAndModelsWithoutAGraph() {
        byte[] whole = Proto.model(new Proto[0], Proto.floatTensor("w", new long[] {4}, 1f, 2f, 3f, 4f));
        int opsetImport = new Proto().message(8, new Proto().string(1, "").varint(2, 17)).toByteArray().length;
        for (int cut = 1; cut < whole.length - opsetImport; cut++) {
            byte[] part = Arrays.copyOf(whole, cut);
            assertThrows(OnnxModel.FormatException.class, () -> OnnxModel.read(part), "cut at " + cut);
        }
        IOException e = assertThrows(IOException.class, () -> OnnxModel.read(new byte[0]));
        assertTrue(e.getMessage().contains("no graph"), e.getMessage());
    }
}
