package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.models.ResponseFormatJsonObject;
import com.openai.models.ResponseFormatJsonSchema;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.chat.completions.StructuredChatCompletion;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.Generator;
import org.attn4j.models.grammar.JsonGrammar;
import org.attn4j.models.grammar.TokenGrammar;
import org.attn4j.models.grammar.TokenVocabulary;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code response_format} as users send it, through OpenAI's Java SDK (a schema given as JSON, a schema derived
 * from a Java class and the reply read back into it, {@code json_object} streamed with usage) and langchain4j's
 * {@code OpenAiChatModel} and {@code OpenAiStreamingChatModel} with a strict JSON schema. The model has random
 * weights, so only the grammar makes its replies JSON: each reply is checked against the schema, and its ids against
 * {@link Generator} in the same JVM held to the same grammar (the server answers what the model generates).
 */
class StructuredOutputTest {
    private static final String VERDICT = "{\"type\": \"object\", \"properties\": {\"color\": {\"type\": \"string\","
            + " \"enum\": [\"red\", \"green\", \"dark blue\"]}, \"ok\": {\"type\": \"boolean\"}, \"rating\": {\"enum\":"
            + " [1, 2, 3]}, \"note\": {\"type\": \"null\"}}, \"required\": [\"color\", \"ok\", \"rating\", \"note\"],"
            + " \"additionalProperties\": false}";
    private static final int CLIENTS = 16;

    private static OpenAiServer server;
    private static OpenAIClient openai;

    /** A reply the SDK reads back: its schema is derived from these fields. */
    public static class Verdict {
        public Shade shade;
        public boolean approved;
    }

    /** An enum the derived schema lists. */
    public enum Shade { LIGHT, DARK }

