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
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.checkpoint.Pooling;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Qwen3-Embedding and Qwen3-Reranker in miniature (2 Qwen3 blocks of width 32, per-head norms, grouped keys, random
 * weights; the embedder's under Qwen3Model's names with the sentence-transformers files, the reranker's under
 * Qwen3ForCausalLM's with its own head) against their model cards' recipes in PyTorch float64
 * ({@code tck/src/golden/generate_qwen3_encoder_folders.py}): the ids, the last token's normalised hidden state with
 * and without the query instruction, P(yes) and the yes − no logit, in batches and one text at a time.
 */
class Qwen3EncodersMatchPyTorchTest {
    /** F32 against float64: the decoder goldens' bound (two blocks of F32 products and norms). */
    private static final double F32 = 2e-4;
    /** F64 against float64. */
    private static final double F64 = 1e-10;
    /** F64 against float64 for a vector, which an embedding holds in float: a few float roundings of values ≤ 1. */
    private static final double F64_VECTOR = 3e-7;

    static Path fixture(String name) {
        try {
            return Path.of(Qwen3EncodersMatchPyTorchTest.class.getResource("/org/attn4j/models/embed/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Backend> backends() {
        return Backends.describe().stream().filter(r -> r.availability().available())
                .map(r -> Backends.load(r.name()));
    }

    private static JsonNode expected(String folder) throws IOException {
        return new ObjectMapper().readTree(fixture(folder).resolve("expected.json").toFile());
    }

    private static void assertClose(String what, double[] expected, double[] actual, double tolerance) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs(expected[i] - actual[i]);
            double rel = abs / Math.max(Math.abs(expected[i]), 1e-30);
            if (!(abs <= tolerance + tolerance * Math.abs(expected[i]))) {
                fail(what + ": index " + i + ", expected " + expected[i] + ", actual " + actual[i] + ", abs error "
                        + abs + ", rel error " + rel + " (tolerance " + tolerance + " absolute plus relative)");
            }
        }
    }

    private static double[] doubles(JsonNode array) {
        double[] out = new double[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asDouble();
        }
        return out;
    }

    private static double[] doubles(float[] v) {
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i];
        }
        return out;
    }

    private static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }

    private static List<JsonNode> cases(JsonNode expected, String prompt) {
        List<JsonNode> out = new ArrayList<>();
        expected.get("cases").forEach(c -> {
            if (prompt == null || c.get("prompt").asText().equals(prompt)) {
                out.add(c);
            }
        });
        return out;
    }

    @Test
    void theFolderStatesLastTokenPoolingNormalisationAndItsLength() throws IOException {
        try (SentenceEmbedder e = SentenceEmbedder.load(fixture("qwen3-embedding"), Backends.load("ejml"),
                EmbeddingOptions.defaults())) {
            assertEquals(Pooling.LAST_TOKEN, e.pooling());
            assertEquals(Path.of("1_Pooling", "config.json").toString(), e.poolingStatedBy().orElseThrow());
            assertTrue(e.normalizes());
            assertEquals(32768, e.maxLength());
            assertEquals(32, e.dimension());
            assertEquals(2, e.layers());
            assertEquals("", e.prompt(), "default_prompt_name is null: no prompt unless asked for");
            assertThrows(UnsupportedOperationException.class, () -> e.attentionWeights("a", 0));
        }
    }

    @Test
    void textsAreTokenizedAsTheModelCardsTokenizerDoesWithEndOfTextAppended() throws IOException {
        JsonNode expected = expected("qwen3-embedding");
        try (SentenceEmbedder documents = SentenceEmbedder.load(fixture("qwen3-embedding"), Backends.load("ejml"),
                EmbeddingOptions.defaults());
             SentenceEmbedder queries = SentenceEmbedder.load(fixture("qwen3-embedding"), Backends.load("ejml"),
                     EmbeddingOptions.defaults().withPromptName("query"))) {
            for (JsonNode c : expected.get("cases")) {
                SentenceEmbedder e = c.get("prompt").asText().equals("query") ? queries : documents;
                int[] ids = ints(c.get("ids"));
                assertArrayEquals(ids, e.embed(c.get("text").asText()).ids(), c.get("text").asText());
                assertEquals(ids.length, e.tokenCount(c.get("text").asText()));
                assertEquals("<|endoftext|>", e.tokens(c.get("text").asText()).get(ids.length - 1));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void vectorsMatchPyTorchFloat64InOneBatchAndOneTextAtATime(Backend backend) throws IOException {
        JsonNode expected = expected("qwen3-embedding");
        String instruct = "Instruct: " + expected.get("task").asText() + "\nQuery:";
        for (DType dtype : List.of(DType.F32, DType.F64)) {
            if (!backend.capabilities().supports(dtype)) {
                continue;
            }
            double tolerance = dtype == DType.F64 ? F64_VECTOR : F32;
            for (int batch : new int[] {1, 32}) {
                EmbeddingOptions base = EmbeddingOptions.defaults().withDType(dtype).withBatchSize(batch);
                for (EmbeddingOptions queryOptions : List.of(base.withPromptName("query"), base.withPrompt(instruct))) {
                    check(backend, queryOptions, cases(expected, "query"), tolerance);
                }
                check(backend, base, cases(expected, "document"), tolerance);
            }
        }
    }

    private static void check(Backend backend, EmbeddingOptions options, List<JsonNode> cases, double tolerance)
            throws IOException {
        List<String> texts = cases.stream().map(c -> c.get("text").asText()).toList();
        try (SentenceEmbedder e = SentenceEmbedder.load(fixture("qwen3-embedding"), backend, options)) {
            List<SentenceEmbedding> vectors = e.embed(texts);
            for (int i = 0; i < cases.size(); i++) {
                assertClose(backend.name() + " " + options + " text " + i, doubles(cases.get(i).get("vector")),
                        doubles(vectors.get(i).vector()), tolerance);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void aTextAloneHasTheVectorItHasInALeftPaddedBatch(Backend backend) throws IOException {
        List<String> texts = List.of("yes", "The capital of China is Beijing.", "no no", "",
                "Gravity is a force that attracts two bodies towards each other.");
        try (SentenceEmbedder e = SentenceEmbedder.load(fixture("qwen3-embedding"), backend,
                EmbeddingOptions.defaults().withBatchSize(texts.size()))) {
            List<SentenceEmbedding> together = e.embed(texts);
            for (int i = 0; i < texts.size(); i++) {
                float[] alone = e.embed(texts.get(i)).vector();
                assertClose(backend.name() + " text " + i + " alone vs in the batch", doubles(alone),
                        doubles(together.get(i).vector()), 1e-6);
            }
        }
    }

    @Test
    void aPromptNameTheFolderDoesNotHaveIsRefusedByName() {
        EmbeddingOptions options = EmbeddingOptions.defaults().withPromptName("passage");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SentenceEmbedder.load(
                fixture("qwen3-embedding"), Backends.load("ejml"), options));
        assertTrue(e.getMessage().contains("passage") && e.getMessage().contains("query"), e.getMessage());
    }

    @Test
    void anUnknownKeyOfTheSentenceTransformersConfigIsRefusedByName(@TempDir Path dir) throws IOException {
        Path copy = copyOf(fixture("qwen3-embedding"), dir.resolve("copy"));
        Files.writeString(copy.resolve("config_sentence_transformers.json"), "{\"prompts\": {}, \"truncate_dim\": 8}");
        IOException e = assertThrows(IOException.class, () -> SentenceEmbedder.load(copy, Backends.load("ejml"),
                EmbeddingOptions.defaults()));
        assertTrue(e.getMessage().contains("truncate_dim"), e.getMessage());
    }

    @Test
    void anUntiedEmbedderWithoutItsHeadLoadsAndGivesTheSameVectors(@TempDir Path dir) throws IOException {
        Path copy = copyOf(fixture("qwen3-embedding"), dir.resolve("untied"));
        String config = Files.readString(copy.resolve("config.json"));
        Files.writeString(copy.resolve("config.json"), config.replace("\"tie_word_embeddings\": true",
                "\"tie_word_embeddings\": false"));
        JsonNode c = cases(expected("qwen3-embedding"), "document").get(0);
        try (SentenceEmbedder e = SentenceEmbedder.load(copy, Backends.load("ejml"), EmbeddingOptions.defaults())) {
            assertTrue(e.notes().stream().anyMatch(n -> n.contains("no lm_head.weight")), e.notes().toString());
            assertClose("untied copy", doubles(c.get("vector")), doubles(e.embed(c.get("text").asText()).vector()),
                    F32);
        }
    }

    @Test
    void truncationKeepsTheAppendedEndOfText() throws IOException {
        try (SentenceEmbedder e = SentenceEmbedder.load(fixture("qwen3-embedding"), Backends.load("ejml"),
                EmbeddingOptions.defaults().withMaxLength(5))) {
            List<String> tokens = e.tokens("Gravity is a force");
            assertEquals(5, tokens.size());
            assertEquals("<|endoftext|>", tokens.get(4));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void rerankerScoresAreTheProbabilityOfYesAsInPyTorchFloat64(Backend backend) throws IOException {
        JsonNode expected = expected("qwen3-reranker");
        for (DType dtype : List.of(DType.F32, DType.F64)) {
            if (!backend.capabilities().supports(dtype)) {
                continue;
            }
            double tolerance = dtype == DType.F64 ? F64 : F32;
            for (int batch : new int[] {1, 32}) {
                for (boolean sigmoid : new boolean[] {true, false}) {
                    RerankOptions options = RerankOptions.defaults().withDType(dtype).withBatchSize(batch);
                    checkScores(backend, sigmoid ? options : options.withSigmoid(false), expected, sigmoid,
                            tolerance);
                }
            }
        }
    }

    private static void checkScores(Backend backend, RerankOptions options, JsonNode expected, boolean sigmoid,
                                    double tolerance) throws IOException {
        List<JsonNode> byInstruction = new ArrayList<>();
        expected.get("cases").forEach(byInstruction::add);
        for (JsonNode c : byInstruction) {
            String instruction = c.get("instruction").isNull() ? null : c.get("instruction").asText();
            List<JsonNode> same = byInstruction.stream().filter(o -> o.get("instruction").equals(c.get("instruction"))
                    && o.get("query").equals(c.get("query"))).toList();
            if (same.get(0) != c) {
                continue;
            }
            RerankOptions o = instruction == null ? options : options.withInstruction(instruction);
            try (CrossEncoder r = CrossEncoder.load(fixture("qwen3-reranker"), backend, o)) {
                assertEquals(sigmoid, r.sigmoid());
                List<String> documents = same.stream().map(x -> x.get("document").asText()).toList();
                double[] scores = r.score(c.get("query").asText(), documents);
                double[] want = same.stream().mapToDouble(x -> x.get(sigmoid ? "score" : "logit_yes_minus_no")
                        .asDouble()).toArray();
                assertClose(backend.name() + " " + o + " query " + c.get("query"), want, scores, tolerance);
                for (int i = 0; i < documents.size(); i++) {
                    assertEquals(same.get(i).get("ids").size(), r.tokenCount(c.get("query").asText(),
                            documents.get(i)));
                }
            }
        }
    }

    @Test
    void rerankerDefaultsToTheModelCardsInstructionAndProbability() throws IOException {
        try (CrossEncoder r = CrossEncoder.load(fixture("qwen3-reranker"), Backends.load("ejml"),
                RerankOptions.defaults())) {
            assertEquals(Qwen3Reranker.DEFAULT_INSTRUCTION, r.instruction().orElseThrow());
            assertTrue(r.sigmoid());
            assertTrue(r.activationStatedBy().orElseThrow().contains("Qwen3-Reranker"));
            List<CrossEncoder.Ranked> ranked = r.rank("What is the capital of China?",
                    List.of("Gravity is a force.", "The capital of China is Beijing."));
            assertEquals(2, ranked.size());
            assertTrue(ranked.get(0).score() >= ranked.get(1).score());
        }
    }

    @Test
    void checkpointReadsTheSentenceTransformersFolderAsAnEncoderAndTheRerankerWhenAskedForOne() throws IOException {
        assertEquals(Checkpoint.Kind.ENCODER, Checkpoint.open(fixture("qwen3-embedding")).kind());
        assertEquals(Checkpoint.Kind.DECODER, Checkpoint.open(fixture("qwen3-reranker")).kind());
        Checkpoint reranker = Checkpoint.open(fixture("qwen3-reranker"), Checkpoint.Kind.ENCODER);
        assertEquals(Checkpoint.Kind.ENCODER, reranker.kind());
        try (CrossEncoder r = CrossEncoder.from(reranker, Backends.load("ejml"), RerankOptions.defaults())) {
            assertEquals(1, r.score("q", List.of("d")).length);
        }
        Checkpoint embedder = Checkpoint.open(fixture("qwen3-embedding"), Checkpoint.Kind.ENCODER);
        try (SentenceEmbedder e = SentenceEmbedder.from(embedder, Backends.load("ejml"), EmbeddingOptions.defaults())) {
            assertEquals(32, e.embed("q").vector().length);
        }
    }

    private static Path copyOf(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
        return to;
    }
}
