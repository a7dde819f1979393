package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionTokenLogprob;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionChoice;
import com.openai.models.completions.CompletionCreateParams;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.KvCache;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.Generator;
import org.attn4j.models.generate.TokenListener;
import org.attn4j.models.tokenize.Tokenizer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code logprobs} on chat and legacy completions, whole and streamed: each token's log-probability is the
 * log-softmax, in double, of the logits {@link Generator} chose it from in the same JVM (the model's distribution,
 * whatever the temperature), and its alternatives are the most likely tokens, most likely first; OpenAI's Java SDK
 * reads them.
 */
class LogprobsTest {
    private static final String USER = "Tell me about cats.";
    private static OpenAiServer server;

    /** What the in-process generation chose and the logits of each step. */
    private record Steps(int[] ids, List<float[]> logits) {
    }

    @BeforeAll
    static void start() {
        server = OpenAiServer.start(Fixtures.all(), ServerOptions.defaults().withPort(0));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static Steps inProcess(CausalLM model, int[] prompt, GenerationOptions options) {
        List<Integer> ids = new ArrayList<>();
        List<float[]> logits = new ArrayList<>();
        try (KvCache cache = model.newCache(1, prompt.length + options.maxNewTokens())) {
            Generator.stream(model, cache, prompt, options, new TokenListener() {
                @Override
                public boolean onToken(int token, float[] l) {
                    ids.add(token);
                    logits.add(l);
                    return true;
                }

                @Override
                public boolean onToken(int token) {
                    throw new AssertionError("the generator passes the logits");
                }
            });
        }
        return new Steps(ids.stream().mapToInt(Integer::intValue).toArray(), logits);
    }

    /** @return log-softmax of the logits, in double, written out as the definition reads */
    private static double[] logSoftmax(float[] logits) {
        double max = Double.NEGATIVE_INFINITY;
        for (float l : logits) {
            max = Math.max(max, l);
        }
        double sum = 0;
        for (float l : logits) {
            sum += Math.exp((double) l - max);
        }
        double[] out = new double[logits.length];
        for (int i = 0; i < logits.length; i++) {
            out[i] = (double) logits[i] - max - Math.log(sum);
        }
        return out;
    }

    private static void assertClose(double expected, double actual, String where) {
        double abs = Math.abs(expected - actual);
        if (!(abs <= 1e-9)) {
            fail(where + ": expected " + expected + ", actual " + actual + ", abs error " + abs + ", rel error "
                    + abs / Math.abs(expected));
        }
    }

    private static int[] ints(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).mapToInt(JsonNode::asInt).toArray();
    }

    /** Checks one chat {@code logprobs.content} entry against the step it came from. */
    private static void assertEntry(JsonNode entry, int token, float[] logits, int top, Tokenizer tokenizer,
                                    String where) {
        double[] expected = logSoftmax(logits);
        String text = tokenizer.decode(new int[] {token}, false);
        assertEquals(text, entry.get("token").asText(), where);
        assertClose(expected[token], entry.get("logprob").asDouble(), where + " logprob");
        assertArrayEquals(unsigned(text), ints(entry.get("bytes")), where + " bytes");
        JsonNode alternatives = entry.get("top_logprobs");
        assertEquals(top, alternatives.size(), where);
        double previous = Double.POSITIVE_INFINITY;
        int[] order = TokenLogprob.largest(logits, top);
        for (int k = 0; k < top; k++) {
            JsonNode a = alternatives.get(k);
            double lp = a.get("logprob").asDouble();
            assertTrue(lp <= previous, where + ": top_logprobs not most likely first");
            previous = lp;
            assertEquals(tokenizer.decode(new int[] {order[k]}, false), a.get("token").asText(), where + " top " + k);
            assertClose(expected[order[k]], lp, where + " top " + k);
        }
        double best = Double.NEGATIVE_INFINITY;
        for (double e : expected) {
            best = Math.max(best, e);
        }
        if (top > 0) {
            assertClose(best, alternatives.get(0).get("logprob").asDouble(), where + ": the first is the most likely");
        }
    }

