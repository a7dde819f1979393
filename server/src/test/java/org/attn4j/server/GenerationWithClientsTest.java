package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.Generator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Completions and chat completions as users reach them, through OpenAI's official Java SDK and langchain4j's
 * {@code OpenAiChatModel} / {@code OpenAiStreamingChatModel}: the token ids the server generates must be those of
 * {@link Generator} in the same JVM with the same prompt and options, whole and streamed.
 */
class GenerationWithClientsTest {
    private static OpenAiServer server;
    private static OpenAIClient openai;

    @BeforeAll
    static void start() {
        server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0));
        openai = OpenAIOkHttpClient.builder().baseUrl(server.baseUri().toString()).apiKey("unused").maxRetries(0)
                .build();
    }

    @AfterAll
    static void stop() {
        openai.close();
        server.close();
    }

    private static int[] ids(Map<String, JsonValue> properties, String name) {
        List<?> values = (List<?>) properties.get(name).convert(List.class);
        return values.stream().mapToInt(v -> ((Number) v).intValue()).toArray();
    }

    private static int[] inProcessChat(List<Message> messages, GenerationOptions options) {
        ChatModel chat = Fixtures.chat();
        int[] prompt = chat.encode(messages, ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
        return Generator.generate(chat.model(), prompt, options, id -> { });
    }

    private static ChatCompletionCreateParams.Builder chatParams(String user) {
        return ChatCompletionCreateParams.builder().model(Fixtures.CHAT).addSystemMessage("You are terse.")
                .addUserMessage(user).putAdditionalBodyProperty("return_token_ids", JsonValue.from(true));
    }

    @Test
    void greedyChatGivesTheGeneratorsIdsAndStopsAtTheCheckpointsEndOfTurn() {
        ChatCompletion r = openai.chat().completions().create(chatParams("Hello there!").temperature(0.0).build());
        List<Message> messages = List.of(Message.system("You are terse."), Message.user("Hello there!"));
        int room = 256 - Fixtures.chat().encode(messages, ChatTemplateOptions.defaults().withAddGenerationPrompt(true))
                .length;
        int[] expected = inProcessChat(messages, Fixtures.chat().defaults().withTemperature(0).withMaxNewTokens(room));
        ChatCompletion.Choice choice = r.choices().get(0);
        assertArrayEquals(expected, ids(choice._additionalProperties(), "token_ids"));
        assertEquals(Fixtures.chat().tokenizer().decode(expected), choice.message().content().orElseThrow());
        assertEquals(ChatCompletion.Choice.FinishReason.STOP, choice.finishReason());
        assertEquals(expected.length, r.usage().orElseThrow().completionTokens());
        assertEquals(256 - room, r.usage().orElseThrow().promptTokens());
    }

    @Test
    void seededSamplingFollowsTheCheckpointsDefaultsAndRepeats() {
        ChatCompletion first = openai.chat().completions().create(chatParams("Tell me a story.").seed(7)
                .maxCompletionTokens(24).build());
        ChatCompletion second = openai.chat().completions().create(chatParams("Tell me a story.").seed(7)
                .maxCompletionTokens(24).build());
        int[] expected = inProcessChat(List.of(Message.system("You are terse."), Message.user("Tell me a story.")),
                Fixtures.chat().defaults().withSeed(7).withMaxNewTokens(24));
        assertArrayEquals(expected, ids(first.choices().get(0)._additionalProperties(), "token_ids"));
        assertArrayEquals(expected, ids(second.choices().get(0)._additionalProperties(), "token_ids"));
    }

    @Test
    void aStreamedChatSaysWhatTheWholeOneSays() {
        ChatCompletionCreateParams params = chatParams("Stream it!").temperature(0.0).maxCompletionTokens(40)
                .build();
        String whole = openai.chat().completions().create(params).choices().get(0).message().content().orElseThrow();
        ChatCompletionCreateParams streamed = ChatCompletionCreateParams.builder().model(Fixtures.CHAT)
                .addSystemMessage("You are terse.").addUserMessage("Stream it!").temperature(0.0)
                .maxCompletionTokens(40).streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true)
                        .build()).build();
        StringBuilder text = new StringBuilder();
        List<String> finish = new ArrayList<>();
        long[] usage = {-1};
        try (StreamResponse<ChatCompletionChunk> chunks = openai.chat().completions().createStreaming(streamed)) {
            chunks.stream().forEach(c -> {
                c.usage().ifPresent(u -> usage[0] = u.completionTokens());
                for (ChatCompletionChunk.Choice ch : c.choices()) {
                    ch.delta().content().ifPresent(text::append);
                    ch.finishReason().ifPresent(f -> finish.add(f.asString()));
                }
            });
        }
        assertEquals(whole, text.toString());
        assertEquals(1, finish.size());
        assertTrue(usage[0] > 0);
    }

    @Test
    void completionsOfADecoderWithoutATemplateGiveTheGeneratorsIds() {
        int[] prompt = Fixtures.gpt2Tokenizer().encode("Hello, wor").ids();
        int[] expected = Generator.generate(Fixtures.gpt2(), prompt, Fixtures.gpt2Generation().options()
                .withTemperature(0).withMaxNewTokens(12), id -> { });
        Completion r = openai.completions().create(CompletionCreateParams.builder().model(Fixtures.GPT2)
                .prompt("Hello, wor").maxTokens(12).temperature(0.0)
                .putAdditionalBodyProperty("return_token_ids", JsonValue.from(true)).build());
        assertArrayEquals(expected, ids(r.choices().get(0)._additionalProperties(), "token_ids"));
        assertArrayEquals(prompt, ids(r.choices().get(0)._additionalProperties(), "prompt_token_ids"));
        assertEquals(prompt.length, r.usage().orElseThrow().promptTokens());
        StringBuilder streamed = new StringBuilder();
        try (StreamResponse<Completion> chunks = openai.completions().createStreaming(CompletionCreateParams
                .builder().model(Fixtures.GPT2).prompt("Hello, wor").maxTokens(12).temperature(0.0).build())) {
            chunks.stream().forEach(c -> c.choices().forEach(ch -> streamed.append(ch.text())));
        }
        assertEquals(r.choices().get(0).text(), streamed.toString());
    }

    @Test
    void aStopStringEndsTheTextBeforeIt() {
        Completion all = openai.completions().create(CompletionCreateParams.builder().model(Fixtures.GPT2)
                .prompt("abc").maxTokens(16).temperature(0.0).build());
        String text = all.choices().get(0).text();
        assertTrue(text.length() > 4, text);
        String stop = text.substring(3, 5);
        Completion cut = openai.completions().create(CompletionCreateParams.builder().model(Fixtures.GPT2)
                .prompt("abc").maxTokens(16).temperature(0.0).stop(stop).build());
        assertEquals(text.substring(0, text.indexOf(stop)), cut.choices().get(0).text());
        assertEquals(Completion.class, cut.getClass());
        assertEquals("stop", cut.choices().get(0).finishReason().asString());
    }

    @Test
    void theOfficialSdkSeesOpenAiErrorsForGeneration() {
        assertThrows(NotFoundException.class, () -> openai.chat().completions().create(
                ChatCompletionCreateParams.builder().model(Fixtures.GPT2).addUserMessage("hi").build()));
        BadRequestException tooMany = assertThrows(BadRequestException.class, () -> openai.chat().completions()
                .create(chatParams("hi").maxCompletionTokens(250).build()));
        assertEquals("context_length_exceeded", tooMany.code().orElseThrow());
        BadRequestException n = assertThrows(BadRequestException.class, () -> openai.chat().completions()
                .create(chatParams("hi").n(2).build()));
        assertEquals("n", n.param().orElseThrow());
    }

    @Test
    void langchain4jChatsWholeAndStreamed() throws Exception {
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(server.baseUri().toString()).apiKey("unused")
                .modelName(Fixtures.CHAT).temperature(0.0).maxTokens(30).maxRetries(0).build();
        ChatResponse whole = model.chat(UserMessage.from("Hi!"));
        int[] expected = inProcessChat(List.of(Message.user("Hi!")), Fixtures.chat().defaults().withTemperature(0)
                .withMaxNewTokens(30));
        assertEquals(Fixtures.chat().tokenizer().decode(expected), whole.aiMessage().text());
        assertEquals(expected.length, whole.tokenUsage().outputTokenCount());

        OpenAiStreamingChatModel streaming = OpenAiStreamingChatModel.builder().baseUrl(server.baseUri().toString())
                .apiKey("unused").modelName(Fixtures.CHAT).temperature(0.0).maxTokens(30).build();
        StringBuilder parts = new StringBuilder();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        streaming.chat(List.of(UserMessage.from("Hi!")), new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String text) {
                parts.append(text);
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        ChatResponse streamed = done.get(60, TimeUnit.SECONDS);
        assertEquals(whole.aiMessage().text(), parts.toString());
        assertEquals(whole.aiMessage().text(), streamed.aiMessage().text());
        assertFalse(parts.toString().isEmpty());
    }
}
