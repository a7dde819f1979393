package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Continuous batching keeps every answer what it is alone: sixteen greedy requests of different prompts and lengths,
 * completions and chat, sent at once to a server of sixteen slots so that they share the model's steps (joining as
 * they arrive, leaving as they end), each get byte for byte the answer they get alone, but for the fields that name
 * the answer ({@code id}, {@code created}) and the count of prompt tokens the prompt cache held.
 */
class BatchedGenerationTest {
    private static final int CLIENTS = 16;

    /**
     * Request {@code i}: a completion of the tiny GPT-2 (64 positions) when even, else a chat of the tiny Llama 3; one
     * chat prompt long enough to be read in several chunks while the others decode.
     */
    private static String body(int i) {
        int tokens = 6 + 5 * (i % 4);
        if (i % 2 == 0) {
            return "{\"model\": \"" + Fixtures.GPT2 + "\", \"prompt\": \"Once " + "ab".repeat(i % 5) + i
                    + "\", \"max_tokens\": " + tokens + ", \"temperature\": 0, \"return_token_ids\": true}";
        }
        String content = i == 3 ? "the sea and the sky, ".repeat(12) : "the sea and ".repeat(1 + i % 3);
        return "{\"model\": \"" + Fixtures.CHAT + "\", \"messages\": [{\"role\": \"user\", \"content\": \"Tell me "
                + "about " + content + i + "\"}], \"max_tokens\": " + tokens
                + ", \"temperature\": 0, \"return_token_ids\": true}";
    }

    private static String path(int i) {
        return i % 2 == 0 ? "/v1/completions" : "/v1/chat/completions";
    }

    /**
     * @return the answer without the fields that differ from one answer to the next by design: its name, and how
     *     many prompt tokens came from the prompt cache, which depends on what ran before
     */
    private static String answer(Http.Reply reply) {
        assertEquals(200, reply.status(), reply.body());
        ObjectNode json = (ObjectNode) reply.json();
        json.remove("id");
        json.remove("created");
        ((ObjectNode) json.get("usage")).remove("prompt_tokens_details");
        return json.toString();
    }

    @Test
    void greedyAnswersAreByteIdenticalAloneAndAmongFifteenOthers() throws Exception {
        try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                .withMaxActiveGenerations(CLIENTS))) {
            List<String> alone = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                alone.add(answer(Http.post(server, path(i), body(i))));
            }
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            try {
                for (int round = 0; round < 2; round++) {
                    CountDownLatch go = new CountDownLatch(1);
                    List<Future<String>> together = new ArrayList<>();
                    for (int i = 0; i < CLIENTS; i++) {
                        int c = i;
                        together.add(clients.submit(() -> {
                            go.await();
                            return answer(Http.post(server, path(c), body(c)));
                        }));
                    }
                    go.countDown();
                    for (int i = 0; i < CLIENTS; i++) {
                        assertEquals(alone.get(i), together.get(i).get(), "request " + i + " among " + CLIENTS
                                + " at once, round " + round);
                    }
                }
            } finally {
                clients.shutdownNow();
            }
            JsonNode first = JsonRequest.MAPPER.readTree(alone.get(0));
            assertTrue(first.get("choices").get(0).get("token_ids").size() > 0, alone.get(0));
            JsonNode chunked = JsonRequest.MAPPER.readTree(alone.get(3));
            assertTrue(chunked.get("usage").get("prompt_tokens").intValue() > GenerationScheduler.PREFILL_CHUNK,
                    "request 3's prompt is read in more than one chunk: " + alone.get(3));
        }
    }
}
