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
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.StateDict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The encoder families beside BERT through the one loading route of {@link SentenceEmbedder} and
 * {@link CrossEncoder}: texts in, the float64 PyTorch results of {@code generate_encoder_families.py} out, with
 * the tokenizer ids Hugging Face's tokenizers library gave for the same texts, on every backend and dtype.
 */
class SentenceEmbedderFamiliesTest {
    static Path resource(String path) {
        try {
            return Path.of(SentenceEmbedderFamiliesTest.class.getResource("/org/attn4j/models/" + path).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static JsonNode expected() throws IOException {
        return new ObjectMapper().readTree(resource("bert/families.json").toFile());
    }

    static StateDict reference() throws IOException {
        return SafeTensors.read(resource("bert/families.safetensors")).tensors();
    }

    static EncoderSource source(String folder) {
        return EncoderSource.of(resource("bert/" + folder))
                .withTokenizer(resource("tokenize/unigram/xlmr-template/tokenizer.json"));
    }

    static Stream<Arguments> targets() {
        return Backends.describe().stream().filter(r -> r.availability().available()).flatMap(r -> {
            Backend b = Backends.load(r.name());
            return r.capabilities().supports(DType.F64) ? Stream.of(Arguments.of(b, DType.F32),
                    Arguments.of(b, DType.F64)) : Stream.of(Arguments.of(b, DType.F32));
        });
    }

    static void assertClose(String what, double[] expected, double[] actual, double tolerance) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs(expected[i] - actual[i]);
            if (!(abs <= tolerance)) {
                fail(String.format("%s: index %d expected %.10g actual %.10g abs error %.3g rel error %.3g"
                        + " (tolerance %.1g)", what, i, expected[i], actual[i], abs, abs / Math.abs(expected[i]),
                        tolerance));
            }
        }
    }

    static int[] ints(JsonNode row) {
        int[] out = new int[row.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = row.get(i).asInt();
        }
        return out;
    }

    static double tolerance(DType dtype) {
        return dtype == DType.F64 ? 1e-6 : 1e-4;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("targets")
    void xlmRobertaEmbedsAsPyTorchWithTheFoldersClsPoolingAndNormalize(Backend backend, DType dtype)
            throws IOException {
        JsonNode e = expected().get("xlmr");
        List<String> texts = new ArrayList<>();
        e.get("texts").forEach(t -> texts.add(t.asText()));
        double[] want = reference().get("xlmr.embeddings").data();
        try (SentenceEmbedder embedder = SentenceEmbedder.load(source("xlmr"), backend,
                EmbeddingOptions.defaults().withDType(dtype).withBatchSize(3))) {
            assertEquals(Pooling.CLS, embedder.pooling());
            assertEquals(Optional.of("1_Pooling/config.json"), embedder.poolingStatedBy());
            assertEquals(64, embedder.maxLength());
            List<SentenceEmbedding> got = embedder.embed(texts);
            for (int i = 0; i < texts.size(); i++) {
                assertArrayEquals(ints(e.get("ids").get(i)), got.get(i).ids(), texts.get(i));
                double[] actual = new double[16];
                for (int j = 0; j < 16; j++) {
                    actual[j] = got.get(i).vector()[j];
                }
                double[] row = Arrays.copyOfRange(want, i * 16, (i + 1) * 16);
                assertClose("embedding of '" + texts.get(i) + "' on " + backend.name() + "/" + dtype, row, actual,
                        tolerance(dtype));
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("targets")
    void mpnetEmbedsAsPyTorchWithTheFoldersMeanPoolingAndNormalize(Backend backend, DType dtype)
            throws IOException {
        JsonNode e = expected().get("mpnet");
        List<String> texts = new ArrayList<>();
        e.get("texts").forEach(t -> texts.add(t.asText()));
        double[] want = reference().get("mpnet.embeddings").data();
        try (SentenceEmbedder embedder = SentenceEmbedder.load(source("mpnet"), backend,
                EmbeddingOptions.defaults().withDType(dtype).withBatchSize(2))) {
            assertEquals(Pooling.MEAN, embedder.pooling());
            assertEquals(64, embedder.maxLength());
            List<SentenceEmbedding> got = embedder.embed(texts);
            for (int i = 0; i < texts.size(); i++) {
                assertArrayEquals(ints(e.get("ids").get(i)), got.get(i).ids(), texts.get(i));
                double[] actual = new double[16];
                for (int j = 0; j < 16; j++) {
                    actual[j] = got.get(i).vector()[j];
                }
                assertClose("embedding of '" + texts.get(i) + "' on " + backend.name() + "/" + dtype,
                        Arrays.copyOfRange(want, i * 16, (i + 1) * 16), actual, tolerance(dtype));
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("targets")
    void anXlmRobertaRerankerScoresPairsAsPyTorch(Backend backend, DType dtype) throws IOException {
        JsonNode e = expected().get("xlmr-reranker");
        List<String> passages = new ArrayList<>();
        e.get("passages").forEach(t -> passages.add(t.asText()));
        try (CrossEncoder reranker = CrossEncoder.load(source("xlmr-reranker"), backend,
                RerankOptions.defaults().withDType(dtype).withBatchSize(2))) {
            assertEquals(64, reranker.maxLength());
            assertClose("logits on " + backend.name() + "/" + dtype, reference().get("xlmr-reranker.logits").data(),
                    reranker.score(e.get("query").asText(), passages), tolerance(dtype));
        }
    }

    /** xlmr/'s encoder with xlmr-st/'s sentence-transformers modules, in one folder as a user holds it. */
    static Path stFolder(Path dir) throws IOException {
        for (String f : List.of("config.json", "model.safetensors")) {
            Files.copy(resource("bert/xlmr/" + f), dir.resolve(f));
        }
        Path st = resource("bert/xlmr-st");
        try (Stream<Path> files = Files.walk(st)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path to = dir.resolve(st.relativize(f).toString());
                Files.createDirectories(to.getParent());
                Files.copy(f, to);
            }
        }
        return dir;
    }

    private void assertEmbeddings(String what, String name, List<SentenceEmbedding> got, int dim, JsonNode ids,
                                  DType dtype) throws IOException {
        double[] want = reference().get("xlmr-st." + name).data();
        for (int i = 0; i < got.size(); i++) {
            if (ids != null) {
                assertArrayEquals(ints(ids.get(i)), got.get(i).ids(), what + " ids of text " + i);
            }
            double[] actual = new double[dim];
            for (int j = 0; j < dim; j++) {
                actual[j] = got.get(i).vector()[j];
            }
            assertClose(what + " text " + i, Arrays.copyOfRange(want, i * dim, (i + 1) * dim), actual,
                    tolerance(dtype));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("targets")
    void promptsPoolingDenseNormalizeAndDimensionsAreAppliedAsSentenceTransformersApplies(Backend backend,
            DType dtype, @TempDir Path dir) throws IOException {
        Path folder = stFolder(dir);
        JsonNode e = expected().get("xlmr-st");
        List<String> texts = new ArrayList<>();
        e.get("texts").forEach(t -> texts.add(t.asText()));
        String on = " on " + backend.name() + "/" + dtype;
        EncoderSource source = EncoderSource.of(folder)
                .withTokenizer(resource("tokenize/unigram/xlmr-template/tokenizer.json"));
        EmbeddingOptions options = EmbeddingOptions.defaults().withDType(dtype).withBatchSize(3);
        try (SentenceEmbedder embedder = SentenceEmbedder.load(source, backend, options)) {
            assertEquals(8, embedder.dimension());
            assertEquals("query: ", embedder.prompt());
            assertEmbeddings("default prompt" + on, "query", embedder.embed(texts), 8, e.at("/ids/query"), dtype);
            assertEmbeddings("prompt_name passage" + on, "passage", embedder.embed(texts, "passage"), 8,
                    e.at("/ids/passage"), dtype);
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                    () -> embedder.embed(texts, "document"));
            assertTrue(bad.getMessage().contains("prompt name 'document' is not one of the model's prompts"
                    + " [passage, query]"), bad.getMessage());
        }
        try (SentenceEmbedder embedder = SentenceEmbedder.load(source, backend, options.withDimensions(4))) {
            assertEquals(4, embedder.dimension());
            assertEmbeddings("truncate_dim 4" + on, "query.4", embedder.embed(texts), 4, null, dtype);
        }
        try (SentenceEmbedder embedder = SentenceEmbedder.load(source, backend,
                options.withPooling(Pooling.WEIGHTED_MEAN))) {
            assertEmbeddings("weighted mean" + on, "weighted", embedder.embed(texts), 8, null, dtype);
        }
        try (SentenceEmbedder embedder = SentenceEmbedder.load(source, backend,
                options.withPooling(Pooling.LAST_TOKEN))) {
            assertEmbeddings("last token" + on, "last", embedder.embed(texts), 8, null, dtype);
        }
        try (SentenceEmbedder embedder = SentenceEmbedder.load(source, backend, options.withPrompt("passage: "))) {
            assertEmbeddings("literal prompt" + on, "passage", embedder.embed(texts), 8, null, dtype);
        }
    }

    private static void assertRefused(Path folder, String file, String from, String to, String message)
            throws IOException {
        Path f = folder.resolve(file);
        String before = Files.readString(f);
        assertTrue(before.contains(from), file + " holds " + from);
        Files.writeString(f, before.replace(from, to));
        try {
            Exception e = assertThrows(Exception.class, () -> SentenceEmbedder.load(EncoderSource.of(folder)
                    .withTokenizer(resource("tokenize/unigram/xlmr-template/tokenizer.json")),
                    Backends.load("ejml"), EmbeddingOptions.defaults()).close());
            assertTrue(e.getMessage().contains(message), file + ": " + e.getMessage());
        } finally {
            Files.writeString(f, before);
        }
    }

    @Test
    void whatTheModulesDoNotImplementIsRefusedByName(@TempDir Path dir) throws IOException {
        Path folder = stFolder(dir);
        assertRefused(folder, "modules.json", "models.Dense", "models.LayerNorm",
                "module type 'sentence_transformers.models.LayerNorm' is not supported");
        assertRefused(folder, "modules.json", "models.Pooling", "models.Normalize",
                "comes after a module it must precede");
        assertRefused(folder, "2_Dense/config.json", "activation.Tanh", "activation.Softplus",
                "activation_function 'torch.nn.modules.activation.Softplus' is not supported");
        assertRefused(folder, "2_Dense/config.json", "\"bias\": true", "\"bias\": true, \"scale\": 2",
                "keys attn4j does not implement for a Dense module: scale");
        assertRefused(folder, "1_Pooling/config.json", "\"include_prompt\": false",
                "\"include_prompt\": false, \"pooling_mode_attention\": true", "pooling_mode_attention");
        assertRefused(folder, "1_Pooling/config.json", "\"pooling_mode_max_tokens\": false",
                "\"pooling_mode_max_tokens\": true", "2 pooling modes are on");
        assertRefused(folder, "config_sentence_transformers.json", "\"default_prompt_name\": \"query\"",
                "\"default_prompt_name\": \"document\"", "default_prompt_name 'document' is not one of");
        assertRefused(folder, "config_sentence_transformers.json", "\"similarity_fn_name\"",
                "\"truncate_dim\": 4, \"similarity_fn_name\"", "keys attn4j does not implement in"
                        + " config_sentence_transformers.json: truncate_dim");
        Files.move(folder.resolve("2_Dense/model.safetensors"), folder.resolve("2_Dense/pytorch_model.bin"));
        assertRefused(folder, "modules.json", "models.Dense", "models.Dense", "holds pytorch_model.bin");
        Files.move(folder.resolve("2_Dense/pytorch_model.bin"), folder.resolve("2_Dense/model.safetensors"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SentenceEmbedder.load(
                EncoderSource.of(folder).withTokenizer(resource("tokenize/unigram/xlmr-template/tokenizer.json")),
                Backends.load("ejml"), EmbeddingOptions.defaults().withDimensions(9)));
        assertTrue(e.getMessage().contains("dimensions 9 exceeds the model's 8 output features"), e.getMessage());
        try (SentenceEmbedder split = SentenceEmbedder.load(EncoderSource.of(folder)
                .withTokenizer(resource("tokenize/unigram/xlmr-template/tokenizer.json")),
                Backends.load("ejml"), EmbeddingOptions.defaults().withLongTexts(LongTexts.SPLIT))) {
            e = assertThrows(IllegalArgumentException.class, () -> split.embed(List.of("a")));
            assertTrue(e.getMessage().contains("a prompt ('query: ') and LongTexts.SPLIT"), e.getMessage());
        }
    }
}
