package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.attn4j.models.embed.SentenceEmbedding;
import org.attn4j.models.generate.Generator;
import org.attn4j.models.tokenize.Tokenizer;
import org.junit.jupiter.api.Test;

/**
 * Bounded loads on loopback that check every answer: 32 embeddings clients × 100 requests each (the figures it
 * prints are indications from whatever machine runs the build; the README's measuring command runs 32 × 200 and
 * compares with the encoder in process), and
 * concurrent greedy generations that must each give the in-process ids while they share batched steps.
 */
class LoadTest {
    private static final int CLIENTS = 32;
    private static final int REQUESTS = 100;

    @Test
    void everyEmbeddingsRequestUnderLoadGetsItsOwnTextsVector() throws Exception {
        List<String> texts = EmbeddingsLoad.texts(256);
        List<float[]> expected = new ArrayList<>();
        for (SentenceEmbedding e : Fixtures.minilm().embed(texts)) {
            expected.add(e.vector());
        }
        try (OpenAiServer server = OpenAiServer.start(Fixtures.encoders(), ServerOptions.defaults().withPort(0))) {
            EmbeddingsLoad.Result r = EmbeddingsLoad.run(server.baseUri(), Fixtures.MINILM, texts, expected, CLIENTS,
                    REQUESTS, 1e-5);
            System.out.println("LoadTest: " + r.summary());
            assertEquals(List.of(), r.failures());
            assertEquals(CLIENTS * REQUESTS, r.ok());
        }
    }

    @Test
    void concurrentGenerationsEachGetTheInProcessIds() throws Exception {
        Tokenizer tokenizer = Fixtures.chat().tokenizer();
        List<String> prompts = List.of("The capital of France is", "Once upon a time", "Hello", "1, 2, 3,",
                "Attention is all", "Java", "The weather today", "Rome was");
        try (OpenAiServer server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0)
                .withMaxActiveGenerations(4).withMaxQueuedGenerations(32))) {
            List<CompletableFuture<Http.Reply>> replies = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                for (String p : prompts) {
                    replies.add(CompletableFuture.supplyAsync(() -> Http.post(server, "/v1/completions",
                            "{\"model\": \"llama3-chat-tiny\", \"prompt\": \"" + p + "\", \"max_tokens\": 24, "
                            + "\"temperature\": 0, \"return_token_ids\": true}")));
                }
            }
            for (int i = 0; i < replies.size(); i++) {
                String p = prompts.get(i % prompts.size());
                Http.Reply r = replies.get(i).get(120, TimeUnit.SECONDS);
                assertEquals(200, r.status(), r.body());
                JsonNode choice = r.json().get("choices").get(0);
                int[] got = new int[choice.get("token_ids").size()];
                for (int j = 0; j < got.length; j++) {
                    got[j] = choice.get("token_ids").get(j).intValue();
                }
                int[] expected = Generator.generate(Fixtures.chat().model(), tokenizer.encode(p).ids(),
                        Fixtures.chat().defaults().withTemperature(0).withMaxNewTokens(24), id -> { });
                assertArrayEquals(expected, got, p);
                assertTrue(got.length > 0, p);
            }
        }
    }
}
