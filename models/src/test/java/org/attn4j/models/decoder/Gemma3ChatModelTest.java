package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.generate.ChatResponse;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.Generator;
import org.attn4j.models.generate.StopReason;
import org.attn4j.models.io.SafeTensors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chat with a Gemma 3 folder: a tiny random {@code gemma3_text} decoder, the trimmed Gemma tokenizer fixture,
 * Gemma 3's own {@code tokenizer_config.json} (its chat template, {@code <end_of_turn>} as the EOS token) and a
 * generation config shaped like gemma-3's (two eos ids, {@code top_k} 64, {@code cache_implementation} hybrid).
 * The conversation is rendered by Gemma 3's template (the system turn folded into the first user turn), the reply
 * is the decoder's own greedy continuation, and {@code <end_of_turn>} is among the ids a reply stops at.
 */
class Gemma3ChatModelTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<Message> CHAT = List.of(Message.of(Map.of("role", "system", "content", "Be brief.")),
            Message.of(Map.of("role", "user", "content", "  Hi there!  ")));

    @TempDir
    Path dir;

    private Path folder() throws IOException {
        Map<String, Object> config = new LinkedHashMap<>(Map.of("model_type", "gemma3_text", "vocab_size", 2186,
                "hidden_size", 32, "intermediate_size", 64, "num_hidden_layers", 6, "num_attention_heads", 4,
                "num_key_value_heads", 1, "head_dim", 16, "query_pre_attn_scalar", 16, "sliding_window", 4));
        config.put("architectures", List.of("Gemma3ForCausalLM"));
        Files.writeString(dir.resolve("config.json"), JSON.writeValueAsString(config));
        SafeTensors.write(dir.resolve("model.safetensors"), GgufCheckpoints.randomDecoder(
                DecoderConfig.of(config, "gemma3"), WeightType.F32, 17), DType.F32, Map.of());
        copy("/org/attn4j/models/tokenize/llm/gemma/tokenizer.json", "tokenizer.json");
        copy("/org/attn4j/models/chat/checkpoints/google--gemma-3-4b-it/tokenizer_config.json",
                "tokenizer_config.json");
        Files.writeString(dir.resolve("generation_config.json"), "{\"bos_token_id\": 2, \"cache_implementation\":"
                + " \"hybrid\", \"do_sample\": true, \"eos_token_id\": [1, 7], \"pad_token_id\": 0, \"top_k\": 64,"
                + " \"top_p\": 0.95, \"transformers_version\": \"4.50.0.dev0\"}");
        return dir;
    }

    private void copy(String resource, String name) throws IOException {
        try (InputStream in = Gemma3ChatModelTest.class.getResourceAsStream(resource)) {
            Files.copy(in, dir.resolve(name));
        }
    }

    @Test
    void aGemma3FolderRendersItsOwnTemplateAnswersWithItsDecoderAndStopsAtEndOfTurn() throws IOException {
        Path folder = folder();
        Backend backend = Backends.load("ejml");
        try (ChatModel m = ChatModel.load(folder, backend, DType.F32);
             CausalLM lm = CausalLM.load(folder, backend, DType.F32)) {
            assertEquals(DecoderConfig.Type.GEMMA3, lm.config().type());
            int[] prompt = m.encode(CHAT, ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
            String rendered = "<bos><start_of_turn>user\nBe brief.\n\nHi there!<end_of_turn>\n"
                    + "<start_of_turn>model\n";
            assertArrayEquals(m.tokenizer().encode(rendered, false).ids(), prompt);
            assertEquals(m.tokenizer().id("<bos>").orElseThrow(), prompt[0]);
            int endOfTurn = m.tokenizer().id("<end_of_turn>").orElseThrow();
            assertTrue(Arrays.stream(m.stopTokens()).anyMatch(t -> t == endOfTurn), Arrays.toString(m.stopTokens()));
            assertEquals(64, m.defaults().topK());
            GenerationOptions greedy = m.defaults().withTemperature(0).withStopTokens().withMaxNewTokens(10);
            ChatResponse reply = m.chat(CHAT, greedy, (token, text) -> true);
            assertEquals(StopReason.LENGTH, reply.stopReason());
            assertArrayEquals(Generator.generate(lm, prompt, greedy, id -> { }), reply.tokens(),
                    "the reply is the decoder's greedy continuation of the rendered prompt");
        }
    }
}
