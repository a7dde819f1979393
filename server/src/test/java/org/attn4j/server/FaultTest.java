package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Clients that misbehave at the socket: one that goes away in the middle of a stream, one that stops sending its
 * body, one that sends less than it announced (both answered with {@code Connection: close}); and full queues (429
 * with {@code Retry-After}) and the per-request timeout. After each, the server answers as before and holds no slot.
 */
class FaultTest {
    /** A greedy run of the tiny chat model that takes 200 steps: its continuation repeats and never stops. */
    private static final String LONG_COMPLETION = "{\"model\": \"llama3-chat-tiny\", \"prompt\": \"The capital of "
            + "France is\", \"max_tokens\": 200, \"temperature\": 0, \"stream\": true}";

    private static Socket send(OpenAiServer server, String path, String body) throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        s.setSoTimeout(30_000);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = s.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        return s;
    }

    /** Reads until the text appears; fails if the connection ends first. */
    private static String readUntil(InputStream in, String text) throws IOException {
        StringBuilder seen = new StringBuilder();
        byte[] buffer = new byte[1024];
        while (!seen.toString().contains(text)) {
            int n = in.read(buffer);
            if (n < 0) {
                throw new AssertionError("the connection ended before '" + text + "': " + seen);
            }
            seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
        }
        return seen.toString();
    }

    private static JsonNode health(OpenAiServer server) {
        Http.Reply r = Http.get(server, "/health");
        assertEquals(200, r.status(), r.body());
        return r.json();
    }

    private static JsonNode awaitHealth(OpenAiServer server, Predicate<JsonNode> condition) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode h = health(server);
        while (!condition.test(h)) {
            if (System.nanoTime() > until) {
                throw new AssertionError("the server's health never became as expected: " + h);
            }
            Thread.sleep(5);
            h = health(server);
        }
        return h;
    }

    private static void answersAsBefore(OpenAiServer server) {
        Http.Reply r = Http.post(server, "/v1/chat/completions", "{\"model\": \"llama3-chat-tiny\", \"messages\": "
                + "[{\"role\": \"user\", \"content\": \"Hi\"}], \"max_tokens\": 4, \"temperature\": 0}");
        assertEquals(200, r.status(), r.body());
        JsonNode h = health(server);
        assertEquals(0, h.get("generations").get("running").intValue(), h.toString());
        assertEquals(0, h.get("generations").get("waiting").intValue(), h.toString());
    }

    @Test
    void aClientThatLeavesMidStreamStopsItsGenerationAndFreesItsSlot() throws Exception {
        try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0))) {
            for (int i = 0; i < 3; i++) {
                long before = health(server).get("generations").get("abandoned").longValue();
                try (Socket s = send(server, "/v1/completions", LONG_COMPLETION)) {
                    readUntil(s.getInputStream(), "data: {");
                    s.setSoLinger(true, 0);
                }
                JsonNode h = awaitHealth(server, x -> x.get("generations").get("running").intValue() == 0);
                assertEquals(before + 1, h.get("generations").get("abandoned").longValue(), h.toString());
            }
            try (Socket s = send(server, "/v1/completions", LONG_COMPLETION)) {
                String all = readUntil(s.getInputStream(), "data: [DONE]");
                assertTrue(all.contains("\"finish_reason\":\"length\""), all);
            }
            answersAsBefore(server);
        }
    }

    @Test
    void aBodyThatStopsComingOrEndsShortIsAnErrorAndTheServerGoesOn() throws Exception {
        try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                .withIdleTimeout(Duration.ofMillis(300)))) {
            try (Socket slow = new Socket("127.0.0.1", server.port())) {
                slow.setSoTimeout(30_000);
                slow.getOutputStream().write(("POST /v1/embeddings HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
                        + "100\r\n\r\n{\"model\": ").getBytes(StandardCharsets.US_ASCII));
                slow.getOutputStream().flush();
                answersAsBefore(server);
                byte[] rest = slow.getInputStream().readAllBytes();
                String answer = new String(rest, StandardCharsets.UTF_8);
                assertTrue(answer.isEmpty() || answer.startsWith("HTTP/1.1 408")
                        && answer.toLowerCase(Locale.ROOT).contains("\r\nconnection: close\r\n"), answer);
            }
            try (Socket shortBody = new Socket("127.0.0.1", server.port())) {
                shortBody.getOutputStream().write(("POST /v1/embeddings HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Content-Length: 1000\r\n\r\n{\"model\"").getBytes(StandardCharsets.US_ASCII));
                shortBody.shutdownOutput();
                shortBody.setSoTimeout(30_000);
                String answer = new String(shortBody.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(answer.startsWith("HTTP/1.1 4")
                        && answer.toLowerCase(Locale.ROOT).contains("\r\nconnection: close\r\n"), answer);
            }
            answersAsBefore(server);
        }
    }

    @Test
    void aFullEmbeddingsQueueAnswers429WithRetryAfter() throws Exception {
        try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                .withMaxQueuedEmbeddings(1).withRetryAfter(Duration.ofSeconds(2)))) {
            StringBuilder big = new StringBuilder("{\"model\": \"all-minilm-l6-v2\", \"input\": [");
            for (int i = 0; i < 8; i++) {
                big.append(i == 0 ? "" : ", ").append('"').append(("text " + i + " ").repeat(120)).append('"');
            }
            big.append("], \"truncate\": true}");
            CompletableFuture<Http.Reply> first = CompletableFuture.supplyAsync(() -> Http.post(server,
                    "/v1/embeddings", big.toString()));
            awaitHealth(server, h -> h.get("embeddings").get("running").intValue() > 0);
            CompletableFuture<Http.Reply> second = CompletableFuture.supplyAsync(() -> Http.post(server,
                    "/v1/embeddings", "{\"model\": \"all-minilm-l6-v2\", \"input\": \"queued\"}"));
            awaitHealth(server, h -> h.get("embeddings").get("waiting").intValue() == 1);
            Http.Reply third = Http.post(server, "/v1/embeddings", "{\"model\": \"all-minilm-l6-v2\", \"input\": "
                    + "\"refused\"}");
            assertEquals(429, third.status(), third.body());
            assertEquals("2", third.retryAfter());
            assertEquals("rate_limit_exceeded", third.error().get("code").textValue());
            assertEquals(200, first.get(120, TimeUnit.SECONDS).status());
            assertEquals(200, second.get(120, TimeUnit.SECONDS).status());
        }
    }

    @Test
    void generationsBeyondTheSlotsAndTheQueueAnswer429WithRetryAfter() throws Exception {
        try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                .withMaxActiveGenerations(1).withMaxQueuedGenerations(1))) {
            List<Socket> open = new ArrayList<>();
            try {
                Socket first = send(server, "/v1/completions", LONG_COMPLETION);
                open.add(first);
                readUntil(first.getInputStream(), "data: {");
                Socket second = send(server, "/v1/completions", LONG_COMPLETION);
                open.add(second);
                awaitHealth(server, h -> h.get("generations").get("waiting").intValue() == 1);
                Http.Reply third = Http.post(server, "/v1/completions", LONG_COMPLETION);
                assertEquals(429, third.status(), third.body());
                assertEquals("1", third.retryAfter());
                for (Socket s : open) {
                    assertTrue(readUntil(s.getInputStream(), "data: [DONE]").contains("\"finish_reason\""));
                }
            } finally {
                for (Socket s : open) {
                    s.close();
                }
            }
            answersAsBefore(server);
        }
    }

    @Test
    void aRequestPastTheTimeoutIsA503OrAnErrorEvent() throws Exception {
        try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                .withRequestTimeout(Duration.ofMillis(1)))) {
            Http.Reply whole = Http.post(server, "/v1/completions", LONG_COMPLETION.replace("\"stream\": true",
                    "\"stream\": false"));
            assertEquals(503, whole.status(), whole.body());
            assertEquals("timeout", whole.error().get("code").textValue());
            Http.Reply streamed = Http.post(server, "/v1/completions", LONG_COMPLETION);
            assertTrue(streamed.status() == 503 || streamed.body().contains("data: {\"error\""), streamed.body());
            assertTrue(!streamed.body().contains("[DONE]"), streamed.body());
            JsonNode h = awaitHealth(server, x -> x.get("generations").get("running").intValue() == 0);
            assertEquals(0, h.get("generations").get("waiting").intValue());
        }
    }
}
