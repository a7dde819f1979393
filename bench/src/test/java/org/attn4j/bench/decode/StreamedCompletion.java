package org.attn4j.bench.decode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.Iterator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One streamed greedy {@code POST /v1/completions} as a client sees it: the prompt as token ids, {@code "stream":
 * true}, {@code "temperature": 0}, {@code max_tokens}, {@code stream_options.include_usage}; the server-sent events
 * read line by line as they arrive, each chunk whose choice holds text stamped with {@link System#nanoTime()} when its
 * line was read.
 *
 * @param sent when the request was handed to the client, nanoseconds
 * @param arrivals when each chunk with text arrived, nanoseconds, in order, {@code [chunks]}
 * @param text the chunks' text joined
 * @param completionTokens the usage chunk's {@code completion_tokens}; -1 when none came
 * @param finishReason the last chunk's {@code finish_reason}; null when none came
 * @param done when {@code data: [DONE]} arrived, nanoseconds; 0 when it did not
 */
record StreamedCompletion(long sent, long[] arrivals, String text, int completionTokens, String finishReason,
                          long done) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Sends one request and reads its stream to the end.
     *
     * @param client the client (HTTP/1.1)
     * @param base the server's base URI
     * @param model the model's name
     * @param prompt the prompt's token ids, {@code [promptLength]}
     * @param tokens {@code max_tokens}
     * @return what arrived and when
     * @throws IOException if the request fails
     * @throws IllegalStateException if the server answers other than 200, naming the status and body
     * @throws InterruptedException if interrupted while waiting
     */
    static StreamedCompletion send(HttpClient client, URI base, String model, int[] prompt, int tokens)
            throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode().put("model", model).put("max_tokens", tokens).put("temperature", 0)
                .put("stream", true);
        ArrayNode ids = body.putArray("prompt");
        Arrays.stream(prompt).forEach(ids::add);
        body.putObject("stream_options").put("include_usage", true);
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/v1/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
        long sent = System.nanoTime();
        HttpResponse<Stream<String>> response = client.send(request, HttpResponse.BodyHandlers.ofLines());
        try (Stream<String> lines = response.body()) {
            if (response.statusCode() != 200) {
                throw new IllegalStateException("served latency: /v1/completions answered " + response.statusCode()
                        + ": " + lines.collect(Collectors.joining("\n")));
            }
            long[] arrivals = new long[tokens];
            int chunks = 0;
            StringBuilder text = new StringBuilder();
            int completionTokens = -1;
            String finishReason = null;
            long done = 0;
            for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
                String line = it.next();
                long now = System.nanoTime();
                if (!line.startsWith("data: ")) {
                    continue;
                }
                String data = line.substring("data: ".length());
                if (data.equals("[DONE]")) {
                    done = now;
                    continue;
                }
                JsonNode chunk = JSON.readTree(data);
                JsonNode choice = chunk.path("choices").path(0);
                String piece = choice.path("text").asText("");
                if (!piece.isEmpty()) {
                    if (chunks == arrivals.length) {
                        arrivals = Arrays.copyOf(arrivals, 2 * chunks);
                    }
                    arrivals[chunks++] = now;
                    text.append(piece);
                }
                if (choice.hasNonNull("finish_reason")) {
                    finishReason = choice.get("finish_reason").asText();
                }
                if (chunk.hasNonNull("usage")) {
                    completionTokens = chunk.get("usage").path("completion_tokens").asInt(-1);
                }
            }
            return new StreamedCompletion(sent, Arrays.copyOf(arrivals, chunks), text.toString(), completionTokens,
                    finishReason, done);
        }
    }

    /**
     * @param tokens the tokens asked for
     * @return whether the stream ended with {@code [DONE]} after {@code tokens} chunks of text, the usage counted
     *     {@code tokens} and it finished for {@code length}
     */
    boolean complete(int tokens) {
        return done != 0 && arrivals.length == tokens && completionTokens == tokens && "length".equals(finishReason);
    }

    /** @return milliseconds from sending to the first chunk with text; NaN when none came */
    double firstTokenMillis() {
        return arrivals.length == 0 ? Double.NaN : (arrivals[0] - sent) / 1e6;
    }

    /** @return the milliseconds between consecutive chunks with text, {@code [chunks - 1]} */
    double[] gapsMillis() {
        double[] gaps = new double[Math.max(0, arrivals.length - 1)];
        for (int i = 0; i < gaps.length; i++) {
            gaps[i] = (arrivals[i + 1] - arrivals[i]) / 1e6;
        }
        return gaps;
    }
}
