package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad requests get OpenAI's error object with the right status and the parameter named, and never hurt the server:
 * after each one it still answers a good request.
 */
class BadInputTest {
    private static final String EMBED = "/v1/embeddings";
    private static final String CHAT = "/v1/chat/completions";
    private static final String COMPLETE = "/v1/completions";

    private static OpenAiServer server;

    @BeforeAll
    static void start() {
        server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @AfterEach
    void theServerStillAnswers() {
        Http.Reply r = Http.post(server, EMBED, "{\"model\": \"all-minilm-l6-v2\", \"input\": \"still here\"}");
        assertEquals(200, r.status(), r.body());
        assertEquals(384, r.json().get("data").get(0).get("embedding").size());
        assertEquals("timeout=30", r.header("Keep-Alive"), "the idle timeout, told to the client");
    }

    static Stream<Arguments> badRequests() {
        String m = "\"model\": \"all-minilm-l6-v2\"";
        String c = "\"model\": \"llama3-chat-tiny\"";
        String g = "\"model\": \"gpt2-tiny\"";
        return Stream.of(
                Arguments.of(EMBED, "{" + m + ", \"input\": ", 400, null, "not valid JSON"),
                Arguments.of(EMBED, "", 400, null, "empty"),
                Arguments.of(EMBED, "[1, 2]", 400, null, "must be a JSON object, not an array"),
                Arguments.of(EMBED, "\"text\"", 400, null, "must be a JSON object, not a string"),
                Arguments.of(EMBED, "{" + m + ", \"input\": \"a\"} {}", 400, null, "not valid JSON"),
                Arguments.of(EMBED, "{" + m + ", " + m + ", \"input\": \"a\"}", 400, null, "Duplicate field"),
                Arguments.of(EMBED, "{\"input\": \"a\"}", 400, "model", "'model' is required"),
                Arguments.of(EMBED, "{\"model\": 3, \"input\": \"a\"}", 400, "model", "must be a string"),
                Arguments.of(EMBED, "{" + m + "}", 400, "input", "'input' is required"),
                Arguments.of(EMBED, "{" + m + ", \"input\": 5}", 400, "input", "not a number"),
                Arguments.of(EMBED, "{" + m + ", \"input\": \"\"}", 400, "input", "empty string"),
                Arguments.of(EMBED, "{" + m + ", \"input\": []}", 400, "input", "empty array"),
                Arguments.of(EMBED, "{" + m + ", \"input\": [\"a\", null]}", 400, "input", "input[1] must be a string"),
                Arguments.of(EMBED, "{" + m + ", \"input\": [1, 2, 3]}", 400, "input", "token ids"),
                Arguments.of(EMBED, "{" + m + ", \"input\": \"a\", \"encoding_format\": \"hex\"}", 400,
                        "encoding_format", "'float' or 'base64'"),
                Arguments.of(EMBED, "{" + m + ", \"input\": \"a\", \"dimensions\": 0}", 400, "dimensions",
                        "must lie in"),
                Arguments.of(EMBED, "{" + m + ", \"input\": \"a\", \"dimensions\": 1e400}", 400, "dimensions",
                        "must lie in"),
                Arguments.of(EMBED, "{" + m + ", \"input\": \"a\", \"dimensions\": 2.5}", 400, "dimensions",
                        "must be an integer"),
                Arguments.of(EMBED, "{" + m + ", \"input\": \"a\", \"truncate\": \"yes\"}", 400, "truncate",
                        "true or false"),
                Arguments.of(EMBED, "{" + m + ", \"input\": \"a\", \"colour\": \"red\"}", 400, "colour",
                        "Unrecognized request argument supplied: colour"),
                Arguments.of(EMBED, "{\"model\": \"text-embedding-3-large\", \"input\": \"a\"}", 404, "model",
                        "does not exist"),
                Arguments.of(EMBED, "{\"model\": \"gpt2-tiny\", \"input\": \"a\"}", 404, "model",
                        "does not serve embeddings"),
                Arguments.of(EMBED, "{" + m + ", \"input\": \"" + "word ".repeat(300) + "\"}", 400, "input",
                        "302 tokens"),
                Arguments.of(EMBED, "{" + m + ", \"input\": " + "[".repeat(100_000) + "}", 400, null,
                        "nesting depth"),
                Arguments.of(CHAT, "{" + c + "}", 400, "messages", "'messages' is required"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": \"hi\"}", 400, "messages", "non-empty array"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\"}]}", 400, "messages",
                        "content is required"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"wizard\", \"content\": \"x\"}]}", 400,
                        "messages", "'wizard'"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": [{\"type\": "
                        + "\"image_url\", \"image_url\": {\"url\": \"x\"}}]}]}", 400, "messages", "text only"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"temperature\": \"hot\"}", 400, "temperature", "must be a number"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"temperature\": 3}", 400, "temperature", "must lie in [0, 2]"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"max_tokens\": -1}", 400, "max_tokens", "must lie in"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"max_tokens\": 100000}", 400, "max_tokens", "at most 4096"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"stop\": 5}", 400, "stop", "string or an array"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"stop\": [\"a\", \"b\", \"c\", \"d\", \"e\"]}", 400, "stop", "at most 4"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"tools\": [{\"type\": \"function\"}]}", 400, "tools[0].function", "must be an object"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"logprobs\": \"yes\"}", 400, "logprobs", "true or false"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"logprobs\": true, \"top_logprobs\": 21}", 400, "top_logprobs", "must lie in [0, 20]"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"top_logprobs\": 2}", 400, "top_logprobs", "is given only with"),
                Arguments.of(COMPLETE, "{" + g + ", \"prompt\": \"a\", \"logprobs\": -1}", 400, "logprobs",
                        "must lie in [0, 20]"),
                Arguments.of(COMPLETE, "{" + g + ", \"prompt\": \"a\", \"logprobs\": true}", 400, "logprobs",
                        "must be an integer"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                        + "\"stream_options\": {\"include_usage\": true}}", 400, "stream_options", "only allowed"),
                Arguments.of(CHAT, "{" + c + ", \"messages\": [{\"role\": \"user\", \"content\": \""
                        + "word ".repeat(300) + "\"}]}", 400, "messages", "context_length_exceeded"),
                Arguments.of(COMPLETE, "{" + g + "}", 400, "prompt", "'prompt' is required"),
                Arguments.of(COMPLETE, "{" + g + ", \"prompt\": [1, 500]}", 400, "prompt", "'prompt[1]' is 500"),
                Arguments.of(COMPLETE, "{" + g + ", \"prompt\": [\"a\", \"b\"]}", 400, "prompt", "one per request"),
                Arguments.of(COMPLETE, "{" + g + ", \"prompt\": \"a\", \"echo\": true}", 400, "echo",
                        "not supported"),
                Arguments.of(COMPLETE, "{" + g + ", \"prompt\": \"a\", \"presence_penalty\": 0.5}", 400,
                        "presence_penalty", "repetition_penalty"),
                Arguments.of(COMPLETE, "{" + g + ", \"prompt\": \"a\", \"seed\": \"7\"}", 400, "seed",
                        "must be an integer"));
    }

    @ParameterizedTest
    @MethodSource("badRequests")
    void aBadRequestIsAnOpenAiErrorNamingItsParameter(String path, String body, int status, String param,
                                                      String message) {
        Http.Reply r = Http.post(server, path, body);
        assertEquals(status, r.status(), r.body());
        assertEquals("application/json", r.contentType());
        JsonNode e = r.error();
        assertEquals(param == null ? null : param, e.get("param").isNull() ? null : e.get("param").textValue(),
                r.body());
        String text = e.get("message").textValue() + " " + e.get("code").asText("");
        assertTrue(text.contains(message), "expected '" + message + "' in " + r.body());
        if (status == 404) {
            assertEquals("model_not_found", e.get("code").textValue());
        }
    }

    @Test
    void bytesThatAreNotUtf8AreMalformedJson() {
        byte[] body = "{\"model\": \"all-minilm-l6-v2\", \"input\": \"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        Http.Reply r = Http.post(server, EMBED, body);
        assertEquals(400, r.status(), r.body());
        assertTrue(r.error().get("message").textValue().contains("not valid JSON"), r.body());
    }

    @Test
    void aTenMegabyteBodyIsRefusedWithoutBeingRead() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes("{\"model\": \"all-minilm-l6-v2\", \"input\": \"".getBytes(StandardCharsets.US_ASCII));
        b.writeBytes("a ".repeat(5 << 20).getBytes(StandardCharsets.US_ASCII));
        b.writeBytes("\"}".getBytes(StandardCharsets.US_ASCII));
        Http.Reply r = Http.post(server, EMBED, b.toByteArray());
        assertEquals(413, r.status(), r.body());
        assertEquals("request_too_large", r.error().get("code").textValue());
        assertEquals("close", r.header("Connection"), "the unread body ends the connection");
    }