    private static int[] unsigned(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        int[] out = new int[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = b[i] & 0xff;
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.0, 1.5})
    void chatLogprobsAreTheModelsDistributionAtEachStepWhateverTheTemperature(double temperature) {
        int[] prompt = Fixtures.chat().encode(List.of(Message.user(USER)),
                ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
        Steps steps = inProcess(Fixtures.chat().model(), prompt, Fixtures.chat().defaults()
                .withTemperature(temperature).withSeed(11).withMaxNewTokens(8));
        Http.Reply r = Http.post(server, "/v1/chat/completions", "{\"model\": \"" + Fixtures.CHAT + "\", "
                + "\"messages\": [{\"role\": \"user\", \"content\": \"" + USER + "\"}], \"max_tokens\": 8, "
                + "\"temperature\": " + temperature + ", \"seed\": 11, \"logprobs\": true, \"top_logprobs\": 5, "
                + "\"return_token_ids\": true}");
        assertEquals(200, r.status(), r.body());
        JsonNode choice = r.json().get("choices").get(0);
        assertArrayEquals(steps.ids(), ints(choice.get("token_ids")), "the same tokens as in process");
        JsonNode content = choice.get("logprobs").get("content");
        assertEquals(steps.ids().length, content.size(), r.body());
        for (int i = 0; i < content.size(); i++) {
            assertEntry(content.get(i), steps.ids()[i], steps.logits().get(i), 5, Fixtures.chat().tokenizer(),
                    "token " + i);
        }
    }

    @Test
    void withoutTopLogprobsEachTokenComesAloneAndWithoutLogprobsThereAreNone() {
        String base = "{\"model\": \"" + Fixtures.CHAT + "\", \"messages\": [{\"role\": \"user\", \"content\": \""
                + USER + "\"}], \"max_tokens\": 3, \"temperature\": 0";
        JsonNode alone = Http.post(server, "/v1/chat/completions", base + ", \"logprobs\": true}").json()
                .get("choices").get(0).get("logprobs").get("content");
        assertTrue(alone.size() > 0);
        alone.forEach(e -> assertEquals(0, e.get("top_logprobs").size(), e.toString()));
        assertTrue(Http.post(server, "/v1/chat/completions", base + "}").json().get("choices").get(0)
                .get("logprobs").isNull());
    }

    @Test
    void aStreamCarriesTheSameLogprobsAsTheWholeAnswer() {
        String body = "{\"model\": \"" + Fixtures.CHAT + "\", \"messages\": [{\"role\": \"user\", \"content\": \""
                + USER + "\"}], \"max_tokens\": 10, \"temperature\": 0, \"logprobs\": true, \"top_logprobs\": 2";
        JsonNode whole = Http.post(server, "/v1/chat/completions", body + "}").json().get("choices").get(0)
                .get("logprobs").get("content");
        Http.Reply streamed = Http.post(server, "/v1/chat/completions", body + ", \"stream\": true}");
        assertEquals(200, streamed.status(), streamed.body());
        List<JsonNode> entries = new ArrayList<>();
        for (String line : streamed.body().split("\n")) {
            if (line.startsWith("data: {")) {
                JsonNode logprobs = new Http.Reply(200, streamed.headers(), line.substring(6)).json().get("choices")
                        .get(0).get("logprobs");
                if (!logprobs.isNull()) {
                    logprobs.get("content").forEach(entries::add);
                }
            }
        }
        assertEquals(whole.size(), entries.size(), streamed.body());
        for (int i = 0; i < entries.size(); i++) {
            assertEquals(whole.get(i), entries.get(i), "token " + i);
        }
    }

    @Test
    void legacyCompletionsGiveTokensLogprobsAlternativesAndOffsets() {
        Tokenizer tokenizer = Fixtures.gpt2Tokenizer();
        String prompt = "Hello, wor";
        int[] ids = tokenizer.encode(prompt).ids();
        Steps steps = inProcess(Fixtures.gpt2(), ids, Fixtures.gpt2Generation().options().withTemperature(0)
                .withMaxNewTokens(6));
        Http.Reply r = Http.post(server, "/v1/completions", "{\"model\": \"" + Fixtures.GPT2 + "\", \"prompt\": \""
                + prompt + "\", \"max_tokens\": 6, \"temperature\": 0, \"logprobs\": 3}");
        assertEquals(200, r.status(), r.body());
        JsonNode logprobs = r.json().get("choices").get(0).get("logprobs");
        int n = steps.ids().length;
        assertEquals(n, logprobs.get("tokens").size(), r.body());
        int offset = tokenizer.decode(ids, true).length();
        for (int i = 0; i < n; i++) {
            String text = tokenizer.decode(new int[] {steps.ids()[i]}, false);
            double[] expected = logSoftmax(steps.logits().get(i));
            assertEquals(text, logprobs.get("tokens").get(i).asText(), "token " + i);
            assertClose(expected[steps.ids()[i]], logprobs.get("token_logprobs").get(i).asDouble(), "token " + i);
            assertEquals(offset, logprobs.get("text_offset").get(i).asInt(), "text_offset " + i);
            offset += text.length();
            JsonNode top = logprobs.get("top_logprobs").get(i);
            assertTrue(top.size() >= 1 && top.size() <= 3, top.toString());
            for (int id : TokenLogprob.largest(steps.logits().get(i), 3)) {
                String t = tokenizer.decode(new int[] {id}, false);
                assertTrue(top.has(t), "token " + i + ": " + t + " missing from " + top);
                assertTrue(top.get(t).asDouble() >= expected[id] - 1e-9, "token " + i + ": " + top);
            }
        }
    }

    @Test
    void openAisSdkReadsTheLogprobsOfChatAndCompletions() {
        OpenAIClient openai = OpenAIOkHttpClient.builder().baseUrl(server.baseUri().toString()).apiKey("unused")
                .maxRetries(0).build();
        try {
            ChatCompletion chat = openai.chat().completions().create(ChatCompletionCreateParams.builder()
                    .model(Fixtures.CHAT).addUserMessage(USER).temperature(0.0).maxCompletionTokens(5)
                    .logprobs(true).topLogprobs(3L).build()).validate();
            JsonNode raw = Http.post(server, "/v1/chat/completions", "{\"model\": \"" + Fixtures.CHAT + "\", "
                    + "\"messages\": [{\"role\": \"user\", \"content\": \"" + USER + "\"}], \"max_tokens\": 5, "
                    + "\"temperature\": 0, \"logprobs\": true, \"top_logprobs\": 3}").json().get("choices").get(0)
                    .get("logprobs").get("content");
            List<ChatCompletionTokenLogprob> content = chat.choices().get(0).logprobs().orElseThrow().content()
                    .orElseThrow();
            assertEquals(raw.size(), content.size());
            for (int i = 0; i < content.size(); i++) {
                assertEquals(raw.get(i).get("token").asText(), content.get(i).token(), "token " + i);
                assertEquals(raw.get(i).get("logprob").asDouble(), content.get(i).logprob(), 0.0, "token " + i);
                assertEquals(3, content.get(i).topLogprobs().size(), "token " + i);
            }
            Completion completion = openai.completions().create(CompletionCreateParams.builder().model(Fixtures.GPT2)
                    .prompt("Hello, wor").maxTokens(4L).temperature(0.0).logprobs(2L).build()).validate();
            CompletionChoice.Logprobs legacy = completion.choices().get(0).logprobs().orElseThrow();
            int n = legacy.tokens().orElseThrow().size();
            assertEquals(completion.usage().orElseThrow().completionTokens(), n);
            assertEquals(n, legacy.tokenLogprobs().orElseThrow().size());
            assertEquals(n, legacy.topLogprobs().orElseThrow().size());
            assertEquals(n, legacy.textOffset().orElseThrow().size());
        } finally {
            openai.close();
        }
    }

    @Test
    void theLargestLogitsComeMostLikelyFirstAndEqualOnesById() {
        float[] logits = {1, 5, 3, 5, -2, 4, 5};
        assertArrayEquals(new int[] {1, 3, 6, 5}, TokenLogprob.largest(logits, 4));
        assertArrayEquals(new int[0], TokenLogprob.largest(logits, 0));
        assertArrayEquals(new int[] {1, 3, 6, 5, 2, 0, 4}, TokenLogprob.largest(logits, 7));
    }
}
