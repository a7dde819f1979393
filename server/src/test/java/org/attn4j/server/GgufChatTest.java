package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.StreamSupport;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.WeightType;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.decoder.GgufCheckpoints;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.generate.Generator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GGUF decoder with a {@code tokenizer.chat_template} is served for chat completions through that template and its
 * tokenizer, as {@link ChatModel#load(Path, org.attn4j.api.Backend, DType)} reads the same file.
 */
class GgufChatTest {

    /** The models' tiny Llama 3 chat checkpoint written as llama.cpp's converter writes a GGUF file. */
    private static Path gguf(Path tmp) throws IOException {
        Path folder = Fixtures.folder("llama3_chat_tiny");
        Path file = tmp.resolve("llama3-chat-tiny.gguf");
        GgufCheckpoints.byteLevelBpe(GgufCheckpoints.fromFolder(folder, WeightType.F32), folder,
                DecoderConfig.read(folder).vocabSize(), "llama-bpe").write(file);
        return file;
    }

    @Test
    void aGgufFileWithAChatTemplateAnswersChatCompletionsWithTheIdsOfItsChatModel(@TempDir Path tmp)
            throws IOException {
        Path file = gguf(tmp);
        List<Message> messages = List.of(Message.system("Be brief."), Message.user("What is a cat?"));
        int[] expected;
        try (ChatModel local = ChatModel.load(file, Backends.load("ejml"), DType.F32)) {
            int[] prompt = local.encode(messages, ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
            expected = Generator.generate(local.model(), prompt, local.defaults().withTemperature(0)
                    .withMaxNewTokens(12), id -> { });
        }
        try (ServedModels models = new ServedModels().load("tiny-gguf", file, Backends.load("ejml"));
             OpenAiServer server = OpenAiServer.start(models, ServerOptions.defaults().withPort(0))) {
            JsonNode model = Http.get(server, "/v1/models/tiny-gguf").json();
            assertEquals("chat", model.get("kind").asText(), model.toString());
            Http.Reply r = Http.post(server, "/v1/chat/completions", "{\"model\": \"tiny-gguf\", \"messages\": ["
                    + "{\"role\": \"system\", \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": "
                    + "\"What is a cat?\"}], \"max_tokens\": 12, \"temperature\": 0, \"return_token_ids\": true}");
            assertEquals(200, r.status(), r.body());
            JsonNode ids = r.json().get("choices").get(0).get("token_ids");
            int[] served = StreamSupport.stream(ids.spliterator(), false).mapToInt(JsonNode::asInt).toArray();
            assertArrayEquals(expected, served, r.body());
        }
    }
}
