package org.attn4j.models.embed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
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
}
