package org.attn4j.models.embed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.checkpoint.Pooling;
import org.attn4j.models.io.GgufWriter;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BERT encoders in GGUF files written as llama.cpp's converter writes them (its tensor names, its {@code bert.*} keys,
 * its WordPiece vocabulary with {@code ▁} word starts) from safetensors folders, embedded through {@link Checkpoint}
 * and compared with the folders' own embeddings.
 */
class GgufEncoderTest {
    private static final List<String> TEXTS = List.of("the cat sat on the mat .", "running", "",
            "hello world , hello cat");

    @TempDir
    Path dir;

    /** A random-weight BERT folder 64 wide (whole Q8_0 blocks), with the tiny fixture's WordPiece tokenizer. */
    private Path wideFolder() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("wide"));
        Files.copy(SentenceEmbedderTest.tiny().resolve("tokenizer.json"), folder.resolve("tokenizer.json"));
        Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"bert\", \"vocab_size\": 40,"
                + " \"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
                + " \"intermediate_size\": 128, \"max_position_embeddings\": 16, \"type_vocab_size\": 2,"
                + " \"layer_norm_eps\": 1e-12, \"hidden_act\": \"gelu\"}");
        SafeTensors.write(folder.resolve("model.safetensors"), CheckpointWeights.bert(40, 64, 2, 128, 16, 2, "",
                false), DType.F32, Map.of());
        return folder;
    }

    private static List<SentenceEmbedding> embed(Checkpoint checkpoint, EmbeddingOptions options) throws IOException {
        try (SentenceEmbedder e = SentenceEmbedder.from(checkpoint, Backends.load("ejml"), options)) {
            return e.embed(TEXTS);
        }
    }

    private static void assertClose(String what, List<SentenceEmbedding> expected, List<SentenceEmbedding> actual,
                                    double tolerance) {
        for (int t = 0; t < expected.size(); t++) {
            assertArrayEquals(expected.get(t).ids(), actual.get(t).ids(), what + ": ids of text " + t);
            float[] e = expected.get(t).vector();
            float[] a = actual.get(t).vector();
            assertEquals(e.length, a.length, what + ": length of text " + t);
            for (int i = 0; i < e.length; i++) {
                double abs = Math.abs((double) e[i] - a[i]);
                if (!(abs <= tolerance)) {
                    fail(String.format("%s: text %d index %d expected %.9g actual %.9g abs error %.3g rel error %.3g",
                            what, t, i, e[i], a[i], abs, abs / Math.abs(e[i])));
                }
            }
        }
    }

    @Test
    void anF32FileEmbedsExactlyAsItsSafetensorsFolder() throws IOException {
        for (Path folder : List.of(SentenceEmbedderTest.tiny(), wideFolder())) {
            Path file = dir.resolve(folder.getFileName() + "-f32.gguf");
            GgufEncoders.gguf(folder, WeightType.F32, 1).write(file);
            Checkpoint checkpoint = Checkpoint.open(file);
            assertEquals(Checkpoint.Kind.ENCODER, checkpoint.kind());
            assertEquals("bert", checkpoint.family());
            assertEquals(Pooling.MEAN, checkpoint.setup().pooling());
            EmbeddingOptions mean = EmbeddingOptions.defaults().withPooling(Pooling.MEAN);
            assertClose(folder + " F32", embed(Checkpoint.open(folder), mean), embed(checkpoint,
                    EmbeddingOptions.defaults()), 0);
        }
    }

    @Test
    void f16AndQ8FilesEmbedWithinTheirWeightTypesError() throws IOException {
        Path folder = wideFolder();
        List<SentenceEmbedding> expected = embed(Checkpoint.open(folder), EmbeddingOptions.defaults());
        for (Object[] c : new Object[][] {{WeightType.F16, 2e-3}, {WeightType.Q8_0, 2e-2}}) {
            Path file = dir.resolve("wide-" + c[0] + ".gguf");
            GgufEncoders.gguf(folder, (WeightType) c[0], 1).write(file);
            assertClose(folder + " " + c[0], expected, embed(Checkpoint.open(file), EmbeddingOptions.defaults()),
                    (double) c[1]);
        }
    }

    @Test
    void thePoolingTypeOfTheMetadataIsThePooling() throws IOException {
        Path folder = SentenceEmbedderTest.tiny();
        for (Object[] c : new Object[][] {{2, Pooling.CLS}, {3, Pooling.LAST_TOKEN}}) {
            Path file = dir.resolve("pooling-" + c[0] + ".gguf");
            GgufEncoders.gguf(folder, WeightType.F32, (int) c[0]).write(file);
            Pooling pooling = (Pooling) c[1];
            try (SentenceEmbedder e = SentenceEmbedder.from(Checkpoint.open(file), Backends.load("ejml"),
                    EmbeddingOptions.defaults())) {
                assertEquals(pooling, e.pooling());
                assertEquals("bert.pooling_type (" + pooling.name().toLowerCase(java.util.Locale.ROOT) + ")",
                        e.poolingStatedBy().orElseThrow());
                assertClose(file + " " + pooling, embed(Checkpoint.open(folder), EmbeddingOptions.defaults()
                        .withPooling(pooling).withNormalize(true)), e.embed(TEXTS), 0);
            }
        }
    }

    @Test
    void whatTheFileSaysThatAttn4jDoesNotHonourIsRefusedByName() throws IOException {
        Path folder = SentenceEmbedderTest.tiny();
        List<Object[]> cases = List.of(
            new Object[] {(Consumer<GgufWriter>) w -> w.string("general.architecture", "nomic-bert"),
                "general.architecture nomic-bert is an encoder attn4j does not run"},
            new Object[] {(Consumer<GgufWriter>) w -> w.float32("bert.attention.scale", 0.5f),
                "bert.attention.scale"},
            new Object[] {(Consumer<GgufWriter>) w -> w.bool("bert.attention.causal", true),
                "bert.attention.causal is true"},
            new Object[] {(Consumer<GgufWriter>) w -> w.uint32("bert.pooling_type", 4), "bert.pooling_type is 4"},
            new Object[] {(Consumer<GgufWriter>) w -> w.uint32("bert.pooling_type", 0), "bert.pooling_type is 0"},
            new Object[] {(Consumer<GgufWriter>) w -> w.tensor("cls.output.weight", HostTensor.of(new float[16], 1, 16)),
                "cls.output.weight"},
            new Object[] {(Consumer<GgufWriter>) w -> w.bool("tokenizer.ggml.add_bos_token", false),
                "tokenizer.ggml.add_bos_token is false"});
        Backend ejml = Backends.load("ejml");
        for (int i = 0; i < cases.size(); i++) {
            GgufWriter w = GgufEncoders.gguf(folder, WeightType.F32, 1);
            @SuppressWarnings("unchecked")
            Consumer<GgufWriter> change = (Consumer<GgufWriter>) cases.get(i)[0];
            change.accept(w);
            Path file = dir.resolve("refused-" + i + ".gguf");
            w.write(file);
            Exception e = assertThrows(Exception.class, () -> {
                try (SentenceEmbedder s = SentenceEmbedder.from(Checkpoint.open(file), ejml,
                        EmbeddingOptions.defaults())) {
                    s.embed(TEXTS);
                }
            });
            assertTrue(e.getMessage().contains((String) cases.get(i)[1]), e.getMessage());
        }
    }
}
