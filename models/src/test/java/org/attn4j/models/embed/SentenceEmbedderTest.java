package org.attn4j.models.embed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.models.bert.BertConfig;
import org.attn4j.models.bert.BertInput;
import org.attn4j.models.bert.BertModel;
import org.attn4j.models.io.SafeTensors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The embedding API on the random-weight BERT folder: tokens, pooling, normalisation, order, batches, errors. */
class SentenceEmbedderTest {
    private static final List<String> TEXTS = List.of("The cat sat on the mat.", "Hello, world!",
            "a big red bird is flying and not running", "", "Sky", "the small blue fish runs very fast ?");

    static Path tiny() {
        try {
            return Path.of(SentenceEmbedderTest.class.getResource("/org/attn4j/models/bert/tiny").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Backend> backends() {
        return Backends.describe().stream().filter(r -> r.availability().available())
                .map(r -> Backends.load(r.name()));
    }

    private static void assertClose(String what, float[] expected, float[] actual, double tolerance) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs(expected[i] - actual[i]);
            if (!(abs <= tolerance)) {
                fail(String.format("%s: index %d expected %.8g actual %.8g abs error %.3g rel error %.3g", what, i,
                        expected[i], actual[i], abs, abs / Math.abs(expected[i])));
            }
        }
    }

    /** The pooled vector of one text computed from the encoder's hidden states by the formula. */
    private static float[] expected(BertModel model, Backend backend, int[] ids, Pooling pooling, boolean normalize) {
        float[] h;
        try (Scope s = backend.newScope()) {
            h = model.forward(s, BertInput.pad(List.of(ids)), DType.F32).toFloatArray();
        }
        int d = 16;
        double[] v = new double[d];
        int n = ids.length;
        for (int j = 0; j < d; j++) {
            double acc = pooling == Pooling.MAX ? Double.NEGATIVE_INFINITY : 0;
            for (int i = 0; i < n; i++) {
                double x = h[i * d + j];
                acc = switch (pooling) {
                    case MAX -> Math.max(acc, x);
                    case CLS -> i == 0 ? x : acc;
                    case LAST_TOKEN -> i == n - 1 ? x : acc;
                    case WEIGHTED_MEAN -> acc + (i + 1) * x;
                    default -> acc + x;
                };
            }
            v[j] = switch (pooling) {
                case MEAN -> acc / n;
                case MEAN_SQRT_LEN -> acc / Math.sqrt(n);
                case WEIGHTED_MEAN -> acc / (n * (n + 1) / 2.0);
                default -> acc;
            };
        }
        double norm = 0;
        for (double x : v) {
            norm += x * x;
        }
        float[] out = new float[d];
        for (int j = 0; j < d; j++) {
            out[j] = (float) (normalize ? v[j] / Math.sqrt(norm) : v[j]);
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void everyPoolingEqualsItsFormulaInTheOriginalOrder(Backend backend) throws IOException {
        BertModel model = BertModel.load(SafeTensors.readCheckpoint(tiny()).tensors(),
                BertConfig.read(tiny().resolve("config.json")));
        for (Pooling pooling : Pooling.values()) {
            for (boolean normalize : new boolean[] {true, false}) {
                EmbeddingOptions options = EmbeddingOptions.defaults().withPooling(pooling).withNormalize(normalize)
                        .withBatchSize(4);
                try (SentenceEmbedder e = SentenceEmbedder.load(tiny(), backend, options)) {
                    List<SentenceEmbedding> out = e.embed(TEXTS);
                    assertEquals(TEXTS.size(), out.size());
                    for (int i = 0; i < TEXTS.size(); i++) {
                        SentenceEmbedding one = out.get(i);
                        assertEquals(TEXTS.get(i), one.text());
                        assertClose(pooling + " normalize=" + normalize + " text " + i + " on " + backend.name(),
                                expected(model, backend, one.ids(), pooling, normalize), one.vector(), 1e-5);
                    }
                }
            }
        }
    }

    @Test
    void idsAreTheWordPiecesBetweenClsAndSep() throws IOException {
        try (SentenceEmbedder e = SentenceEmbedder.load(tiny(), Backends.load("ejml"), EmbeddingOptions.defaults())) {
            assertArrayEquals(new int[] {2, 5, 7, 9, 10, 5, 11, 15, 3}, e.embed(TEXTS.get(0)).ids());
            assertArrayEquals(new int[] {2, 3}, e.embed("").ids());
            assertArrayEquals(new int[] {2, 13, 20, 3}, e.embed("running").ids());
        }
    }

    @Test
    void tokenCountIsTheLengthBeforeTruncation() throws IOException {
        try (SentenceEmbedder e = SentenceEmbedder.load(tiny(), Backends.load("ejml"),
                EmbeddingOptions.defaults().withMaxLength(5))) {
            assertEquals(9, e.tokenCount(TEXTS.get(0)));
            assertEquals(5, e.embed(TEXTS.get(0)).ids().length);
            assertEquals(2, e.tokenCount(""));
            assertEquals(4, e.tokenCount("running"));
            assertEquals(e.embed("running").ids().length, e.tokenCount("running"));
        }
    }

    @Test
    void theFolderDecidesPoolingAndNormalisationUnlessTheOptionsDo() throws IOException {
        Backend ejml = Backends.load("ejml");
        try (SentenceEmbedder e = SentenceEmbedder.load(tiny(), ejml, EmbeddingOptions.defaults())) {
            assertEquals(Pooling.CLS, e.pooling());
            assertTrue(e.normalizes());
            assertEquals(12, e.maxLength());
            assertEquals(16, e.dimension());
            float[] v = e.embed("hello world").vector();
            double norm = 0;
            for (float x : v) {
                norm += x * x;
            }
            assertEquals(1.0, norm, 1e-6);
        }
        try (SentenceEmbedder e = SentenceEmbedder.load(tiny(), ejml,
                EmbeddingOptions.defaults().withPooling(Pooling.MAX).withNormalize(false).withMaxLength(5))) {
            assertEquals(Pooling.MAX, e.pooling());
            assertFalse(e.normalizes());
            assertEquals(5, e.embed(TEXTS.get(2)).ids().length);
        }
    }

    @Test
    void aClosedEmbedderAndBadArgumentsAreRefused() throws IOException {
        SentenceEmbedder e = SentenceEmbedder.load(tiny(), Backends.load("ejml"), EmbeddingOptions.defaults());
        assertThrows(IllegalArgumentException.class, () -> e.embed(java.util.Arrays.asList("a", null)));
        e.close();
        assertThrows(IllegalStateException.class, () -> e.embed(List.of("a")));
        assertThrows(IllegalArgumentException.class, () -> EmbeddingOptions.defaults().withMaxLength(1));
        assertThrows(IllegalArgumentException.class, () -> EmbeddingOptions.defaults().withBatchSize(0));
        assertThrows(IllegalArgumentException.class, () -> SentenceEmbedder.load(tiny(), Backends.load("ejml"),
                EmbeddingOptions.defaults().withMaxLength(13)));
    }

    @Test
    void missingFilesAndUnknownModelsAreNamed(@TempDir Path dir) throws IOException {
        Backend ejml = Backends.load("ejml");
        assertThrows(NoSuchFileException.class,
                () -> SentenceEmbedder.load(dir.resolve("absent"), ejml, EmbeddingOptions.defaults()));
        Files.copy(tiny().resolve("config.json"), dir.resolve("config.json"));
        Files.copy(tiny().resolve("model.safetensors"), dir.resolve("model.safetensors"));
        NoSuchFileException missing = assertThrows(NoSuchFileException.class,
                () -> SentenceEmbedder.load(dir, ejml, EmbeddingOptions.defaults()));
        assertTrue(missing.getMessage().contains("tokenizer.json"), missing.getMessage());
        Files.writeString(dir.resolve("config.json"), "{\"model_type\": \"t5\"}");
        IOException unknown = assertThrows(IOException.class,
                () -> SentenceEmbedder.load(dir, ejml, EmbeddingOptions.defaults()));
        assertTrue(unknown.getMessage().contains("model_type 't5'"), unknown.getMessage());
    }

    @Test
    void splitReadsALongTextInWindowsAndAveragesThemByTheirTokens() throws IOException {
        Backend ejml = Backends.load("ejml");
        String t1 = "the cat sat on the mat .";
        String t2 = "hello world";
        EmbeddingOptions nine = EmbeddingOptions.defaults().withPooling(Pooling.MEAN).withMaxLength(9);
        float[] p1;
        float[] p2;
        float[] whole;
        try (SentenceEmbedder raw = SentenceEmbedder.load(tiny(), ejml, nine.withNormalize(false))) {
            p1 = raw.embed(t1).vector();
            p2 = raw.embed(t2).vector();
        }
        try (SentenceEmbedder e = SentenceEmbedder.load(tiny(), ejml, nine)) {
            whole = e.embed(t1).vector();
        }
        try (SentenceEmbedder split = SentenceEmbedder.load(tiny(), ejml, nine.withLongTexts(LongTexts.SPLIT))) {
            assertEquals(LongTexts.SPLIT, split.longTexts());
            SentenceEmbedding repeated = split.embed(t1 + " " + t1 + " " + t1);
            assertClose("three equal windows", whole, repeated.vector(), 1e-6);
            assertEquals(23, repeated.ids().length, "every token of the text, [CLS] and [SEP] once");

            float[] want = new float[p1.length];
            double norm = 0;
            for (int j = 0; j < want.length; j++) {
                double v = (7.0 * p1[j] + 2.0 * p2[j]) / 9.0;
                want[j] = (float) v;
                norm += v * v;
            }
            for (int j = 0; j < want.length; j++) {
                want[j] = (float) (want[j] / Math.sqrt(norm));
            }
            assertClose("windows of 7 and 2 tokens", want, split.embed(t1 + " " + t2).vector(), 1e-6);
            assertClose("a text that fits is one window", whole, split.embed(t1).vector(), 0);
        }
    }
}
