package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /metrics} scraped after known requests and parsed line by line as Prometheus' text format 0.0.4: every
 * sample belongs to a family declared by {@code # HELP} and {@code # TYPE}, and the counts are those of the requests
 * sent.
 */
class MetricsTest {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern SAMPLE = Pattern.compile("(" + NAME.pattern() + ")(\\{(.*)\\})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"(,|$)");

    private OpenAiServer server;

    /** One scrape: each sample's value by its name and labels, written as {@code name{a="x",b="y"}}. */
    private record Scrape(Map<String, Double> samples, Map<String, String> types) {
        double value(String sample) {
            Double v = samples.get(sample);
            if (v == null) {
                fail("no sample " + sample + " in " + samples.keySet());
            }
            return v;
        }
    }

    @BeforeEach
    void start() {
        server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Scrape scrape() {
        Http.Reply r = Http.get(server, "/metrics");
        assertEquals(200, r.status(), r.body());
        assertTrue(r.contentType().startsWith("text/plain; version=0.0.4"), r.contentType());
        assertTrue(r.body().endsWith("\n"), "the exposition ends with a line feed");
        Map<String, Double> samples = new LinkedHashMap<>();
        Map<String, String> types = new HashMap<>();
        Set<String> helped = new HashSet<>();
        for (String line : r.body().split("\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("# HELP ")) {
                helped.add(line.split(" ")[2]);
                continue;
            }
            if (line.startsWith("# TYPE ")) {
                String[] p = line.split(" ");
                assertEquals(4, p.length, line);
                assertTrue(Set.of("counter", "gauge", "histogram").contains(p[3]), line);
                assertTrue(helped.contains(p[2]), "TYPE before HELP: " + line);
                types.put(p[2], p[3]);
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertTrue(m.matches(), "not a sample line: " + line);
            String family = m.group(1).replaceFirst("_(bucket|sum|count)$", "");
            assertTrue(types.containsKey(m.group(1)) || "histogram".equals(types.get(family)),
                    "a sample of no declared family: " + line);
            List<String> labels = new ArrayList<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                int at = 0;
                while (l.find() && l.start() == at) {
                    labels.add(l.group(1) + "=\"" + l.group(2) + "\"");
                    at = l.end();
                }
                assertEquals(m.group(3).length(), at, "malformed labels: " + line);
            }
            String v = m.group(4);
            double value = v.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(v);
            String key = m.group(1) + (labels.isEmpty() ? "" : "{" + String.join(",", labels) + "}");
            assertTrue(samples.put(key, value) == null, "a sample twice: " + line);
        }
        return new Scrape(samples, types);
    }

    @Test
    void requestsAreCountedByRouteAndStatus() {
        assertEquals(200, Http.post(server, "/v1/embeddings", "{\"model\": \"" + Fixtures.MINILM
                + "\", \"input\": [\"a cat\", \"a dog\"]}").status());
        assertEquals(200, Http.get(server, "/v1/models").status());
        assertEquals(200, Http.get(server, "/v1/models/" + Fixtures.MINILM).status());
        assertEquals(404, Http.get(server, "/v1/models/nothing").status());
        assertEquals(400, Http.post(server, "/v1/embeddings", "{\"model\": \"" + Fixtures.MINILM
                + "\", \"input\": 3}").status());
        assertEquals(404, Http.get(server, "/no/such/url").status());
        Scrape s = scrape();
        assertEquals("counter", s.types().get("attn4j_requests_total"));
        assertEquals(1, s.value("attn4j_requests_total{endpoint=\"/v1/embeddings\",status=\"200\"}"));
        assertEquals(1, s.value("attn4j_requests_total{endpoint=\"/v1/embeddings\",status=\"400\"}"));
        assertEquals(1, s.value("attn4j_requests_total{endpoint=\"/v1/models\",status=\"200\"}"));
        assertEquals(1, s.value("attn4j_requests_total{endpoint=\"/v1/models/{model}\",status=\"200\"}"));
        assertEquals(1, s.value("attn4j_requests_total{endpoint=\"/v1/models/{model}\",status=\"404\"}"));
        assertEquals(1, s.value("attn4j_requests_total{endpoint=\"other\",status=\"404\"}"));
        assertEquals(1, s.value("attn4j_errors_total{code=\"model_not_found\",status=\"404\"}"));
        assertEquals(1, s.value("attn4j_errors_total{code=\"invalid_request_error\",status=\"404\"}"));
        assertEquals(1, s.value("attn4j_errors_total{code=\"invalid_request_error\",status=\"400\"}"));
        assertEquals(1, scrape().value("attn4j_requests_total{endpoint=\"/metrics\",status=\"200\"}"),
                "the first scrape is counted by the second");
    }

    @Test
    void tokensAreCountedAsTheUsageSaysAndGenerationsAreTimed() {
        JsonNode chat = Http.post(server, "/v1/chat/completions", "{\"model\": \"" + Fixtures.CHAT + "\", "
                + "\"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}], \"max_tokens\": 6, \"temperature\": 0}")
                .json();
        JsonNode embed = Http.post(server, "/v1/embeddings", "{\"model\": \"" + Fixtures.MINILM
                + "\", \"input\": \"a cat sat\"}").json();
        Http.Reply streamed = Http.post(server, "/v1/completions", "{\"model\": \"" + Fixtures.GPT2
                + "\", \"prompt\": \"Hello\", \"max_tokens\": 5, \"temperature\": 0, \"stream\": true, "
                + "\"stream_options\": {\"include_usage\": true}}");
        assertEquals(200, streamed.status(), streamed.body());
        JsonNode streamUsage = null;
        for (String line : streamed.body().split("\n")) {
            if (line.startsWith("data: {") && line.contains("\"usage\":{")) {
                streamUsage = new Http.Reply(200, streamed.headers(), line.substring(6)).json().get("usage");
            }
        }
        assertTrue(streamUsage != null, streamed.body());
        Scrape s = scrape();
        assertEquals(chat.get("usage").get("prompt_tokens").asDouble(),
                s.value("attn4j_prompt_tokens_total{model=\"" + Fixtures.CHAT + "\"}"));
        assertEquals(chat.get("usage").get("completion_tokens").asDouble(),
                s.value("attn4j_completion_tokens_total{model=\"" + Fixtures.CHAT + "\"}"));
        assertEquals(embed.get("usage").get("prompt_tokens").asDouble(),
                s.value("attn4j_prompt_tokens_total{model=\"" + Fixtures.MINILM + "\"}"));
        assertEquals(streamUsage.get("prompt_tokens").asDouble(),
                s.value("attn4j_prompt_tokens_total{model=\"" + Fixtures.GPT2 + "\"}"));
        assertEquals(streamUsage.get("completion_tokens").asDouble(),
                s.value("attn4j_completion_tokens_total{model=\"" + Fixtures.GPT2 + "\"}"));

        String ttft = "attn4j_time_to_first_token_seconds";
        assertEquals("histogram", s.types().get(ttft));
        assertEquals(2, s.value(ttft + "_count"), "two generations, each with a first token");
        assertEquals(2, s.value(ttft + "_bucket{le=\"+Inf\"}"));
        assertTrue(s.value(ttft + "_sum") > 0);
        double previous = 0;
        for (Map.Entry<String, Double> e : s.samples().entrySet()) {
            if (e.getKey().startsWith(ttft + "_bucket")) {
                assertTrue(e.getValue() >= previous, "buckets are cumulative: " + e);
                previous = e.getValue();
            }
        }
        String rate = "attn4j_generation_tokens_per_second";
        long longer = (chat.get("usage").get("completion_tokens").asInt() >= 2 ? 1 : 0)
                + (streamUsage.get("completion_tokens").asInt() >= 2 ? 1 : 0);
        assertEquals(longer, s.value(rate + "_count"));
        for (String gauge : List.of("attn4j_generations_running", "attn4j_generations_waiting",
                "attn4j_embeddings_running", "attn4j_embeddings_waiting")) {
            assertEquals("gauge", s.types().get(gauge), gauge);
            assertEquals(0, s.value(gauge), gauge + " at rest");
        }
    }

    @Test
    void aLabelValueIsEscapedAsTheFormatSays() {
        Metrics metrics = new Metrics();
        metrics.promptTokens("a\\b\"c\nd", 3);
        String line = metrics.scrape().lines().filter(l -> l.startsWith("attn4j_prompt_tokens_total{"))
                .findFirst().orElseThrow();
        String labels = "attn4j_prompt_tokens_total{model=\"a\\\\b\\\"c\\nd\"} ";
        assertTrue(line.startsWith(labels), line);
        assertEquals(3, Double.parseDouble(line.substring(labels.length())), line);
    }
}
