package org.attn4j.models.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.ProviderReport;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A tiny random-weight Llama 3 chat checkpoint ({@code src/test/python/generate_chat_model.py}: the llama3 tokenizer
 * fixture, Meta-Llama-3-8B-Instruct's chat template, a generation config with three eos ids) answered on every
 * backend: the rendered conversation's ids, the PyTorch float64 greedy reply up to the stop id the config lists,
 * streamed as text; the checkpoint's sampling defaults; cancellation; a session that reuses its cache across turns.
 */
class ChatModelTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Path folder() {
        try {
            return Path.of(ChatModelTest.class.getResource("/org/attn4j/models/decoder/llama3_chat_tiny").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> expected() throws IOException {
        return JSON.readValue(folder().resolve("expected.json").toFile(), Map.class);
    }

    @SuppressWarnings("unchecked")
    static int[] ints(Object json) {
        return ((List<Integer>) json).stream().mapToInt(Integer::intValue).toArray();
    }

    @SuppressWarnings("unchecked")
    static List<Message> messages(Map<String, Object> expected) {
        List<Message> out = new ArrayList<>();
        for (Object m : (List<Object>) expected.get("messages")) {
            out.add(Message.of((Map<String, Object>) m));
        }
        return out;
    }

    static Stream<Backend> backends() {
        List<Backend> out = new ArrayList<>();
        for (ProviderReport r : Backends.describe()) {
            if (r.availability().available()) {
                out.add(Backends.load(r.name()));
            }
        }
        return out.stream();
    }

    @ParameterizedTest
    @MethodSource("backends")
    void greedyReplyMatchesPyTorchAndStopsOnAListedEosId(Backend backend) throws IOException {
        Map<String, Object> expected = expected();
        try (ChatModel m = ChatModel.load(folder(), backend, DType.F32)) {
            List<Message> chat = messages(expected);
            assertArrayEquals(ints(expected.get("chat_prompt")),
                    m.encode(chat, ChatTemplateOptions.defaults().withAddGenerationPrompt(true)));
            StringBuilder streamed = new StringBuilder();
            List<Integer> tokens = new ArrayList<>();
            ChatResponse r = m.chat(chat, m.defaults().withTemperature(0), (token, text) -> {
                if (token >= 0) {
                    tokens.add(token);
                }
                streamed.append(text);
                return true;
            });
            int[] reply = ints(expected.get("chat_reply"));
            assertArrayEquals(reply, r.tokens());
            assertEquals(StopReason.STOP_TOKEN, r.stopReason());
            assertEquals(((Number) expected.get("chat_stop")).intValue(), r.stopToken());
            assertEquals(ints(expected.get("chat_prompt")).length, r.promptTokens());
            assertEquals(reply.length, r.completionTokens());
            assertEquals(m.tokenizer().decode(reply), r.text());
            assertEquals(r.text(), streamed.toString());
            assertArrayEquals(reply, tokens.stream().mapToInt(Integer::intValue).toArray());
        }
    }

    @Test
    void theCheckpointsGenerationConfigGivesTheDefaults() throws IOException {
        try (ChatModel m = ChatModel.load(folder(), backends().findFirst().orElseThrow(), DType.F32)) {
            GenerationOptions d = m.defaults();
            assertEquals(0.6, d.temperature());
            assertEquals(40, d.topK());
            assertEquals(0.9, d.topP());
            int eot = m.tokenizer().id("<|eot_id|>").orElseThrow();
            assertTrue(java.util.Arrays.stream(d.stopTokens()).anyMatch(t -> t == eot), "stops on <|eot_id|>");
            assertEquals(3, d.stopTokens().length, java.util.Arrays.toString(d.stopTokens()));
        }
    }

    @Test
    void samplingWithASeedRepeatsAndAListenerMayStopGeneration() throws IOException {
        Map<String, Object> expected = expected();
        try (ChatModel m = ChatModel.load(folder(), backends().findFirst().orElseThrow(), DType.F32)) {
            List<Message> chat = messages(expected);
            GenerationOptions o = m.defaults().withStopTokens().withMaxNewTokens(12).withSeed(5);
            ChatResponse first = m.chat(chat, o, (t, s) -> true);
            ChatResponse second = m.chat(chat, o, (t, s) -> true);
            assertArrayEquals(first.tokens(), second.tokens());
            assertEquals(StopReason.LENGTH, first.stopReason());
            assertEquals(12, first.completionTokens());
            int[] seen = {0};
            ChatResponse cut = m.chat(chat, o, (t, s) -> ++seen[0] < 3);
            assertEquals(StopReason.CANCELLED, cut.stopReason());
            assertArrayEquals(java.util.Arrays.copyOf(first.tokens(), 3), cut.tokens());
        }
    }

    @Test
    void aSessionReusesItsCacheAndAnswersAsAFreshConversationWould() throws IOException {
        Map<String, Object> expected = expected();
        try (ChatModel m = ChatModel.load(folder(), backends().findFirst().orElseThrow(), DType.F32);
             ChatSession s = m.newSession()) {
            GenerationOptions greedy = m.defaults().withTemperature(0).withMaxNewTokens(6);
            List<Message> chat = messages(expected);
            s.add(chat.get(0));
            ChatResponse one = s.send((String) chat.get(1).content(), greedy, (t, x) -> true);
            assertArrayEquals(ints(expected.get("chat_reply")), one.tokens());
            int held = s.cachedTokens();
            ChatResponse two = s.send("And of Italy?", greedy, (t, x) -> true);
            List<Message> all = s.messages();
            assertEquals(5, all.size());
            ChatResponse fresh = m.chat(all.subList(0, 4), greedy, (t, x) -> true);
            assertArrayEquals(fresh.tokens(), two.tokens());
            assertEquals(fresh.promptTokens(), two.promptTokens());
            assertTrue(held > ints(expected.get("chat_prompt")).length && s.cachedTokens() > held,
                    "the cache held " + held + " then " + s.cachedTokens() + " positions");
        }
    }
}
