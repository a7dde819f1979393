package org.attn4j.models.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.decoder.GgufCheckpoints;
import org.attn4j.models.embed.CrossEncoder;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.generate.GenerationConfig;
import org.attn4j.models.parameters.QuantMix;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointTest {
    private static final String READ = "attn4j reads a Hugging Face or sentence-transformers folder, a .safetensors,"
            + " .onnx or .gguf file, or a model jar (.jar, .zip)";

    @TempDir
    Path dir;

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(CheckpointTest.class.getResource("/org/attn4j/models/" + name).toURI());
    }

    @Test
    void eachKindOfUnreadablePathHasOneMessage() throws IOException {
        Path missing = dir.resolve("missing");
        Path text = Files.writeString(dir.resolve("notes.txt"), "hello");
        Path empty = Files.createDirectory(dir.resolve("empty"));
        for (String[] c : List.of(
                new String[] {missing.toString(), missing + ": no such file or folder; " + READ},
                new String[] {text.toString(), text + ": not a model file; " + READ},
                new String[] {empty.toString(), empty + ": a folder with no model in it (no config.json, no ONNX"
                        + " export); " + READ})) {
            Checkpoint.UnreadablePathException e = assertThrows(Checkpoint.UnreadablePathException.class,
                    () -> Checkpoint.open(Path.of(c[0])));
            assertEquals(c[1], e.getMessage());
        }
        Path pickle = Files.createDirectory(dir.resolve("pickle"));
        Files.write(pickle.resolve("pytorch_model.bin"), new byte[] {1});
        IOException e = assertThrows(IOException.class, () -> Checkpoint.open(pickle));
        assertEquals(pickle + " holds pytorch_model.bin, which attn4j does not read: save the model as"
                + " model.safetensors (or export it to ONNX)", e.getMessage());
    }

    @Test
    void everyDecoderFamilyIsRecognisedAsADecoderByItsModelType() throws IOException {
        for (DecoderConfig.Type type : DecoderConfig.Type.values()) {
            Path folder = Files.createDirectories(dir.resolve(type.name()));
            Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"" + type.modelType() + "\"}");
            Checkpoint checkpoint = Checkpoint.open(folder);
            assertEquals(Checkpoint.Kind.DECODER, checkpoint.kind(), type.modelType());
            assertEquals(type.modelType(), checkpoint.family());
            assertTrue(checkpoint.tokenizer().isEmpty(), type.modelType());
            NoSuchFileException none = assertThrows(NoSuchFileException.class, checkpoint::requireTokenizer);
            assertTrue(none.getMessage().contains("no tokenizer.json, no vocab.json and merges.txt"),
                    none.getMessage());
        }
    }

    @Test
    void openingForOneKindRefusesTheOtherBeforeReadingItsFiles() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("gpt"));
        Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"gpt2\"}");
        Files.writeString(folder.resolve("tokenizer.json"), "{}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Checkpoint.open(folder, Checkpoint.Kind.ENCODER));
        assertEquals(folder + ": a decoder (config.json's model_type gpt2), not an encoder", e.getMessage());
        Path onnx = resource("embed/tiny-onnx/model.onnx");
        e = assertThrows(IllegalArgumentException.class, () -> Checkpoint.open(onnx, Checkpoint.Kind.DECODER));
        assertEquals(onnx + ": an encoder (an ONNX file), not a decoder", e.getMessage());
    }

    @Test
    void eachFormatIsRecognisedAsWhatItHolds() throws Exception {
        Path decoder = resource("decoder/llama3_chat_tiny");
        Path gguf = dir.resolve("chat.gguf");
        GgufCheckpoints.byteLevelBpe(GgufCheckpoints.fromFolder(decoder, WeightType.F32), decoder,
                DecoderConfig.read(decoder).vocabSize(), "llama-bpe").write(gguf);
        Path onnx = resource("embed/tiny-onnx/model.onnx");
        Path jar = dir.resolve("encoder.jar");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(jar))) {
            for (String name : List.of("model.onnx", "vocab.txt")) {
                zip.putNextEntry(new ZipEntry(name));
                zip.write(Files.readAllBytes(onnx.resolveSibling(name)));
                zip.closeEntry();
            }
        }
        Object[][] cases = {
            {decoder, Checkpoint.Format.FOLDER, Checkpoint.Kind.DECODER},
            {decoder.resolve("model.safetensors"), Checkpoint.Format.SAFETENSORS, Checkpoint.Kind.DECODER},
            {gguf, Checkpoint.Format.GGUF, Checkpoint.Kind.DECODER},
            {resource("bert/tiny"), Checkpoint.Format.FOLDER, Checkpoint.Kind.ENCODER},
            {resource("bert/tiny/model.safetensors"), Checkpoint.Format.SAFETENSORS, Checkpoint.Kind.ENCODER},
            {onnx, Checkpoint.Format.ONNX, Checkpoint.Kind.ENCODER},
            {onnx.getParent(), Checkpoint.Format.FOLDER, Checkpoint.Kind.ENCODER},
            {jar, Checkpoint.Format.JAR, Checkpoint.Kind.ENCODER},
        };
        for (Object[] c : cases) {
            Checkpoint checkpoint = Checkpoint.open((Path) c[0]);
            assertEquals(c[1], checkpoint.format(), c[0].toString());
            assertEquals(c[2], checkpoint.kind(), c[0].toString());
            assertTrue(checkpoint.tokenizer().isPresent(), c[0].toString());
            assertFalse(checkpoint.notes().isEmpty(), c[0].toString());
            if (checkpoint.kind() == Checkpoint.Kind.DECODER) {
                assertEquals("llama", checkpoint.family(), c[0].toString());
                assertEquals(DecoderConfig.Type.LLAMA, CausalLM.config(checkpoint).type(), c[0].toString());
            } else {
                assertEquals("bert", checkpoint.family(), c[0].toString());
                assertFalse(checkpoint.parameters().asMap().isEmpty(), c[0].toString());
            }
        }
    }

    @Test
    void aChatModelBuiltFromTheCheckpointIsTheOneTheFolderLoads() throws Exception {
        Path folder = resource("decoder/llama3_chat_tiny");
        Backend backend = Backends.load();
        Checkpoint checkpoint = Checkpoint.open(folder);
        assertTrue(checkpoint.hasChatTemplate());
        List<Message> chat = List.of(Message.of("user", "What is attention?"));
        ChatTemplateOptions prompt = ChatTemplateOptions.defaults().withAddGenerationPrompt(true);
        try (ChatModel fromCheckpoint = ChatModel.from(checkpoint, backend, DType.F32);
             ChatModel loaded = ChatModel.load(folder, backend, DType.F32)) {
            int[] a = fromCheckpoint.stopTokens();
            int[] b = loaded.stopTokens();
            Arrays.sort(a);
            Arrays.sort(b);
            assertArrayEquals(b, a);
            assertEquals(loaded.defaults().toString(), fromCheckpoint.defaults().toString());
            assertArrayEquals(loaded.encode(chat, prompt), fromCheckpoint.encode(chat, prompt));
        }
    }

    @Test
    void aGgufCheckpointBuildsItsDecoderFromTheFileItReadOnce() throws Exception {
        Path decoder = resource("decoder/llama3_chat_tiny");
        Path gguf = dir.resolve("model.gguf");
        GgufCheckpoints.byteLevelBpe(GgufCheckpoints.fromFolder(decoder, WeightType.F32), decoder,
                DecoderConfig.read(decoder).vocabSize(), "llama-bpe").write(gguf);
        Checkpoint checkpoint = Checkpoint.open(gguf);
        assertTrue(checkpoint.notes().stream().anyMatch(n -> n.matches("weights: F32: F32 \\d+; [0-9.]+ MiB")),
                checkpoint.notes().toString());
        DecoderConfig config = CausalLM.config(checkpoint);
        GenerationConfig generation = GenerationConfig.of(checkpoint);
        try (CausalLM model = CausalLM.from(checkpoint, Backends.load(), DType.F32, null)) {
            assertEquals(config.vocabSize(), model.config().vocabSize());
            assertEquals(config.layers(), model.config().layers());
            assertEquals("F32", model.census().name());
        }
        assertEquals(GenerationConfig.fromGguf(checkpoint.gguf().orElseThrow()).options().toString(),
                generation.options().toString());
    }

    @Test
    void aFolderQuantizedToAMixHoldsEveryTensorItHoldsAsFileUnderTheMixsName() throws Exception {
        Path decoder = resource("decoder/llama3_chat_tiny");
        int tensors;
        try (CausalLM model = CausalLM.from(Checkpoint.open(decoder), Backends.load(), DType.F32, null)) {
            assertEquals("as in the file", model.census().name());
            tensors = model.census().tensors();
        }
        try (CausalLM model = CausalLM.quantized(Checkpoint.open(decoder), Backends.load(), DType.F32,
                QuantMix.Q4_K_M)) {
            assertEquals("Q4_K_M", model.census().name());
            assertEquals(tensors, model.census().tensors(), model.census().toString());
            assertTrue(model.census().counts().keySet().stream().allMatch(t -> t == WeightType.F32 || t.isQuantized()
                    || t == WeightType.F16), model.census().toString());
        }
    }

    @Test
    void aModelOfTheOtherKindIsRefusedByName() throws Exception {
        Checkpoint decoder = Checkpoint.open(resource("decoder/llama3_chat_tiny"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> SentenceEmbedder.from(decoder, Backends.load(), EmbeddingOptions.defaults()));
        assertEquals("SentenceEmbedder.from: " + decoder.path() + " holds a decoder (llama), not an encoder",
                e.getMessage());
        Checkpoint encoder = Checkpoint.open(resource("bert/tiny"));
        e = assertThrows(IllegalStateException.class, () -> CausalLM.from(encoder, Backends.load(), DType.F32, null));
        assertEquals("CausalLM.from: " + encoder.path() + " holds an encoder, not a decoder", e.getMessage());
        try (SentenceEmbedder embedder = SentenceEmbedder.from(encoder, Backends.load(),
                EmbeddingOptions.defaults())) {
            assertEquals(1, embedder.embed(List.of("attention")).size());
        }
    }

    @Test
    void anEncoderOffersItsTokenizerAndPoolingWithWhereEachCameFrom() throws Exception {
        Path folder = resource("bert/tiny");
        Checkpoint checkpoint = Checkpoint.open(folder);
        assertEquals(Pooling.CLS, checkpoint.setup().pooling());
        assertEquals(Boolean.TRUE, checkpoint.setup().normalize());
        assertEquals(Path.of("1_Pooling", "config.json").toString(), checkpoint.setup().statedBy());
        assertTrue(checkpoint.notes().contains("tokenizer: " + folder.resolve("tokenizer.json")),
                checkpoint.notes().toString());
        assertTrue(checkpoint.notes().contains("pooling: " + Path.of("1_Pooling", "config.json")),
                checkpoint.notes().toString());
        int[] ids = checkpoint.tokenizer().orElseThrow().encode("attention is all you need").ids();
        try (SentenceEmbedder embedder = SentenceEmbedder.from(checkpoint, Backends.load(),
                EmbeddingOptions.defaults())) {
            assertEquals(Pooling.CLS, embedder.pooling());
            assertEquals(checkpoint.setup().statedBy(), embedder.poolingStatedBy().orElseThrow());
            assertArrayEquals(ids, embedder.embed(List.of("attention is all you need")).get(0).ids());
        }

        Path onnx = resource("embed/tiny-onnx/model.onnx");
        Path bare = Files.createDirectory(dir.resolve("bare"));
        Files.copy(onnx, bare.resolve("encoder.onnx"));
        Checkpoint untokenized = Checkpoint.open(bare.resolve("encoder.onnx"));
        assertTrue(untokenized.tokenizer().isEmpty());
        assertEquals(EncoderSetup.SILENT, untokenized.setup());
        NoSuchFileException missing = assertThrows(NoSuchFileException.class,
                () -> CrossEncoder.from(untokenized, Backends.load(), org.attn4j.models.embed.RerankOptions.defaults()));
        assertTrue(missing.getMessage().contains("has no tokenizer: looked for tokenizer.json, encoder-tokenizer.json,"
                + " encoder_tokenizer.json, encoder.tokenizer.json, vocab.txt"), missing.getMessage());
        Path vocab = onnx.resolveSibling("vocab.txt");
        Checkpoint named = Checkpoint.open(bare.resolve("encoder.onnx"), Checkpoint.Kind.ENCODER, vocab);
        assertTrue(named.tokenizer().isPresent());
        assertTrue(named.notes().contains("tokenizer: " + vocab + " (given)"), named.notes().toString());
        assertThrows(NoSuchFileException.class, () -> Checkpoint.open(bare.resolve("encoder.onnx"),
                Checkpoint.Kind.ENCODER, bare.resolve("no-such-vocab.txt")));
    }
}
