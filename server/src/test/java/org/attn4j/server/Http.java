package org.attn4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A plain HTTP client for the tests that send what no SDK would. Its connections are pooled: one the server closed
 * for idleness while a request was set out on it is retried once on a new connection, for POST too, because the
 * build runs the tests with {@code -Djdk.httpclient.enableAllMethodRetry=true} (see the module's pom).
 */
final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** A response: its status, its headers and its body, parsed as JSON on demand. */
    record Reply(int status, HttpHeaders headers, String body) {
        /** @return the header's first value, or null */
        String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        String retryAfter() {
            return header("Retry-After");
        }

        String contentType() {
            return header("Content-Type");
        }

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
            return new Reply(r.statusCode(), r.headers(), r.body());
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
