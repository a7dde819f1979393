package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A server started with API keys answers every endpoint but {@code /health} only to a request that gives one of them
 * as {@code Authorization: Bearer KEY}; the others get OpenAI's 401 {@code invalid_api_key}, and no key is written
 * to the log.
 */
class ApiKeyTest {
    private static final String FIRST = "sk-attn4j-first-0123456789";
    private static final String SECOND = "sk-attn4j-second-abcdefghij";
    private static final String EMBED = "{\"model\": \"" + Fixtures.MINILM + "\", \"input\": \"a cat\"}";

    private static OpenAiServer server;

    @BeforeAll
    static void start() {
        server = OpenAiServer.start(Fixtures.encoders(), ServerOptions.defaults().withPort(0)
                .withApiKeys(List.of(FIRST, SECOND)));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static Http.Reply get(String path, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(Http.uri(server, path)).GET();
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return Http.send(b.build());
    }

    private static Http.Reply post(String path, String body, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(Http.uri(server, path)).header("Content-Type",
                "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return Http.send(b.build());
    }

    private static void assertRefused(Http.Reply r, String what) {
        assertEquals(401, r.status(), what + ": " + r.body());
        JsonNode e = r.error();
        assertEquals("invalid_request_error", e.get("type").asText(), what);
        assertEquals("invalid_api_key", e.get("code").asText(), what);
        assertFalse(r.body().contains(FIRST) || r.body().contains(SECOND), what + ": the answer names a key");
    }

    @Test
    void healthNeedsNoKey() {
        assertEquals(200, get("/health", null).status());
    }

    @Test
    void everyOtherEndpointRefusesARequestWithoutAKey() {
        assertRefused(get("/v1/models", null), "GET /v1/models");
        assertRefused(get("/v1/models/" + Fixtures.MINILM, null), "GET /v1/models/{name}");
        assertRefused(post("/v1/embeddings", EMBED, null), "POST /v1/embeddings");
        assertRefused(post("/v1/chat/completions", "{}", null), "POST /v1/chat/completions");
        assertRefused(get("/metrics", null), "GET /metrics");
        assertRefused(get("/no/such/url", null), "an unknown URL");
    }

    @Test
    void aWrongKeyOrSchemeIsRefused() {
        assertRefused(get("/v1/models", "Bearer sk-attn4j-first-012345678"), "a prefix of a key");
        assertRefused(get("/v1/models", "Bearer " + FIRST + "0"), "a key and one more character");
        assertRefused(get("/v1/models", "Basic " + FIRST), "another scheme");
        assertRefused(get("/v1/models", "Bearer "), "an empty key");
        assertRefused(get("/v1/models", FIRST), "a key without a scheme");
    }

    @Test
    void eitherKeyIsAccepted() {
        assertEquals(200, get("/v1/models", "Bearer " + FIRST).status());
        assertEquals(200, get("/v1/models", "bearer " + SECOND).status());
        Http.Reply r = post("/v1/embeddings", EMBED, "Bearer " + SECOND);
        assertEquals(200, r.status(), r.body());
        assertEquals(384, r.json().get("data").get(0).get("embedding").size());
    }

    @Test
    void noKeyReachesTheLog() {
        PrintStream err = System.err;
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8);
        System.setErr(capture);
        System.setOut(capture);
        try {
            get("/v1/models", "Bearer " + FIRST + "-wrong");
            post("/v1/embeddings", "{\"model\": \"" + Fixtures.MINILM + "\", \"input\": 1}", "Bearer " + FIRST);
            post("/v1/embeddings", "not json", "Bearer " + SECOND);
            get("/no/such/url", "Bearer " + SECOND);
        } finally {
            System.setErr(err);
            System.setOut(out);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertFalse(log.contains("sk-attn4j"), log);
    }
}
