package org.attn4j.models.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.decoder.GgufCheckpoints;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.io.GgufWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The tiny Llama 3 chat checkpoint of {@link ChatModelTest} written as a GGUF file the way llama.cpp's converter
 * writes it (weights, byte-level BPE vocabulary with the {@code llama-bpe} pre-tokenizer, BOS and EOS from
 * {@code tokenizer_config.json}, {@code tokenizer.chat_template}): the rendered conversation has the folder's ids,
 * the reply is PyTorch's greedy reply, generation stops at the ids llama.cpp stops at (EOS, EOT where the file has
 * one, the end-of-turn tokens it finds by text), and the sampling defaults come from {@code general.sampling.*}.
 */
class GgufChatModelTest {

    @TempDir
    Path dir;

    static List<Backend> backends() {
        return ChatModelTest.backends().toList();
    }

    /** @return the checkpoint as a GGUF writer, ready for more metadata */
    static GgufWriter chatGguf() throws IOException {
        Path folder = ChatModelTest.folder();
        GgufWriter w = GgufCheckpoints.fromFolder(folder, WeightType.F32);
        return GgufCheckpoints.byteLevelBpe(w, folder, DecoderConfig.read(folder).vocabSize(), "llama-bpe");
    }

    private static ChatModel load(GgufWriter w, Backend backend) throws IOException {
        return ChatModel.load(Gguf.read(w.toBytes()), backend, DType.F32);
    }

    @ParameterizedTest
    @MethodSource("backends")
    void greedyReplyIsPyTorchsAndRunsOnToTheIdsLlamaCppStopsAt(Backend backend) throws IOException {
        Map<String, Object> expected = ChatModelTest.expected();
        List<Message> chat = ChatModelTest.messages(expected);
        int[] reply = ChatModelTest.ints(expected.get("chat_reply"));
        int listedStop = ((Number) expected.get("chat_stop")).intValue();
        Path file = dir.resolve("chat.gguf");
        chatGguf().write(file);
        try (ChatModel gguf = ChatModel.load(file, backend, DType.F32);
             ChatModel folder = ChatModel.load(ChatModelTest.folder(), backend, DType.F32)) {
            assertArrayEquals(ChatModelTest.ints(expected.get("chat_prompt")),
                    gguf.encode(chat, ChatTemplateOptions.defaults().withAddGenerationPrompt(true)));
            int[] stops = gguf.stopTokens();
            Arrays.sort(stops);
            assertArrayEquals(new int[] {2057, 2064, 2065}, stops, "<|end_of_text|>, <|eom_id|>, <|eot_id|>");
            assertEquals(0.0, gguf.defaults().temperature(), "no general.sampling.* keys: greedy");
            GenerationOptions options = gguf.defaults().withMaxNewTokens(8);
            ChatResponse r = gguf.chat(chat, options, (token, text) -> true);
            assertArrayEquals(reply, Arrays.copyOf(r.tokens(), reply.length), "PyTorch's greedy reply");
            assertEquals(listedStop, r.tokens()[reply.length], "the folder's generation config stops here; the GGUF"
                    + " file does not list it");
            assertEquals(folder.chat(chat, options, (token, text) -> true), r);
        }
    }

    @Test
    void anEndOfTurnIdTheFileCarriesStopsTheReply() throws IOException {
        Map<String, Object> expected = ChatModelTest.expected();
        int listedStop = ((Number) expected.get("chat_stop")).intValue();
        try (ChatModel m = load(chatGguf().uint32("tokenizer.ggml.eot_token_id", listedStop), Backends.load("ejml"));
             ChatModel folder = ChatModel.load(ChatModelTest.folder(), Backends.load("ejml"), DType.F32)) {
            StringBuilder streamed = new StringBuilder();
            ChatResponse r = m.chat(ChatModelTest.messages(expected), m.defaults(), (token, text) -> {
                streamed.append(text);
                return true;
            });
            assertArrayEquals(ChatModelTest.ints(expected.get("chat_reply")), r.tokens());
            assertEquals(StopReason.STOP_TOKEN, r.stopReason());
            assertEquals(listedStop, r.stopToken());
            assertEquals(folder.tokenizer().decode(r.tokens()), r.text());
            assertEquals(r.text(), streamed.toString());
        }
    }

    @Test
    void samplingDefaultsComeFromTheConvertersCopyOfTheGenerationConfig() throws IOException {
        GgufWriter w = chatGguf().float32("general.sampling.temp", 0.6f).float32("general.sampling.top_p", 0.9f)
                .put("general.sampling.top_k", new Gguf.Value(Gguf.ValueType.INT32, null, 40L))
                .float32("general.sampling.penalty_repeat", 1.1f)
                .put("general.sampling.penalty_last_n", new Gguf.Value(Gguf.ValueType.INT32, null, -1L));
        GenerationConfig g = GenerationConfig.fromGguf(Gguf.read(w.toBytes()));
        GenerationOptions o = g.options();
        assertTrue(g.doSample());
        assertEquals(0.6f, o.temperature(), 0.0);
        assertEquals(0.9f, o.topP(), 0.0);
        assertEquals(40, o.topK());
        assertEquals(1.1f, o.repetitionPenalty(), 0.0);
        assertEquals(2056, g.bosTokenId());
        try (ChatModel m = load(w, Backends.load("ejml"))) {
            GenerationOptions seeded = m.defaults().withSeed(7).withMaxNewTokens(6);
            List<Message> chat = List.of(Message.user("Hi"));
            assertEquals(m.chat(chat, seeded, (t, s) -> true), m.chat(chat, seeded, (t, s) -> true));
        }
    }

    @Test
    void whatTheFileAsksAndAttn4jCannotDoIsRefused() throws IOException {
        GgufWriter noTemplate = new GgufWriter();
        Gguf.Contents full = Gguf.read(chatGguf().toBytes());
        full.metadata().forEach((k, v) -> {
            if (!k.equals("tokenizer.chat_template")) {
                noTemplate.put(k, v);
            }
        });
        full.tensors().names().forEach(n -> noTemplate.tensor(n, full.tensors().get(n)));
        noTemplate.string("tokenizer.chat_template.tool_use", "{{ messages }}");
        String message = assertThrows(IllegalArgumentException.class, () -> load(noTemplate, Backends.load("ejml")))
                .getMessage();
        assertTrue(message.contains("no chat template (tokenizer.chat_template)") && message.contains("[tool_use]"),
                message);
        message = assertThrows(IllegalArgumentException.class, () -> GenerationConfig.fromGguf(Gguf.read(chatGguf()
                .put("general.sampling.mirostat", new Gguf.Value(Gguf.ValueType.INT32, null, 2L)).toBytes())))
                .getMessage();
        assertTrue(message.contains("general.sampling.mirostat to 2.0"), message);
        message = assertThrows(IllegalArgumentException.class, () -> GenerationConfig.fromGguf(Gguf.read(chatGguf()
                .float32("general.sampling.penalty_repeat", 1.3f).toBytes()))).getMessage();
        assertTrue(message.contains("over the last 64 tokens"), message);
        GenerationConfig ordered = GenerationConfig.fromGguf(Gguf.read(chatGguf()
                .string("general.sampling.sequence", "edskypmxt").toBytes()));
        assertEquals(List.of("general.sampling.sequence"), ordered.unknownKeys());
    }
}
