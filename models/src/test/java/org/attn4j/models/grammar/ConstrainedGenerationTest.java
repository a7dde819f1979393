package org.attn4j.models.grammar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.models.chat.Message;
import org.attn4j.models.generate.BatchDecoder;
import org.attn4j.models.generate.ChatModel;
import org.attn4j.models.generate.ChatResponse;
import org.attn4j.models.generate.Generation;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.Generator;
import org.attn4j.models.generate.StopReason;
import org.attn4j.models.tokenize.Tokenizer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Generation held to a grammar on the tiny random-weight Llama 3 chat checkpoint (byte-level BPE, 2,072 ids): whatever
 * the weights pick, the reply is a valid prefix of the grammar's language, and a whole, schema-valid JSON text when it
 * ends by a stop token; the trie walk allows exactly the tokens a check of every token's bytes allows; batched
 * generations each keep their own place in the grammar.
 */
class ConstrainedGenerationTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CLOSED = "{\"type\": \"object\", \"properties\": {\"color\": {\"enum\": [\"red\","
            + " \"green\", \"dark blue\"]}, \"ok\": {\"type\": \"boolean\"}, \"none\": {\"type\": \"null\"},"
            + " \"inner\": {\"type\": \"object\", \"properties\": {\"one\": {\"const\": 1}}, \"required\":"
            + " [\"one\"], \"additionalProperties\": false}}, \"required\": [\"color\", \"ok\", \"none\","
            + " \"inner\"], \"additionalProperties\": false}";
    private static final String OPEN = "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\"},"
            + " \"age\": {\"type\": \"integer\"}, \"score\": {\"type\": [\"number\", \"null\"]}}, \"required\":"
            + " [\"name\", \"age\", \"score\"], \"additionalProperties\": false}";

    private static ChatModel chat;

    @BeforeAll
    static void load() throws IOException, URISyntaxException {
        Path folder = Path.of(ConstrainedGenerationTest.class.getResource(
                "/org/attn4j/models/decoder/llama3_chat_tiny").toURI());
        chat = ChatModel.load(folder, Backends.load("ejml"), DType.F32);
    }

    @AfterAll
    static void close() {
        chat.close();
    }

    private static TokenGrammar grammar(JsonGrammar g) {
        return new TokenGrammar(g, TokenVocabulary.of(chat.tokenizer()));
    }

    private static JsonGrammar schema(String text) throws IOException {
        return JsonGrammar.fromSchema(JSON.readTree(text), true);
    }

    private static ChatResponse reply(TokenGrammar g, GenerationOptions options, int i) {
        return chat.chat(List.of(Message.user("Describe item " + i + " as JSON.")), options.withGrammar(g),
                (id, text) -> true);
    }

    @Test
    void aClosedSchemaIsAlwaysFinishedAndValidWhateverTheWeights() throws IOException {
        JsonGrammar g = schema(CLOSED);
        TokenGrammar tg = grammar(g);
        for (int i = 0; i < 6; i++) {
            GenerationOptions o = chat.defaults().withMaxNewTokens(200).withSeed(1000 + i)
                    .withTemperature(i == 0 ? 0 : 1.0);
            ChatResponse r = reply(tg, o, i);
            assertEquals(StopReason.STOP_TOKEN, r.stopReason(), "reply " + i + ": " + r.text());
            assertTrue(g.accepts(r.text()), "reply " + i + ": " + r.text());
            JsonNode v = JSON.readTree(r.text());
            assertTrue(List.of("red", "green", "dark blue").contains(v.get("color").textValue()), r.text());
            assertTrue(v.get("ok").isBoolean() && v.get("none").isNull(), r.text());
            assertEquals(1, v.get("inner").get("one").intValue(), r.text());
        }
    }

    @Test
    void anOpenSchemaIsAValidPrefixWhenCutAndValidWhenFinished() throws IOException {
        JsonGrammar g = schema(OPEN);
        TokenGrammar tg = grammar(g);
        JsonGrammar object = JsonGrammar.anyObject();
        TokenGrammar any = grammar(object);
        for (int i = 0; i < 6; i++) {
            GenerationOptions o = chat.defaults().withMaxNewTokens(40).withSeed(77 + i).withTemperature(1.2);
            for (JsonGrammar which : List.of(g, object)) {
                ChatResponse r = reply(which == g ? tg : any, o, i);
                if (r.stopReason() == StopReason.LENGTH) {
                    assertEquals(40, r.tokens().length);
                    assertNotNull(which.start().advance(r.text()), "reply " + i + " is no prefix: " + r.text());
                } else {
                    assertEquals(StopReason.STOP_TOKEN, r.stopReason(), r.text());
                    assertTrue(which.accepts(r.text()), "reply " + i + ": " + r.text());
                    assertTrue(JSON.readTree(r.text()).isObject(), r.text());
                }
                assertEquals(whole(r.text()), whole(new String(bytes(r.tokens()), StandardCharsets.UTF_8)),
                        "the grammar read the bytes the tokenizer writes");
            }
        }
    }

    /** @return the text without the U+FFFD that stands for a character cut at the end */
    private static String whole(String text) {
        return text.replaceAll("\uFFFD+$", "");
    }

    private static byte[] bytes(int[] tokens) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TokenVocabulary v = TokenVocabulary.of(chat.tokenizer());
        for (int t : tokens) {
            out.writeBytes(v.bytes(t));
        }
        return out.toByteArray();
    }

    /** Law: the trie walk allows exactly the tokens whose bytes, each checked alone, the automaton takes. */
    @Test
    void theTrieWalkAllowsExactlyWhatEveryTokenCheckedAloneAllows() throws IOException {
        Tokenizer t = chat.tokenizer();
        TokenVocabulary v = TokenVocabulary.of(t);
        JsonGrammar g = schema(OPEN);
        int vocab = chat.model().config().vocabSize();
        int[] stops = chat.stopTokens();
        for (String prefix : List.of("", "{", "{\"name\": \"A", "{\"name\": \"A\\", "{\"name\":\"é\",\"age\": 1",
                "{\"name\":\"\",\"age\":0,\"score\":1.5e", "{\"name\":\"\",\"age\":0,\"score\":null}")) {
            TokenGrammar.State s = new TokenGrammar(g, v).start();
            for (byte b : prefix.getBytes(StandardCharsets.UTF_8)) {
                s = advance(s, b, v);
            }
            BitSet walked = s.allowed(vocab, stops);
            BitSet checked = new BitSet();
            JsonRecognizer at = g.start().advance(prefix);
            for (int id = 0; id < vocab; id++) {
                byte[] b = v.bytes(id);
                if (b.length > 0 && at.advance(b) != null) {
                    checked.set(id);
                }
            }
            for (int stop : stops) {
                checked.set(stop, at.complete());
            }
            assertEquals(checked, walked, "after " + prefix);
            assertTrue(!walked.isEmpty(), "after " + prefix);
        }
    }

    /** Feeds a one-byte token when the vocabulary has one, so the state follows the prefix byte by byte. */
    private static TokenGrammar.State advance(TokenGrammar.State s, byte b, TokenVocabulary v) {
        for (int id = 0; id < v.size(); id++) {
            byte[] x = v.bytes(id);
            if (x.length == 1 && x[0] == b) {
                s.accept(id);
                return s;
            }
        }
        throw new IllegalStateException("no one-byte token for " + (b & 0xFF));
    }

    @Test
    void batchedGenerationsEachKeepTheirOwnPlaceInTheGrammar() throws IOException {
        TokenGrammar tg = grammar(schema(OPEN));
        List<int[]> prompts = new ArrayList<>();
        List<GenerationOptions> options = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            prompts.add(chat.encode(List.of(Message.user("Item " + i)),
                    org.attn4j.models.chat.ChatTemplateOptions.defaults().withAddGenerationPrompt(true)));
            options.add(chat.defaults().withMaxNewTokens(24).withSeed(5 + i).withTemperature(i % 2 == 0 ? 0 : 1)
                    .withStopTokens(chat.stopTokens()).withGrammar(i == 3 ? null : tg));
        }
        List<BatchDecoder.Sequence> together = new ArrayList<>();
        try (BatchDecoder batch = new BatchDecoder(chat.model(), 8)) {
            for (int i = 0; i < 4; i++) {
                together.add(batch.join(prompts.get(i), options.get(i), id -> true));
            }
            while (batch.active() > 0) {
                batch.step();
            }
        }
        for (int i = 0; i < 4; i++) {
            int[] alone = Generator.generate(chat.model(), prompts.get(i), options.get(i), id -> { });
            Generation g = together.get(i).generation();
            assertArrayEquals(alone, g.tokens(), "generation " + i);
            if (i < 3) {
                assertNotNull(tg.grammar().start().advance(bytes(g.tokens())), "generation " + i);
            }
        }
    }

    @Test
    void aWholeValueWithoutStopTokensEndsTheGeneration() throws IOException {
        TokenGrammar tg = grammar(JsonGrammar.fromSchema(JSON.readTree("{\"const\": [true]}"), false));
        int[] prompt = chat.encode(List.of(Message.user("Go")),
                org.attn4j.models.chat.ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
        GenerationOptions o = GenerationOptions.defaults().withMaxNewTokens(30).withGrammar(tg);
        int[] tokens = Generator.generate(chat.model(), prompt, o, id -> { });
        assertEquals("[true]", new String(bytes(tokens), StandardCharsets.UTF_8));
    }
}
