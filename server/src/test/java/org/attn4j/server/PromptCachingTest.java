package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.attn4j.models.decoder.KvCache;
import org.junit.jupiter.api.Test;

/**
 * The prompt cache over HTTP, on the tiny Llama 3 chat checkpoint: the same request twice gets the same answer, the
 * second saying in {@code usage.prompt_tokens_details.cached_tokens} how many prompt tokens it reused, chat or
 * completion, whole or streamed; a chat's second turn reuses the first turn's prompt and answers as a server without
 * a cache does; a tiny {@code --cache-bytes} drops the least recently used prompt; {@code /metrics} counts it all.
 */
class PromptCachingTest {
    private static final int CHUNK = GenerationScheduler.PREFILL_CHUNK;
    private static final String SYSTEM = "You are a careful assistant. ".repeat(8);

    private static String chat(String messages, boolean stream) {
        return "{\"model\": \"" + Fixtures.CHAT + "\", \"messages\": [" + messages + "], \"max_tokens\": 6, "
                + "\"temperature\": 0, \"return_token_ids\": " + !stream
                + (stream ? ", \"stream\": true, \"stream_options\": {\"include_usage\": true}" : "") + "}";
    }

    private static String message(String role, String content) {
        return "{\"role\": \"" + role + "\", \"content\": " + JsonRequest.MAPPER.valueToTree(content) + "}";
    }

    private static JsonNode post(OpenAiServer server, String body) {
        Http.Reply r = Http.post(server, "/v1/chat/completions", body);
        assertEquals(200, r.status(), r.body());
        return r.json();
    }

    private static int cached(JsonNode answer) {
        return answer.get("usage").get("prompt_tokens_details").get("cached_tokens").intValue();
    }

    /** @return the answer without the fields that differ from one answer to the next by design, and the usage */
    private static String choices(JsonNode answer) {
        ObjectNode copy = answer.deepCopy();
        copy.remove("id");
        copy.remove("created");
        copy.remove("usage");
        return copy.toString();
    }

    /** @return the whole chunks of the longest prefix {@code now} shares with {@code before}, short of its last */
    private static int reusable(JsonNode before, JsonNode now) {
        JsonNode a = before.get("choices").get(0).get("prompt_token_ids");
        JsonNode b = now.get("choices").get(0).get("prompt_token_ids");
        int shared = 0;
        while (shared < a.size() && shared < b.size() && a.get(shared).equals(b.get(shared))) {
            shared++;
        }
        int kept = a.size() / CHUNK * CHUNK;
        return Math.min(Math.min(shared, kept), b.size() - 1) / CHUNK * CHUNK;
    }

    private static double metric(OpenAiServer server, String name) {
        String body = Http.get(server, "/metrics").body();
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(body);
        assertTrue(m.find(), name + " in " + body);
        return Double.parseDouble(m.group(1));
    }

