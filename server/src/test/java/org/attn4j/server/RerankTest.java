package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.CrossEncoder;
import org.attn4j.models.embed.RerankOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code POST /v1/rerank} on the models' tiny ONNX cross-encoder: the scores are {@link CrossEncoder#score}'s in the
 * same JVM, bit for bit, best first; {@code top_n}, {@code return_documents} and {@code usage} as llama.cpp's server
 * and Jina answer them; bad input named.
 */
class RerankTest {
    private static final String MODEL = "tiny-rerank";
    private static final String QUERY = "how do plants make food from sun light?";
    private static final List<String> DOCUMENTS = List.of("green plants use sun light and water to make sugar.",
            "cats sleep all day.", "photosynthesis is how a plant makes food from light energy and air.",
            "stock markets fell on monday.", "paris is the capital of france.", "rain");

    private static ServedModels models;
    private static OpenAiServer server;
    private static CrossEncoder local;
    private static double[] expected;

    @BeforeAll
    static void start() throws IOException {
        Path onnx = Fixtures.folder("tiny-onnx-classifier").resolve("model.onnx");
        local = CrossEncoder.load(onnx, Backends.load("ejml"), RerankOptions.defaults());
        expected = local.score(QUERY, DOCUMENTS);
        models = Fixtures.encoders().loadReranker(MODEL, onnx, Backends.load("ejml"));
        server = OpenAiServer.start(models, ServerOptions.defaults().withPort(0).withMaxInputs(8));
    }

    @AfterAll
    static void stop() {
        server.close();
        models.all().values().stream().filter(m -> m instanceof ServedModels.Reranker)
                .forEach(m -> ((ServedModels.Reranker) m).encoder().close());
        local.close();
    }

    private static String documents() {
        List<String> quoted = new ArrayList<>();
        for (String d : DOCUMENTS) {
            quoted.add("\"" + d + "\"");
        }
        return "[" + String.join(", ", quoted) + "]";
    }

    private static String request(String extra) {
        return "{\"model\": \"" + MODEL + "\", \"query\": \"" + QUERY + "\", \"documents\": " + documents() + extra
                + "}";
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/rerank", "/rerank"})
    void everyDocumentIsScoredAsTheCrossEncoderScoresItBestFirst(String path) {
        Http.Reply r = Http.post(server, path, request(""));
        assertEquals(200, r.status(), r.body());
        JsonNode answer = r.json();
        assertEquals(MODEL, answer.get("model").asText());
        JsonNode results = answer.get("results");
        assertEquals(DOCUMENTS.size(), results.size(), r.body());
        Set<Integer> seen = new HashSet<>();
        double previous = Double.POSITIVE_INFINITY;
        for (JsonNode result : results) {
            int index = result.get("index").asInt();
            assertTrue(seen.add(index), "index " + index + " twice: " + r.body());
            double score = result.get("relevance_score").asDouble();
            assertEquals(expected[index], score, 0.0, "document " + index + ": expected " + expected[index]
                    + ", served " + score);
            assertTrue(score <= previous, "not best first: " + r.body());
            previous = score;
            assertTrue(!result.has("document"), "a document without return_documents: " + r.body());
        }
        long tokens = 0;
        for (String d : DOCUMENTS) {
            tokens += local.tokenCount(QUERY, d);
        }
        assertEquals(tokens, answer.get("usage").get("prompt_tokens").asLong());
        assertEquals(tokens, answer.get("usage").get("total_tokens").asLong());
    }

    @Test
    void topNKeepsTheBestAndReturnDocumentsEchoesThem() {
        JsonNode all = Http.post(server, "/v1/rerank", request("")).json().get("results");
        Http.Reply r = Http.post(server, "/v1/rerank", request(", \"top_n\": 2, \"return_documents\": true"));
        assertEquals(200, r.status(), r.body());
        JsonNode results = r.json().get("results");
        assertEquals(2, results.size(), r.body());
        for (int i = 0; i < 2; i++) {
            int index = results.get(i).get("index").asInt();
            assertEquals(all.get(i).get("index").asInt(), index, r.body());
            assertEquals(DOCUMENTS.get(index), results.get(i).get("document").get("text").asText());
        }
        assertEquals(DOCUMENTS.size(), Http.post(server, "/v1/rerank", request(", \"top_n\": 100")).json()
                .get("results").size(), "a top_n past the documents keeps them all");
    }

    @Test
    void theModelIsListedAsARerankModel() {
        JsonNode m = Http.get(server, "/v1/models/" + MODEL).json();
        assertEquals("rerank", m.get("kind").asText(), m.toString());
        assertEquals(local.maxLength(), m.get("max_input_tokens").asInt());
    }

    @Test
    void badInputIsRefusedNamingTheParameter() {
        String base = "{\"model\": \"" + MODEL + "\", \"query\": \"q\", ";
        String[][] cases = {
            {base + "\"documents\": []}", "400", "documents"},
            {base + "\"documents\": \"one\"}", "400", "documents"},
            {base + "\"documents\": [\"a\", 3]}", "400", "documents"},
            {base + "\"documents\": [\"a\", null]}", "400", "documents"},
            {base + "\"documents\": [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]}", "400", "documents"},
            {base + "\"documents\": [\"a\"], \"top_n\": 0}", "400", "top_n"},
            {base + "\"documents\": [\"a\"], \"top_n\": -3}", "400", "top_n"},
            {base + "\"documents\": [\"a\"], \"top_n\": \"2\"}", "400", "top_n"},
            {base + "\"documents\": [\"a\"], \"return_documents\": 1}", "400", "return_documents"},
            {base + "\"documents\": [\"a\"], \"truncate\": true}", "400", "truncate"},
            {"{\"model\": \"" + MODEL + "\", \"documents\": [\"a\"]}", "400", "query"},
            {"{\"model\": \"" + MODEL + "\", \"query\": \"\", \"documents\": [\"a\"]}", "400", "query"},
            {"{\"model\": \"" + Fixtures.MINILM + "\", \"query\": \"q\", \"documents\": [\"a\"]}", "404", "model"},
        };
        for (String[] c : cases) {
            Http.Reply r = Http.post(server, "/v1/rerank", c[0]);
            assertEquals(Integer.parseInt(c[1]), r.status(), c[0] + " -> " + r.body());
            assertEquals(c[2], r.error().get("param").asText(), c[0] + " -> " + r.body());
        }
    }

    @Test
    void aServerWithoutARerankModelAnswers404ModelNotFound() {
        try (OpenAiServer embeddingsOnly = OpenAiServer.start(Fixtures.encoders(),
                ServerOptions.defaults().withPort(0))) {
            Http.Reply r = Http.post(embeddingsOnly, "/v1/rerank", request(""));
            assertEquals(404, r.status(), r.body());
            assertEquals("model_not_found", r.error().get("code").asText());
            assertTrue(r.error().get("message").asText().contains("no rerank model"), r.body());
        }
    }
}
