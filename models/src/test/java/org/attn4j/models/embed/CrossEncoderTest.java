package org.attn4j.models.embed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.tokenize.Encoding;
import org.attn4j.models.tokenize.Tokenizer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link CrossEncoder} against PyTorch float64 ({@code generate_encoder_fixtures.py}): a checkpoint in
 * cross-encoder/ms-marco-MiniLM-L-6-v2's shape (6 layers of width 384, 12 heads, feed-forward 1536, one label) whose
 * weights are computed here as the script computes them, and the tiny classifier exported to ONNX.
 */
class CrossEncoderTest {
    @TempDir
    static Path dir;

    private static Path msMarcoShaped;
    private static JsonNode expected;

    static Path fixture(String name) {
        try {
            return Path.of(CrossEncoderTest.class.getResource("/org/attn4j/models/embed/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @BeforeAll
    static void writeTheCheckpoint() throws IOException {
        Path source = fixture("cross-encoder");
        expected = new ObjectMapper().readTree(source.resolve("expected.json").toFile());
        JsonNode config = new ObjectMapper().readTree(source.resolve("config.json").toFile());
        msMarcoShaped = Files.createDirectories(dir.resolve("ms-marco-shaped"));
        Files.copy(source.resolve("config.json"), msMarcoShaped.resolve("config.json"));
        Files.copy(source.resolve("vocab.txt"), msMarcoShaped.resolve("vocab.txt"));
        SafeTensors.write(msMarcoShaped.resolve("model.safetensors"), CheckpointWeights.bert(
                config.get("vocab_size").asInt(), config.get("hidden_size").asInt(),
                config.get("num_hidden_layers").asInt(), config.get("intermediate_size").asInt(),
                config.get("max_position_embeddings").asInt(), config.get("type_vocab_size").asInt(), "bert.", true),
                DType.F32, Map.of());
    }

    static Stream<Backend> backends() {
        return Backends.describe().stream().filter(r -> r.availability().available())
                .map(r -> Backends.load(r.name()));
    }

    private static List<String> passages(JsonNode e) {
        List<String> out = new ArrayList<>();
        e.get("passages").forEach(p -> out.add(p.asText()));
        return out;
    }

    private static void assertClose(String what, JsonNode expectedValues, double[] actual, double tolerance) {
        assertEquals(expectedValues.size(), actual.length, what + ": count");
        for (int i = 0; i < actual.length; i++) {
            double e = expectedValues.get(i).asDouble();
            double abs = Math.abs(e - actual[i]);
            if (!(abs <= tolerance + tolerance * Math.abs(e))) {
                fail(String.format("%s: index %d expected %.10g actual %.10g abs error %.3g rel error %.3g", what, i,
                        e, actual[i], abs, abs / Math.abs(e)));
            }
        }
    }

    @Test
    void pairsAreEncodedAsTheReferenceEncodedThem() throws IOException {
        Tokenizer t = Tokenizer.fromVocabTxt(msMarcoShaped.resolve("vocab.txt"), null).withMaxLength(512);
        List<String> passages = passages(expected);
        for (int i = 0; i < passages.size(); i++) {
            Encoding e = t.encode(expected.get("query").asText(), passages.get(i));
            assertArrayEquals(ints(expected.get("ids").get(i)), e.ids(), "ids of pair " + i);
            assertArrayEquals(ints(expected.get("type_ids").get(i)), e.typeIds(), "type ids of pair " + i);
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void msMarcoShapedScoresMatchPyTorchFloat64(Backend backend) throws IOException {
        for (DType dtype : List.of(DType.F32, DType.F64)) {
            if (!backend.capabilities().supports(dtype)) {
                continue;
            }
            try (CrossEncoder r = CrossEncoder.load(msMarcoShaped, backend,
                    RerankOptions.defaults().withDType(dtype).withBatchSize(4))) {
                assertTrue(!r.sigmoid() && r.activationStatedBy().orElseThrow().startsWith("config.json"));
                double[] scores = r.score(expected.get("query").asText(), passages(expected));
                assertClose(backend.name() + " " + dtype, expected.get("logits"), scores,
                        dtype == DType.F64 ? 1e-9 : 1e-4);
            }
        }
    }

    @Test
    void rankPutsTheBestFirstAndSigmoidMapsLogitsIntoZeroOne() throws IOException {
        List<String> passages = passages(expected);
        try (CrossEncoder r = CrossEncoder.load(msMarcoShaped, Backends.load("ejml"),
                RerankOptions.defaults().withSigmoid(true))) {
            List<CrossEncoder.Ranked> ranked = r.rank(expected.get("query").asText(), passages);
            assertEquals(passages.size(), ranked.size());
            for (int i = 1; i < ranked.size(); i++) {
                assertTrue(ranked.get(i - 1).score() >= ranked.get(i).score(), ranked.toString());
            }
            for (CrossEncoder.Ranked k : ranked) {
                double logit = expected.get("logits").get(k.index()).asDouble();
                assertEquals(1 / (1 + Math.exp(-logit)), k.score(), 1e-4, "passage " + k.index());
                assertEquals(passages.get(k.index()), k.passage());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void theOnnxExportOfAClassifierScoresAsPyTorch(Backend backend) throws IOException {
        Path folder = fixture("tiny-onnx-classifier");
        JsonNode e = new ObjectMapper().readTree(folder.resolve("expected.json").toFile());
        try (CrossEncoder r = CrossEncoder.load(folder.resolve("model.onnx"), backend, RerankOptions.defaults())) {
            assertTrue(r.activationStatedBy().isEmpty(), "the graph alone names no activation");
            assertClose(backend.name(), e.get("logits"), r.score(e.get("query").asText(), passages(e)), 1e-4);
        }
    }

    @Test
    void anEncoderWithoutAClassifierIsNoCrossEncoder() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CrossEncoder.load(
                fixture("tiny-onnx").resolve("model.onnx"), Backends.load("ejml"), RerankOptions.defaults()));
        assertTrue(e.getMessage().contains("is not a cross-encoder: it has no classifier.weight"), e.getMessage());
    }

    @Test
    void aConfigWhoseLabelsDisagreeWithTheClassifierIsRefused() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("three-labels"));
        for (String f : List.of("vocab.txt", "model.safetensors")) {
            Files.copy(msMarcoShaped.resolve(f), folder.resolve(f));
        }
        ObjectMapper json = new ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode config = (com.fasterxml.jackson.databind.node.ObjectNode)
                json.readTree(msMarcoShaped.resolve("config.json").toFile());
        config.putObject("id2label").put("0", "a").put("1", "b").put("2", "c");
        json.writeValue(folder.resolve("config.json").toFile(), config);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CrossEncoder.load(folder, Backends.load("ejml"), RerankOptions.defaults()));
        assertTrue(e.getMessage().contains("config.json declares 3 labels but classifier.weight has 1 rows"),
                e.getMessage());
    }

    @Test
    void aClosedCrossEncoderAndBadArgumentsAreRefused() throws IOException {
        CrossEncoder r = CrossEncoder.load(fixture("tiny-onnx-classifier").resolve("model.onnx"),
                Backends.load("ejml"), RerankOptions.defaults());
        assertThrows(IllegalArgumentException.class, () -> r.score(null, List.of("a")));
        assertThrows(IllegalArgumentException.class, () -> r.score("q", java.util.Arrays.asList("a", null)));
        r.close();
        assertThrows(IllegalStateException.class, () -> r.score("q", List.of("a")));
        assertThrows(IllegalArgumentException.class, () -> RerankOptions.defaults().withMaxLength(2));
        assertThrows(IllegalArgumentException.class, () -> RerankOptions.defaults().withBatchSize(0));
    }

    private static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }
}