    @Test
    void theSameRequestTwiceGetsTheSameAnswerTheSecondReportingCachedTokens() {
        String messages = message("system", SYSTEM) + ", " + message("user", "Name three colours.");
        try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0))) {
            JsonNode first = post(server, chat(messages, false));
            JsonNode second = post(server, chat(messages, false));
            int prompt = first.get("usage").get("prompt_tokens").intValue();
            assertTrue(prompt > CHUNK, "the prompt holds a whole chunk: " + prompt);
            assertEquals(0, cached(first), first.toString());
            assertEquals((prompt - 1) / CHUNK * CHUNK, cached(second), second.toString());
            assertEquals(choices(first), choices(second));
            assertEquals(first.get("usage").get("completion_tokens"), second.get("usage").get("completion_tokens"));

            Http.Reply streamed = Http.post(server, "/v1/chat/completions", chat(messages, true));
            assertEquals(200, streamed.status(), streamed.body());
            JsonNode usage = null;
            StringBuilder text = new StringBuilder();
            for (String line : streamed.body().split("\n")) {
                if (!line.startsWith("data: {")) {
                    continue;
                }
                JsonNode chunk = new Http.Reply(200, streamed.headers(), line.substring(6)).json();
                if (chunk.get("usage") != null && !chunk.get("usage").isNull()) {
                    usage = chunk.get("usage");
                } else if (chunk.get("choices").get(0).get("delta").has("content")) {
                    text.append(chunk.get("choices").get(0).get("delta").get("content").textValue());
                }
            }
            assertTrue(usage != null, streamed.body());
            assertEquals((prompt - 1) / CHUNK * CHUNK, usage.get("prompt_tokens_details").get("cached_tokens")
                    .intValue(), streamed.body());
            assertEquals(first.get("choices").get(0).get("message").get("content").textValue(), text.toString());

            String completion = "{\"model\": \"" + Fixtures.CHAT + "\", \"prompt\": " + JsonRequest.MAPPER
                    .valueToTree(SYSTEM.repeat(2) + "The sea is") + ", \"max_tokens\": 5, \"temperature\": 0}";
            Http.Reply c1 = Http.post(server, "/v1/completions", completion);
            Http.Reply c2 = Http.post(server, "/v1/completions", completion);
            assertEquals(200, c2.status(), c2.body());
            int completionPrompt = c1.json().get("usage").get("prompt_tokens").intValue();
            assertTrue(completionPrompt > CHUNK, "the completion's prompt holds a whole chunk: " + completionPrompt);
            assertEquals(0, cached(c1.json()), c1.body());
            assertEquals((completionPrompt - 1) / CHUNK * CHUNK, cached(c2.json()), c2.body());
            assertEquals(choices(c1.json()), choices(c2.json()));

            assertEquals(2, metric(server, "attn4j_prompt_cache_misses_total"));
            assertEquals(3, metric(server, "attn4j_prompt_cache_hits_total"));
            assertEquals(2.0 * cached(second) + cached(c2.json()), metric(server, "attn4j_prompt_cache_tokens_total"));
            assertEquals(2, metric(server, "attn4j_prompt_cache_entries"));
            assertTrue(metric(server, "attn4j_prompt_cache_bytes") > 0);
            assertEquals(ServerOptions.defaults().cacheBytes(), metric(server, "attn4j_prompt_cache_max_bytes"));
        }
    }

    @Test
    void aChatsSecondTurnReusesTheFirstTurnsPromptAndAnswersAsWithoutTheCache() {
        String turn1 = message("system", SYSTEM) + ", " + message("user", "Where is the sea?");
        JsonNode[] with = new JsonNode[2];
        JsonNode[] without = new JsonNode[2];
        for (long bytes : new long[] {ServerOptions.defaults().cacheBytes(), 0}) {
            JsonNode[] out = bytes > 0 ? with : without;
            try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                    .withCacheBytes(bytes))) {
                out[0] = post(server, chat(turn1, false));
                String reply = out[0].get("choices").get(0).get("message").get("content").textValue();
                String turn2 = turn1 + ", " + message("assistant", reply) + ", " + message("user", "And the sky?");
                out[1] = post(server, chat(turn2, false));
                if (bytes == 0) {
                    assertTrue(Http.get(server, "/metrics").body().lines()
                            .noneMatch(l -> l.startsWith("attn4j_prompt_cache")), "no cache, no cache series");
                }
            }
        }
        assertEquals(0, cached(with[0]));
        int reusable = reusable(with[0], with[1]);
        assertTrue(reusable >= CHUNK, "turn 2 shares turn 1's system prompt: " + reusable);
        assertEquals(reusable, cached(with[1]), with[1].toString());
        assertEquals(0, cached(without[1]));
        assertEquals(choices(without[0]), choices(with[0]));
        assertEquals(choices(without[1]), choices(with[1]));
    }

    @Test
    void aTinyCacheDropsTheLeastRecentlyUsedPrompt() {
        long perPosition;
        try (KvCache probe = Fixtures.chat().model().newCache(1, 1)) {
            perPosition = probe.bytes();
        }
        String a = chat(message("system", SYSTEM) + ", " + message("user", "Tell me about the sea."), false);
        String b = chat(message("system", "You answer briefly. ".repeat(10)) + ", " + message("user", "The sky?"),
                false);
        int keptA;
        int keptB;
        try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                .withCacheBytes(0))) {
            keptA = post(server, a).get("usage").get("prompt_tokens").intValue() / CHUNK * CHUNK;
            keptB = post(server, b).get("usage").get("prompt_tokens").intValue() / CHUNK * CHUNK;
        }
        assertTrue(keptA > 0 && keptB > 0, "both prompts hold a whole chunk: " + keptA + ", " + keptB);
        long room = Math.max(keptA, keptB) * perPosition;
        try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                .withCacheBytes(room))) {
            JsonNode first = post(server, a);
            int reuseA = (first.get("usage").get("prompt_tokens").intValue() - 1) / CHUNK * CHUNK;
            assertEquals(0, cached(first));
            assertEquals(keptA * perPosition, metric(server, "attn4j_prompt_cache_bytes"));
            assertEquals(0, cached(post(server, b)));
            assertEquals(1, metric(server, "attn4j_prompt_cache_evictions_total"), "a made room for b");
            assertEquals(0, cached(post(server, a)), "a was dropped for b");
            assertEquals(reuseA, cached(post(server, a)), "a is kept again, b dropped");
            assertEquals(2, metric(server, "attn4j_prompt_cache_evictions_total"));
            assertEquals(1, metric(server, "attn4j_prompt_cache_entries"));
            assertEquals(keptA * perPosition, metric(server, "attn4j_prompt_cache_bytes"));
            assertEquals(room, metric(server, "attn4j_prompt_cache_max_bytes"));
        }
    }
}