    @Test
    void aTextOverTheModelsLengthIsEmbeddedTruncatedWhenTheRequestSaysSo() {
        String text = "word ".repeat(100_000);
        Http.Reply r = Http.post(server, EMBED, "{\"model\": \"all-minilm-l6-v2\", \"truncate\": true, \"input\": \""
                + text + "\"}");
        assertEquals(200, r.status(), r.body());
        float[] expected = Fixtures.minilm().embed(List.of(text)).get(0).vector();
        JsonNode got = r.json().get("data").get(0).get("embedding");
        float[] actual = new float[got.size()];
        for (int i = 0; i < actual.length; i++) {
            actual[i] = got.get(i).floatValue();
        }
        assertArrayEquals(expected, actual);
        assertEquals(256, r.json().get("usage").get("prompt_tokens").intValue());
    }

    @Test
    void unknownUrlsAndMethodsAreOpenAiErrors() {
        Http.Reply missing = Http.get(server, "/v1/engines");
        assertEquals(404, missing.status());
        assertTrue(missing.error().get("message").textValue().contains("GET /v1/engines"));
        Http.Reply method = Http.get(server, EMBED);
        assertEquals(405, method.status());
        method.error();
        Http.Reply model = Http.get(server, "/v1/models/nothing");
        assertEquals(404, model.status());
        assertEquals("model_not_found", model.error().get("code").textValue());
    }

    @Test
    void theLimitsAreTheOptions() {
        try (OpenAiServer small = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                .withMaxBodyBytes(2048).withMaxInputs(2).withMaxTokens(5))) {
            Http.Reply body = Http.post(small, EMBED, "{\"model\": \"all-minilm-l6-v2\", \"input\": \""
                    + "a".repeat(3000) + "\"}");
            assertEquals(413, body.status(), body.body());
            Http.Reply inputs = Http.post(small, EMBED, "{\"model\": \"all-minilm-l6-v2\", \"input\": [\"a\", \"b\", "
                    + "\"c\"]}");
            assertEquals(400, inputs.status(), inputs.body());
            assertTrue(inputs.error().get("message").textValue().contains("at most 2"), inputs.body());
            Http.Reply tokens = Http.post(small, COMPLETE, "{\"model\": \"gpt2-tiny\", \"prompt\": \"a\", "
                    + "\"max_tokens\": 6}");
            assertEquals(400, tokens.status(), tokens.body());
            assertEquals("max_tokens", tokens.error().get("param").textValue());
        }
    }
}
