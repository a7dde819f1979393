package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ToolChoice;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.models.chat.ChatTemplate;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.tokenize.TokenizerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tools, tool calls, tool results, reasoning and template variables reach the chat template as transformers'
 * {@code apply_chat_template} receives them, and what the server cannot do with them is refused by name. The model is
 * the tiny random Llama 3 under Qwen3-0.6B's chat template (which shows tools and marks reasoning).
 */
class ChatToolsTest {
    private static final String QWEN = "qwen3-template-tiny";
    private static final String CHAT = "/v1/chat/completions";
    private static final String WEATHER = "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", "
            + "\"description\": \"The weather in a city\", \"parameters\": {\"type\": \"object\", \"properties\": "
            + "{\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}}";

    private static ChatModel qwen;
    private static OpenAiServer server;

    @TempDir
    static Path longer;

    /** The tiny Llama 3 read with 2,048 positions instead of 256, as a prompt with tools is longer. */
    @BeforeAll
    static void start() throws IOException {
        ChatModel base = Fixtures.chat();
        Path folder = Fixtures.folder("llama3_chat_tiny");
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : files.toList()) {
                Files.copy(f, longer.resolve(f.getFileName().toString()));
            }
        }
        Path config = longer.resolve("config.json");
        String json = Files.readString(config);
        assertTrue(json.contains("\"max_position_embeddings\": 256"), json);
        Files.writeString(config, json.replace("\"max_position_embeddings\": 256", "\"max_position_embeddings\": 2048"));
        qwen = ChatModel.of(CausalLM.load(longer, Backends.load("ejml"), DType.F32), base.tokenizer(),
                ChatTemplate.of(TokenizerConfig.read(Fixtures.folder("qwen3_template"))), base.generationConfig());
        server = OpenAiServer.start(new ServedModels().addChatModel(QWEN, qwen).addChatModel(Fixtures.CHAT, base),
                ServerOptions.defaults().withPort(0));
    }

    @AfterAll
    static void stop() {
        server.close();
        qwen.close();
    }

    /** @return the tool as transformers gets it: the request's JSON as dicts, keys in order */
    private static Object weatherTool() {
        return JsonRequest.MAPPER.convertValue(json(WEATHER), Object.class);
    }

    private static JsonNode json(String text) {
        try {
            return JsonRequest.MAPPER.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int[] promptIds(String body) {
        Http.Reply r = Http.post(server, CHAT, body);
        assertEquals(200, r.status(), r.body());
        JsonNode ids = r.json().get("choices").get(0).get("prompt_token_ids");
        int[] out = new int[ids.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ids.get(i).intValue();
        }
        return out;
    }

    @Test
    void toolsCallsResultsReasoningAndKwargsReachTheTemplateAsTransformersPassesThem() {
        int[] served = promptIds("{\"model\": \"" + QWEN + "\", \"max_tokens\": 1, \"return_token_ids\": true, "
                + "\"tools\": [" + WEATHER + "], \"chat_template_kwargs\": {\"enable_thinking\": false}, "
                + "\"messages\": [{\"role\": \"user\", \"content\": \"Weather in Paris?\"}, "
                + "{\"role\": \"assistant\", \"content\": \"\", \"reasoning_content\": \"Ask the tool.\", "
                + "\"tool_calls\": [{\"id\": \"abc123XYZ\", \"type\": \"function\", \"function\": "
                + "{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}}]}, "
                + "{\"role\": \"tool\", \"tool_call_id\": \"abc123XYZ\", \"content\": \"22 C\"}]}");
        List<Message> messages = List.of(Message.user("Weather in Paris?"),
                Message.assistant("").with("reasoning_content", "Ask the tool.").with("tool_calls",
                        List.of(Map.of("id", "abc123XYZ", "type", "function", "function",
                                Map.of("name", "get_weather", "arguments", Map.of("city", "Paris"))))),
                Message.of("tool", "22 C").with("tool_call_id", "abc123XYZ"));
        String text = qwen.template().render(messages, ChatTemplateOptions.defaults().withAddGenerationPrompt(true)
                .withTools(List.of(weatherTool())).withVariable("enable_thinking", false));
        assertTrue(text.contains("<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"get_weather\""), text);
        assertTrue(text.contains("{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}"), text);
        assertTrue(text.contains("<tool_response>\n22 C\n</tool_response>"), text);
        assertTrue(text.endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n"), text);
        assertArrayEquals(qwen.tokenizer().encode(text, false).ids(), served);
    }

    @Test
    void requiredOrANamedFunctionHoldsTheReplyToOneValidCall() {
        String time = "{\"type\": \"function\", \"function\": {\"name\": \"get_time\", \"parameters\": {\"type\": "
                + "\"object\", \"properties\": {\"zone\": {\"enum\": [\"UTC\", \"CET\"]}}, \"required\": [\"zone\"]}}}";
        for (String choice : List.of("\"required\"", "{\"type\": \"function\", \"function\": {\"name\": "
                + "\"get_time\"}}")) {
            for (int seed = 0; seed < 3; seed++) {
                Http.Reply r = Http.post(server, CHAT, "{\"model\": \"" + QWEN + "\", \"max_tokens\": 120, "
                        + "\"temperature\": 1, \"seed\": " + seed + ", \"tools\": [" + WEATHER + ", " + time + "], "
                        + "\"tool_choice\": " + choice + ", \"messages\": [{\"role\": \"user\", \"content\": "
                        + "\"Hi\"}]}");
                assertEquals(200, r.status(), r.body());
                JsonNode c = r.json().get("choices").get(0);
                if (c.get("finish_reason").asText().equals("length")) {
                    continue;
                }
                assertEquals("tool_calls", c.get("finish_reason").asText(), r.body());
                JsonNode call = c.get("message").get("tool_calls").get(0).get("function");
                JsonNode args = json(call.get("arguments").asText());
                if (choice.startsWith("{") || call.get("name").asText().equals("get_time")) {
                    assertEquals("get_time", call.get("name").asText(), r.body());
                    assertTrue(List.of("UTC", "CET").contains(args.path("zone").asText()), r.body());
                } else {
                    assertEquals("get_weather", call.get("name").asText(), r.body());
                    assertTrue(args.path("city").isTextual(), r.body());
                }
            }
        }
    }

    /**
     * langchain4j's tool loop: a request with {@code ToolChoice.REQUIRED} gets a call (the grammar makes a random model
     * write one, and the city an enum makes it finish), the client runs the tool and sends the call and its result
     * back, and the template renders them as it renders the same conversation in this JVM.
     */
    @Test
    void aLangchain4jToolCallRoundTrip() throws IOException {
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(server.baseUri().toString()).apiKey("unused")
                .modelName(QWEN).temperature(0.0).maxTokens(200).maxRetries(0).build();
        ToolSpecification weather = ToolSpecification.builder().name("get_weather")
                .description("The weather in a city").parameters(JsonObjectSchema.builder()
                        .addEnumProperty("city", List.of("Paris", "Rome")).required("city").build()).build();
        dev.langchain4j.data.message.UserMessage question = dev.langchain4j.data.message.UserMessage.from(
                "Weather in Paris?");
        ChatResponse first = model.chat(ChatRequest.builder().messages(question).toolSpecifications(weather)
                .toolChoice(ToolChoice.REQUIRED).build());
        AiMessage ai = first.aiMessage();
        assertTrue(ai.hasToolExecutionRequests(), String.valueOf(ai));
        ToolExecutionRequest call = ai.toolExecutionRequests().get(0);
        assertEquals("get_weather", call.name());
        @SuppressWarnings("unchecked")
        Map<String, Object> arguments = JsonRequest.MAPPER.readValue(call.arguments(), Map.class);
        assertTrue(List.of("Paris", "Rome").contains(arguments.get("city")), call.arguments());
        ChatResponse second = model.chat(ChatRequest.builder().messages(question, ai,
                ToolExecutionResultMessage.from(call, "22 C")).toolSpecifications(weather).maxOutputTokens(4).build());
        assertTrue(second.tokenUsage().outputTokenCount() > 0);
        List<Message> conversation = List.of(Message.user("Weather in Paris?"), Message.assistant("").with(
                "tool_calls", List.of(Map.of("id", call.id(), "type", "function", "function",
                        Map.of("name", "get_weather", "arguments", arguments)))),
                Message.of("tool", "22 C").with("tool_call_id", call.id()));
        Object tool = JsonRequest.MAPPER.convertValue(json("{\"type\": \"function\", \"function\": {\"name\": "
                + "\"get_weather\", \"description\": \"The weather in a city\", \"parameters\": {\"type\": \"object\", "
                + "\"properties\": {\"city\": {\"type\": \"string\", \"enum\": [\"Paris\", \"Rome\"]}}, \"required\": "
                + "[\"city\"]}}}"), Object.class);
        String text = qwen.template().render(conversation, ChatTemplateOptions.defaults().withAddGenerationPrompt(true)
                .withTools(List.of(tool)));
        assertTrue(text.contains("<tool_response>\n22 C\n</tool_response>"), text);
        assertEquals(qwen.tokenizer().encode(text, false).ids().length, second.tokenUsage().inputTokenCount());
    }

    @Test
    void toolChoiceNoneRendersNoTools() {
        int[] served = promptIds("{\"model\": \"" + QWEN + "\", \"max_tokens\": 1, \"return_token_ids\": true, "
                + "\"tools\": [" + WEATHER + "], \"tool_choice\": \"none\", "
                + "\"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}");
        String text = qwen.template().render(List.of(Message.user("Hi")),
                ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
        assertArrayEquals(qwen.tokenizer().encode(text, false).ids(), served);
    }

    @Test
    void aStreamedReplySaysWhatTheWholeOneSaysWithToolsAndReasoningRead() {
        String body = "\"model\": \"" + QWEN + "\", \"max_tokens\": 30, \"temperature\": 0, \"tools\": [" + WEATHER
                + "], \"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]";
        Http.Reply whole = Http.post(server, CHAT, "{" + body + "}");
        assertEquals(200, whole.status(), whole.body());
        JsonNode message = whole.json().get("choices").get(0).get("message");
        Http.Reply streamed = Http.post(server, CHAT, "{" + body + ", \"stream\": true}");
        assertEquals(200, streamed.status(), streamed.body());
        StringBuilder content = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        String finish = null;
        for (String line : streamed.body().split("\n")) {
            if (!line.startsWith("data: {")) {
                continue;
            }
            JsonNode choice = json(line.substring("data: ".length())).get("choices").get(0);
            JsonNode delta = choice.get("delta");
            if (delta.hasNonNull("content")) {
                content.append(delta.get("content").textValue());
            }
            if (delta.hasNonNull("reasoning_content")) {
                reasoning.append(delta.get("reasoning_content").textValue());
            }
            if (choice.hasNonNull("finish_reason")) {
                finish = choice.get("finish_reason").textValue();
            }
        }
        assertEquals(message.path("content").asText(""), content.toString());
        assertEquals(message.path("reasoning_content").asText(""), reasoning.toString());
        assertEquals(whole.json().get("choices").get(0).get("finish_reason").textValue(), finish);
    }

    static Stream<Arguments> refused() {
        String user = "\"messages\": [{\"role\": \"user\", \"content\": \"x\"}]";
        return Stream.of(
                Arguments.of(QWEN, user + ", \"tools\": []", "tools", "non-empty array"),
                Arguments.of(QWEN, user + ", \"tools\": {}", "tools", "non-empty array"),
                Arguments.of(QWEN, user + ", \"tools\": [{\"type\": \"function\"}]", "tools[0].function",
                        "must be an object"),
                Arguments.of(QWEN, user + ", \"tools\": [{\"type\": \"retrieval\", \"function\": {\"name\": \"f\"}}]",
                        "tools[0].type", "must be \"function\""),
                Arguments.of(QWEN, user + ", \"tools\": [{\"type\": \"function\", \"function\": {}}]",
                        "tools[0].function.name", "1 to 64 letters"),
                Arguments.of(QWEN, user + ", \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"a b\"}}]",
                        "tools[0].function.name", "1 to 64 letters"),
                Arguments.of(QWEN, user + ", \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", "
                        + "\"parameters\": [1]}}]", "tools[0].function.parameters", "JSON schema object"),
                Arguments.of(QWEN, user + ", \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", "
                        + "\"examples\": []}}]", "tools[0].function", "tools[0].function.examples is not supported"),
                Arguments.of(QWEN, user + ", \"tools\": [" + WEATHER + "], \"tool_choice\": \"sometimes\"",
                        "tool_choice", "'sometimes'"),
                Arguments.of(QWEN, user + ", \"tools\": [" + WEATHER + "], \"tool_choice\": 3", "tool_choice",
                        "not a number"),
                Arguments.of(QWEN, user + ", \"tools\": [" + WEATHER + "], \"tool_choice\": {\"type\": \"function\", "
                        + "\"function\": {\"name\": \"get_time\"}}", "tool_choice",
                        "'get_time', which 'tools' does not"),
                Arguments.of(QWEN, user + ", \"tools\": [" + WEATHER + ", {\"type\": \"function\", \"function\": "
                        + "{\"name\": \"f\", \"parameters\": {\"type\": \"object\", \"properties\": {\"d\": {\"type\": "
                        + "\"string\", \"pattern\": \"^a\"}}}}}], \"tool_choice\": \"required\"",
                        "tools[1].function.parameters", "JSON schema at $.properties.d: unsupported keyword 'pattern'"),
                Arguments.of(QWEN, user + ", \"tool_choice\": \"required\"", "tool_choice", "has no 'tools'"),
                Arguments.of(QWEN, user + ", \"tool_choice\": \"auto\"", "tool_choice", "has no 'tools'"),
                Arguments.of(QWEN, user + ", \"tools\": [" + WEATHER + "], \"parallel_tool_calls\": false",
                        "parallel_tool_calls", "not supported"),
                Arguments.of(Fixtures.CHAT, user + ", \"tools\": [" + WEATHER + "]", "tools",
                        "defines no tool-call format"),
                Arguments.of(QWEN, user + ", \"chat_template_kwargs\": [1]", "chat_template_kwargs",
                        "must be an object"),
                Arguments.of(QWEN, user + ", \"chat_template_kwargs\": {\"tools\": []}", "chat_template_kwargs",
                        "chat_template_kwargs.tools cannot be set"),
                Arguments.of(QWEN, "\"messages\": [{\"role\": \"tool\", \"content\": \"x\"}]", "messages",
                        "messages[0].tool_call_id is required"),
                Arguments.of(QWEN, "\"messages\": [{\"role\": \"user\", \"content\": \"x\", \"tool_calls\": []}]",
                        "messages", "only allowed on assistant"),
                Arguments.of(QWEN, "\"messages\": [{\"role\": \"user\", \"content\": \"x\", \"tool_call_id\": \"a\"}]",
                        "messages", "only allowed on tool messages"),
                Arguments.of(QWEN, "\"messages\": [{\"role\": \"user\", \"content\": \"x\"}, {\"role\": \"assistant\", "
                        + "\"tool_calls\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": "
                        + "\"{oops\"}}]}]", "messages", "messages[1].tool_calls[0].function.arguments is not JSON"),
                Arguments.of(QWEN, "\"messages\": [{\"role\": \"user\", \"content\": \"x\"}, {\"role\": \"assistant\", "
                        + "\"tool_calls\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": "
                        + "\"[1]\"}}]}]", "messages", "must be a JSON object"),
                Arguments.of(QWEN, "\"messages\": [{\"role\": \"user\", \"content\": \"x\", \"reasoning_content\": "
                        + "\"r\"}]", "messages", "reasoning_content is only allowed on assistant"),
                Arguments.of(QWEN, "\"messages\": [{\"role\": \"assistant\", \"content\": \"x\", \"refusal\": "
                        + "\"r\"}]", "messages", "messages[0].refusal is not supported"));
    }

    @ParameterizedTest
    @MethodSource("refused")
    void whatTheServerCannotDoWithToolsIsRefusedByName(String model, String body, String param, String says) {
        Http.Reply r = Http.post(server, CHAT, "{\"model\": \"" + model + "\", \"max_tokens\": 1, " + body + "}");
        assertEquals(400, r.status(), r.body());
        JsonNode error = r.json().get("error");
        assertEquals(param, error.get("param").textValue(), r.body());
        assertTrue(error.get("message").textValue().contains(says), r.body());
    }
}