    @BeforeAll
    static void start() {
        server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                .withMaxActiveGenerations(CLIENTS));
        openai = OpenAIOkHttpClient.builder().baseUrl(server.baseUri().toString()).apiKey("unused").maxRetries(0)
                .build();
    }

    @AfterAll
    static void stop() {
        openai.close();
        server.close();
    }

    private static JsonNode json(String text) {
        try {
            return JsonRequest.MAPPER.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    /** @return the ids the model generates in this JVM for the conversation under the grammar */
    private static int[] inProcess(List<Message> messages, GenerationOptions options, JsonGrammar grammar) {
        ChatModel chat = Fixtures.chat();
        int[] prompt = chat.encode(messages, ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
        return Generator.generate(chat.model(), prompt, options.withGrammar(new TokenGrammar(grammar,
                TokenVocabulary.of(chat.tokenizer()))), id -> { });
    }

    private static void assertVerdict(String content) {
        JsonNode v = json(content);
        assertTrue(List.of("red", "green", "dark blue").contains(v.path("color").asText()), content);
        assertTrue(v.path("ok").isBoolean(), content);
        assertTrue(List.of(1, 2, 3).contains(v.path("rating").asInt(-1)) && v.get("rating").isInt(), content);
        assertTrue(v.get("note").isNull(), content);
        assertEquals(4, v.size(), content);
    }

    @Test
    void theSdksJsonSchemaGivesAValidReplyTheModelsOwnIds() {
        ResponseFormatJsonSchema.JsonSchema.Schema.Builder schema =
                ResponseFormatJsonSchema.JsonSchema.Schema.builder();
        json(VERDICT).fields().forEachRemaining(e -> schema.putAdditionalProperty(e.getKey(),
                JsonValue.from(JsonRequest.MAPPER.convertValue(e.getValue(), Object.class))));
        for (double temperature : new double[] {0, 1.0}) {
            ChatCompletion r = openai.chat().completions().create(ChatCompletionCreateParams.builder()
                    .model(Fixtures.CHAT).addUserMessage("Judge it.").temperature(temperature).seed(11)
                    .maxCompletionTokens(120).responseFormat(ResponseFormatJsonSchema.builder().jsonSchema(
                            ResponseFormatJsonSchema.JsonSchema.builder().name("verdict").strict(true)
                                    .schema(schema.build()).build()).build())
                    .putAdditionalBodyProperty("return_token_ids", JsonValue.from(true)).build());
            String content = r.choices().get(0).message().content().orElseThrow();
            assertEquals("stop", r.choices().get(0).finishReason().asString(), content);
            assertVerdict(content);
            Map<String, JsonValue> extra = r.choices().get(0)._additionalProperties();
            int[] ids = ((List<?>) extra.get("token_ids").convert(List.class)).stream()
                    .mapToInt(x -> ((Number) x).intValue()).toArray();
            int[] expected = inProcess(List.of(Message.user("Judge it.")), Fixtures.chat().defaults()
                    .withTemperature(temperature).withSeed(11).withMaxNewTokens(120),
                    JsonGrammar.fromSchema(json(VERDICT), true));
            assertArrayEquals(expected, ids, "temperature " + temperature);
        }
    }

    @Test
    void theSdkReadsTheReplyIntoTheClassItsSchemaCameFrom() {
        StructuredChatCompletion<Verdict> r = openai.chat().completions().create(ChatCompletionCreateParams.builder()
                .model(Fixtures.CHAT).addUserMessage("Approve it?").temperature(0.0).maxCompletionTokens(100)
                .responseFormat(Verdict.class).build());
        Verdict v = r.choices().get(0).message().content().orElseThrow();
        assertNotNull(v.shade);
    }

    @Test
    void aJsonObjectStreamWithUsageSaysWhatTheWholeAnswerSays() {
        ChatCompletionCreateParams.Builder params = ChatCompletionCreateParams.builder().model(Fixtures.CHAT)
                .addUserMessage("Any object.").temperature(0.0).maxCompletionTokens(40)
                .responseFormat(ResponseFormatJsonObject.builder().build());
        ChatCompletion whole = openai.chat().completions().create(params.build());
        String content = whole.choices().get(0).message().content().orElseThrow();
        assertTrue(JsonGrammar.anyObject().start().advance(content) != null, content);
        if (whole.choices().get(0).finishReason().asString().equals("stop")) {
            assertTrue(json(content).isObject(), content);
        }
        StringBuilder text = new StringBuilder();
        long[] usage = {-1};
        try (StreamResponse<ChatCompletionChunk> chunks = openai.chat().completions().createStreaming(params
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build())) {
            chunks.stream().forEach(c -> {
                c.usage().ifPresent(u -> usage[0] = u.completionTokens());
                c.choices().forEach(ch -> ch.delta().content().ifPresent(text::append));
            });
        }
        assertEquals(content, text.toString());
        assertEquals(whole.usage().orElseThrow().completionTokens(), usage[0]);
    }

    private static ResponseFormat langchainVerdict() {
        return ResponseFormat.builder().type(ResponseFormatType.JSON).jsonSchema(JsonSchema.builder().name("verdict")
                .rootElement(JsonObjectSchema.builder().addEnumProperty("color", List.of("red", "green", "dark blue"))
                        .addBooleanProperty("ok").required("color", "ok").additionalProperties(false).build())
                .build()).build();
    }

    @Test
    void langchain4jsStrictSchemaGivesAValidReplyWholeAndStreamed() throws Exception {
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(server.baseUri().toString()).apiKey("unused")
                .modelName(Fixtures.CHAT).temperature(0.0).maxTokens(80).maxRetries(0)
                .supportedCapabilities(Capability.RESPONSE_FORMAT_JSON_SCHEMA).strictJsonSchema(true).build();
        ChatRequest request = ChatRequest.builder().messages(UserMessage.from("Judge it."))
                .responseFormat(langchainVerdict()).build();
        ChatResponse whole = model.chat(request);
        JsonNode v = json(whole.aiMessage().text());
        assertTrue(List.of("red", "green", "dark blue").contains(v.path("color").asText()), whole.aiMessage().text());
        assertTrue(v.path("ok").isBoolean() && v.size() == 2, whole.aiMessage().text());
        OpenAiStreamingChatModel streaming = OpenAiStreamingChatModel.builder().baseUrl(server.baseUri().toString())
                .apiKey("unused").modelName(Fixtures.CHAT).temperature(0.0).maxTokens(80).strictJsonSchema(true)
                .build();
        StringBuilder parts = new StringBuilder();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        streaming.chat(request, new StreamingChatResponseHandler() {
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
        assertEquals(whole.tokenUsage().outputTokenCount(), streamed.tokenUsage().outputTokenCount());
    }

    /** Request {@code i}: a structured chat, greedy or sampled with a seed, of its own prompt and schema. */
    private static String body(int i) {
        String format = i % 3 == 0 ? "{\"type\": \"json_object\"}" : "{\"type\": \"json_schema\", \"json_schema\": "
                + "{\"name\": \"v\", \"strict\": true, \"schema\": " + VERDICT + "}}";
        return "{\"model\": \"" + Fixtures.CHAT + "\", \"messages\": [{\"role\": \"user\", \"content\": \"Judge "
                + "item " + i + "\"}], \"max_tokens\": " + (20 + 4 * (i % 5)) + ", \"temperature\": "
                + (i % 2 == 0 ? 0 : 0.9) + ", \"seed\": " + i + ", \"response_format\": " + format
                + ", \"return_token_ids\": true}";
    }

    private static String answer(Http.Reply reply) {
        assertEquals(200, reply.status(), reply.body());
        ObjectNode json = (ObjectNode) reply.json();
        json.remove("id");
        json.remove("created");
        return json.toString();
    }

    @Test
    void structuredAnswersAreByteIdenticalAloneAndAmongFifteenOthers() throws Exception {
        List<String> alone = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            alone.add(answer(Http.post(server, "/v1/chat/completions", body(i))));
        }
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<String>> together = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                int c = i;
                together.add(clients.submit(() -> {
                    go.await();
                    return answer(Http.post(server, "/v1/chat/completions", body(c)));
                }));
            }
            go.countDown();
            for (int i = 0; i < CLIENTS; i++) {
                assertEquals(alone.get(i), together.get(i).get(), "request " + i + " among " + CLIENTS);
            }
        } finally {
            clients.shutdownNow();
        }
    }

    private static void assertRefused(String format, String param, String named) {
        Http.Reply r = Http.post(server, "/v1/chat/completions", "{\"model\": \"" + Fixtures.CHAT + "\", "
                + "\"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}], \"max_tokens\": 4, \"response_format\": "
                + format + "}");
        assertEquals(400, r.status(), format + " -> " + r.body());
        JsonNode error = r.json().get("error");
        assertEquals(param, error.get("param").asText(), r.body());
        assertEquals("invalid_request_error", error.get("type").asText(), r.body());
        assertTrue(error.get("message").asText().contains(named), r.body());
    }

    private static String schema(String s) {
        return "{\"type\": \"json_schema\", \"json_schema\": {\"name\": \"s\", \"schema\": " + s + "}}";
    }

    @Test
    void badFormatsAndSchemasAreRefusedByName() {
        String at = "response_format.json_schema.schema";
        assertRefused("\"json\"", "response_format", "must be an object");
        assertRefused("{}", "response_format.type", "'response_format.type' is required");
        assertRefused("{\"type\": \"yaml\"}", "response_format.type", "'yaml'");
        assertRefused("{\"type\": \"json_object\", \"schema\": {}}", "response_format.schema", "schema");
        assertRefused("{\"type\": \"json_schema\"}", "response_format.json_schema", "'name' and 'schema'");
        assertRefused("{\"type\": \"json_schema\", \"json_schema\": {\"schema\": {}}}",
                "response_format.json_schema.name", "name");
        assertRefused("{\"type\": \"json_schema\", \"json_schema\": {\"name\": \"a b\", \"schema\": {}}}",
                "response_format.json_schema.name", "'a b'");
        assertRefused("{\"type\": \"json_schema\", \"json_schema\": {\"name\": \"s\"}}", at, "required");
        assertRefused("{\"type\": \"json_schema\", \"json_schema\": {\"name\": \"s\", \"schema\": {}, \"strict\": 1}}",
                "response_format.json_schema.strict", "true or false");
        assertRefused("{\"type\": \"json_schema\", \"json_schema\": {\"name\": \"s\", \"schema\": {}, \"extra\": 1}}",
                "response_format.json_schema.extra", "extra");
        assertRefused(schema("\"an object\""), at, "a schema must be an object, not a string");
        assertRefused(schema("[{\"type\": \"string\"}]"), at, "not an array");
        assertRefused(schema("{\"type\": \"text\"}"), at, "'text', which is not a JSON Schema type");
        assertRefused(schema("{\"type\": \"string\", \"pattern\": \"^a\"}"), at, "unsupported keyword 'pattern'");
        assertRefused(schema("{\"type\": \"object\", \"properties\": {\"d\": {\"type\": \"string\", \"format\": "
                + "\"date\"}}}"), at, "$.properties.d: unsupported keyword 'format'");
        assertRefused(schema("{\"type\": \"integer\", \"minimum\": 0}"), at, "'minimum'");
        assertRefused(schema("{\"$ref\": \"#/$defs/none\"}"), at, "#/$defs/none");
        assertRefused("{\"type\": \"json_schema\", \"json_schema\": {\"name\": \"s\", \"strict\": true, \"schema\": "
                + "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}}}", at,
                "additionalProperties");
        Http.Reply tools = Http.post(server, "/v1/chat/completions", "{\"model\": \"" + Fixtures.CHAT + "\", "
                + "\"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}], \"response_format\": {\"type\": "
                + "\"json_object\"}, \"tools\": [{\"type\": \"function\", \"function\": {\"parameters\": {}}}]}");
        assertEquals(400, tools.status(), tools.body());
        assertEquals("tools[0].function.name", tools.json().get("error").get("param").asText(), tools.body());
        Http.Reply good = Http.post(server, "/v1/chat/completions", "{\"model\": \"" + Fixtures.CHAT + "\", "
                + "\"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}], \"max_tokens\": 3, \"response_format\": "
                + "{\"type\": \"text\"}}");
        assertEquals(200, good.status(), good.body());
    }
}
