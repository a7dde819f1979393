package org.attn4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A plain HTTP client for the tests that send what no SDK would. */
final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** A response: its status, a header and its body parsed as JSON. */
    record Reply(int status, String retryAfter, String contentType, String body) {
        JsonNode json() {
            try {
                return JsonRequest.MAPPER.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }

        /** @return the OpenAI error object, after checking its shape */
        JsonNode error() {
            JsonNode e = json().get("error");
            if (e == null || !e.get("message").isTextual() || !e.get("type").isTextual() || !e.has("param")
                    || !e.has("code")) {
                throw new AssertionError("not an OpenAI error object: " + body);
            }
            return e;
        }
    }

    private Http() {
    }

    static Reply post(OpenAiServer server, String path, String body) {
        return send(HttpRequest.newBuilder(uri(server, path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    static Reply post(OpenAiServer server, String path, byte[] body) {
        return send(HttpRequest.newBuilder(uri(server, path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
    }

    static Reply get(OpenAiServer server, String path) {
        return send(HttpRequest.newBuilder(uri(server, path)).GET().build());
    }

    static Reply send(HttpRequest request) {
        try {
            HttpResponse<String> r = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.headers().firstValue("Retry-After").orElse(null),
                    r.headers().firstValue("Content-Type").orElse(null), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static URI uri(OpenAiServer server, String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }
}
