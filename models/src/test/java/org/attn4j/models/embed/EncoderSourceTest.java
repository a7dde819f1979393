package org.attn4j.models.embed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.models.bert.BertConfig;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.checkpoint.Pooling;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The loading route for encoders as users hold them, on a 2-layer BERT exported by torch.onnx.export
 * ({@code generate_encoder_fixtures.py}): an {@code .onnx} file alone, a folder, a jar; the tokenizer under its
 * usual names; a {@code config.json} that contradicts the graph refused.
 */
class EncoderSourceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path tiny;
    private static JsonNode expected;

    @TempDir
    Path dir;

    @BeforeAll
    static void read() throws IOException {
        tiny = CrossEncoderTest.fixture("tiny-onnx");
        expected = JSON.readTree(tiny.resolve("expected.json").toFile());
    }

    static Stream<Backend> backends() {
        return CrossEncoderTest.backends();
    }

    private static List<String> texts() {
        List<String> out = new ArrayList<>();
        expected.get("texts").forEach(t -> out.add(t.asText()));
        return out;
    }

    private static void assertMatchesPyTorch(SentenceEmbedder e) {
        List<SentenceEmbedding> v = e.embed(texts());
        for (int i = 0; i < v.size(); i++) {
            JsonNode ids = expected.get("ids").get(i);
            int[] want = new int[ids.size()];
            for (int k = 0; k < want.length; k++) {
                want[k] = ids.get(k).asInt();
            }
            assertArrayEquals(want, v.get(i).ids(), "ids of text " + i);
            float[] actual = v.get(i).vector();
            JsonNode row = expected.get("mean_pooled_normalized").get(i);
            for (int k = 0; k < actual.length; k++) {
                double want1 = row.get(k).asDouble();
                double abs = Math.abs(want1 - actual[k]);
                if (!(abs <= 1e-4)) {
                    fail(String.format("%s text %d index %d expected %.8g actual %.8g abs error %.3g rel error %.3g",
                            e.backend().name(), i, k, want1, actual[k], abs, abs / Math.abs(want1)));
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void anOnnxFileAloneLoadsWithTheConfigurationItsGraphStates(Backend backend) throws IOException {
        try (SentenceEmbedder e = SentenceEmbedder.load(tiny.resolve("model.onnx"), backend,
                EmbeddingOptions.defaults())) {
            assertMatchesPyTorch(e);
            assertEquals(Pooling.MEAN, e.pooling());
            assertTrue(e.poolingStatedBy().isEmpty(), "nothing in the folder states a pooling");
            assertEquals(40, e.maxLength());
            assertTrue(e.notes().contains("configuration read from the ONNX graph: 2 layers of width 16, 4 heads, "
                    + "feed-forward 24"), e.notes().toString());
            assertTrue(e.notes().stream().anyMatch(n -> n.startsWith("tokenizer built from vocab.txt")),
                    e.notes().toString());
        }
    }

    @Test
    void theGraphStatesEveryHyperParameterOfTheConfig() throws IOException {
        EncoderCheckpoint c = EncoderCheckpoint.of(Checkpoint.open(tiny.resolve("model.onnx")), "test");
        assertEquals(BertConfig.of(expected.get("config"), "expected.json"), c.config());
    }

    @Test
    void theFolderFormFindsTheOnnxFile() throws IOException {
        try (SentenceEmbedder e = SentenceEmbedder.load(tiny, Backends.load("ejml"), EmbeddingOptions.defaults())) {
            assertMatchesPyTorch(e);
            assertEquals(tiny.resolve("model.onnx").toString(), e.description());
        }
    }

    @Test
    void aConfigThatContradictsTheGraphIsRefusedNamingEveryDifference() throws IOException {
        Path folder = copyOfTiny("contradicted");
        ObjectNode config = ((ObjectNode) expected.get("config")).deepCopy();
        config.put("num_attention_heads", 2).put("intermediate_size", 32);
        JSON.writeValue(folder.resolve("config.json").toFile(), config);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SentenceEmbedder.load(folder, Backends.load("ejml"), EmbeddingOptions.defaults()));
        assertTrue(e.getMessage().contains("contradicts " + folder.resolve("model.onnx")), e.getMessage());
        assertTrue(e.getMessage().contains("num_attention_heads 2 in the config, 4 in the graph (the attention "
                + "reshapes to [batch, length, 4, 4])"), e.getMessage());
        assertTrue(e.getMessage().contains("intermediate_size 32 in the config, 24 in the weights"), e.getMessage());
    }

    @Test
    void aConfigThatAgreesWithTheGraphIsUsed() throws IOException {
        Path folder = copyOfTiny("agreed");
        JSON.writeValue(folder.resolve("config.json").toFile(), expected.get("config"));
        try (SentenceEmbedder e = SentenceEmbedder.load(folder, Backends.load("ejml"), EmbeddingOptions.defaults())) {
            assertMatchesPyTorch(e);
            assertTrue(e.notes().stream().noneMatch(n -> n.startsWith("configuration read")), e.notes().toString());
        }
    }

    @Test
    void theOnnxFolderLayoutReadsTheFilesAboveIt() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("exported").resolve("onnx")).getParent();
        Files.copy(tiny.resolve("model.onnx"), folder.resolve("onnx").resolve("model.onnx"));
        Files.copy(tiny.resolve("vocab.txt"), folder.resolve("vocab.txt"));
        JSON.writeValue(folder.resolve("config.json").toFile(), expected.get("config"));
        for (Path model : List.of(folder, folder.resolve("onnx").resolve("model.onnx"))) {
            try (SentenceEmbedder e = SentenceEmbedder.load(model, Backends.load("ejml"),
                    EmbeddingOptions.defaults())) {
                assertMatchesPyTorch(e);
                assertTrue(e.notes().stream().noneMatch(n -> n.startsWith("configuration read")),
                        e.notes().toString());
            }
        }
    }

    @Test
    void theTokenizerIsFoundUnderTheUsualNamesOrNamed() throws IOException {
        for (String name : List.of("encoder-vocab.txt", "encoder-vocabulary.txt", "vocab.txt")) {
            Path folder = Files.createDirectories(dir.resolve("names-" + name));
            Files.copy(tiny.resolve("model.onnx"), folder.resolve("encoder.onnx"));
            Files.copy(tiny.resolve("vocab.txt"), folder.resolve(name));
            try (SentenceEmbedder e = SentenceEmbedder.load(folder.resolve("encoder.onnx"), Backends.load("ejml"),
                    EmbeddingOptions.defaults())) {
                assertMatchesPyTorch(e);
            }
        }
        Path bare = Files.createDirectories(dir.resolve("bare"));
        Files.copy(tiny.resolve("model.onnx"), bare.resolve("encoder.onnx"));
        NoSuchFileException missing = assertThrows(NoSuchFileException.class, () -> SentenceEmbedder.load(
                bare.resolve("encoder.onnx"), Backends.load("ejml"), EmbeddingOptions.defaults()));
        assertTrue(missing.getMessage().contains("has no tokenizer: looked for tokenizer.json, "
                + "encoder-tokenizer.json, encoder_tokenizer.json, encoder.tokenizer.json, vocab.txt"),
                missing.getMessage());
        try (SentenceEmbedder e = SentenceEmbedder.load(EncoderSource.of(bare.resolve("encoder.onnx"))
                .withTokenizer(tiny.resolve("vocab.txt")), Backends.load("ejml"), EmbeddingOptions.defaults())) {
            assertMatchesPyTorch(e);
        }
    }

    @Test
    void aJarHoldingTheModelAndItsTokenizerLoads() throws IOException {
        Path jar = dir.resolve("tiny-model.jar");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(jar))) {
            z.putNextEntry(new ZipEntry("tiny.onnx"));
            z.write(Files.readAllBytes(tiny.resolve("model.onnx")));
            z.putNextEntry(new ZipEntry("tiny-vocabulary.txt"));
            z.write(Files.readAllBytes(tiny.resolve("vocab.txt")));
        }
        try (SentenceEmbedder e = SentenceEmbedder.load(jar, Backends.load("ejml"), EmbeddingOptions.defaults())) {
            assertMatchesPyTorch(e);
            assertEquals("tiny.onnx in " + jar, e.description());
        }
    }

    @Test
    void whatCannotBeReadIsRefusedByName() throws IOException {
        Backend ejml = Backends.load("ejml");
        Path two = copyOfTiny("two");
        Files.move(two.resolve("model.onnx"), two.resolve("a.onnx"));
        Files.copy(two.resolve("a.onnx"), two.resolve("b.onnx"));
        IOException e = assertThrows(IOException.class, () -> SentenceEmbedder.load(two, ejml,
                EmbeddingOptions.defaults()));
        assertTrue(e.getMessage().contains("holds 2 ONNX files (a.onnx, b.onnx)"), e.getMessage());

        Path pickle = Files.createDirectories(dir.resolve("pickle"));
        Files.write(pickle.resolve("pytorch_model.bin"), new byte[] {1});
        e = assertThrows(IOException.class, () -> SentenceEmbedder.load(pickle, ejml, EmbeddingOptions.defaults()));
        assertTrue(e.getMessage().contains("holds pytorch_model.bin, which attn4j does not read"), e.getMessage());

        Path configOnly = Files.createDirectories(dir.resolve("config-only"));
        Files.copy(SentenceEmbedderTest.tiny().resolve("config.json"), configOnly.resolve("config.json"));
        e = assertThrows(NoSuchFileException.class, () -> SentenceEmbedder.load(configOnly, ejml,
                EmbeddingOptions.defaults()));
        assertTrue(e.getMessage().contains("has no weights"), e.getMessage());

        Path safetensorsOnly = Files.createDirectories(dir.resolve("safetensors-only"));
        Files.copy(SentenceEmbedderTest.tiny().resolve("model.safetensors"),
                safetensorsOnly.resolve("model.safetensors"));
        e = assertThrows(NoSuchFileException.class, () -> SentenceEmbedder.load(safetensorsOnly, ejml,
                EmbeddingOptions.defaults()));
        assertTrue(e.getMessage().contains("no config.json beside the safetensors weights"), e.getMessage());
    }

    private Path copyOfTiny(String name) throws IOException {
        Path folder = Files.createDirectories(dir.resolve(name));
        Files.copy(tiny.resolve("model.onnx"), folder.resolve("model.onnx"));
        Files.copy(tiny.resolve("vocab.txt"), folder.resolve("vocab.txt"));
        return folder;
    }
}
