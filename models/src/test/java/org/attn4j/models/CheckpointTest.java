package org.attn4j.models;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
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
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.generate.ChatModel;
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
            if (checkpoint.kind() == Checkpoint.Kind.DECODER) {
                assertEquals(DecoderConfig.Type.LLAMA, checkpoint.decoderConfig().type(), c[0].toString());
                assertTrue(checkpoint.tokenizer().isPresent(), c[0].toString());
                assertFalse(checkpoint.notes().isEmpty(), c[0].toString());
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
        try (ChatModel fromCheckpoint = checkpoint.chatModel(backend, DType.F32);
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
        try (CausalLM model = checkpoint.causalLM(Backends.load(), DType.F32, null)) {
            assertEquals(checkpoint.decoderConfig().vocabSize(), model.config().vocabSize());
            assertEquals(checkpoint.decoderConfig().layers(), model.config().layers());
            assertEquals("F32", model.census().name());
        }
    }

    @Test
    void aFolderQuantizedToAMixHoldsEveryTensorItHoldsAsFileUnderTheMixsName() throws Exception {
        Path decoder = resource("decoder/llama3_chat_tiny");
        int tensors;
        try (CausalLM model = Checkpoint.open(decoder).causalLM(Backends.load(), DType.F32, null)) {
            assertEquals("as in the file", model.census().name());
            tensors = model.census().tensors();
        }
        try (CausalLM model = Checkpoint.open(decoder).quantizedLM(Backends.load(), DType.F32, QuantMix.Q4_K_M)) {
            assertEquals("Q4_K_M", model.census().name());
            assertEquals(tensors, model.census().tensors(), model.census().toString());
            assertTrue(model.census().counts().keySet().stream().allMatch(t -> t == WeightType.F32 || t.isQuantized()
                    || t == WeightType.F16), model.census().toString());
        }
    }

    @Test
    void aCheckpointRefusesToBuildAModelOfTheOtherKindByName() throws Exception {
        Checkpoint decoder = Checkpoint.open(resource("decoder/llama3_chat_tiny"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> decoder.sentenceEmbedder(Backends.load(), EmbeddingOptions.defaults()));
        assertTrue(e.getMessage().startsWith("Checkpoint.sentenceEmbedder: "), e.getMessage());
        assertTrue(e.getMessage().endsWith("holds a decoder (llama), not an encoder"), e.getMessage());
        Checkpoint encoder = Checkpoint.open(resource("bert/tiny"));
        e = assertThrows(IllegalStateException.class, () -> encoder.causalLM(Backends.load(), DType.F32, null));
        assertTrue(e.getMessage().endsWith("holds an encoder, not a decoder"), e.getMessage());
        try (SentenceEmbedder embedder = encoder.sentenceEmbedder(Backends.load(), EmbeddingOptions.defaults())) {
            assertEquals(1, embedder.embed(List.of("attention")).size());
        }
    }
}
