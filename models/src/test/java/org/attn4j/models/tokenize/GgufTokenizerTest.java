package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.attn4j.models.decoder.GgufCheckpoints;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.io.GgufWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tokenizers from GGUF metadata: GPT-2's vocabulary and merges written as llama.cpp's converter writes them give
 * the ids of OpenAI's encoder on every corpus line; Llama 3's and Qwen2's pre-tokenizers cut digits as theirs do;
 * a SentencePiece vocabulary merges by score, falls back to bytes, adds BOS and round-trips text; unknown models
 * and pre-tokenizers are refused by name.
 */
class GgufTokenizerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Tokenizer read(GgufWriter w) throws IOException {
        return Tokenizer.fromGguf(Gguf.read(w.toBytes()));
    }

    private static Tokenizer gpt2(String pre) throws IOException {
        JsonNode encoder;
        String bpe;
        try (var in = GgufTokenizerTest.class.getResourceAsStream("gpt2/encoder.json");
             var merges = GgufTokenizerTest.class.getResourceAsStream("gpt2/vocab.bpe")) {
            encoder = JSON.readTree(in);
            bpe = new String(merges.readAllBytes(), StandardCharsets.UTF_8);
        }
        String[] tokens = new String[encoder.size()];
        encoder.properties().forEach(e -> tokens[e.getValue().asInt()] = e.getKey());
        List<String> merges = bpe.lines().filter(l -> !l.startsWith("#version") && !l.isEmpty()).toList();
        return read(GgufCheckpoints.byteLevelBpe(new GgufWriter(), Arrays.asList(tokens), merges, pre, 50256));
    }

    @Test
    void gpt2FromGgufGivesOpenAisIdsOnEveryCorpusLine() throws IOException {
        Tokenizer t = gpt2("gpt-2");
        List<String> corpus = Corpus.read();
        List<String> ids;
        try (var in = GgufTokenizerTest.class.getResourceAsStream("gpt2/gpt2-ids.jsonl")) {
            ids = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < corpus.size(); i++) {
            int[] expected = JSON.readValue(ids.get(i), int[].class);
            int[] got = t.encode(corpus.get(i)).ids();
            if (!Arrays.equals(expected, got) || !t.decode(got).equals(corpus.get(i))) {
                mismatches.add("line " + i + ": expected " + Arrays.toString(expected) + " got " + Arrays.toString(got));
            }
        }
        assertTrue(mismatches.isEmpty(), mismatches.size() + " lines differ, first: "
                + mismatches.subList(0, Math.min(3, mismatches.size())));
        assertArrayEquals(new int[] {5303, 50256, 5303}, t.encode("hi<|endoftext|>hi").ids());
        assertEquals("hihi", t.decode(t.encode("hi<|endoftext|>hi").ids()));
    }

    /** Bytes as GPT-2 spells them, and merges that join digits and a word across what the patterns cut. */
    private static Tokenizer digits(String pre, boolean addBos) throws IOException {
        List<String> tokens = new ArrayList<>();
        for (int b = 0; b < 128; b++) {
            tokens.add(ByteLevel.spell(String.valueOf((char) b)));
        }
        List<String> merges = List.of("1 2", "12 3", "123 4", "1234 5", "\u0120 a", "\u0120a b", "' S");
        for (String m : merges) {
            tokens.add(m.replace(" ", ""));
        }
        tokens.add("<|begin_of_text|>");
        GgufWriter w = GgufCheckpoints.byteLevelBpe(new GgufWriter(), tokens, merges, pre, tokens.size() - 1);
        if (!addBos) {
            w.bool("tokenizer.ggml.add_bos_token", false);
        }
        return read(w);
    }

    @Test
    void eachPreTokenizerCutsDigitsAsItsModelDoes() throws IOException {
        Tokenizer gpt2 = digits("gpt-2", false);
        Tokenizer llama3 = digits("llama-bpe", false);
        Tokenizer qwen2 = digits("qwen2", false);
        Tokenizer smollm = digits("smollm", false);
        assertEquals(List.of("12345", "\u0120ab"), gpt2.encode("12345 ab").tokens());
        assertEquals(List.of("123", "4", "5", "\u0120ab"), llama3.encode("12345 ab").tokens());
        assertEquals(List.of("1", "2", "3", "4", "5", "\u0120ab"), qwen2.encode("12345 ab").tokens());
        assertEquals(List.of("1", "2", "3", "4", "5", "\u0120ab"), smollm.encode("12345 ab").tokens());
        assertEquals(List.of("'", "S", "\u0120ab"), gpt2.encode("'S ab").tokens(), "GPT-2's contractions are lower case");
        assertEquals(List.of("'S", "\u0120ab"), llama3.encode("'S ab").tokens(), "Llama 3's are not");
        assertEquals("12345 ab \n\n  x", llama3.decode(llama3.encode("12345 ab \n\n  x").ids()));
    }

    @Test
    void llama3AddsItsBeginningOfText() throws IOException {
        Tokenizer t = digits("llama-bpe", true);
        int bos = t.id("<|begin_of_text|>").getAsInt();
        assertEquals(bos, t.encode("ab").ids()[0]);
        assertEquals("ab", t.decode(t.encode("ab").ids()));
    }

    private static Tokenizer sentencePiece() throws IOException {
        return read(GgufCheckpoints.sentencePiece(new GgufWriter(), 320));
    }

    @Test
    void sentencePieceMergesByScoreAndAddsBos() throws IOException {
        Tokenizer t = sentencePiece();
        Encoding e = t.encode("hello world");
        assertEquals(List.of("<s>", "\u2581hello", "\u2581world"), e.tokens());
        assertEquals(1, e.ids()[0]);
        assertEquals("hello world", t.decode(e.ids()));
        assertEquals(List.of("<s>", "\u2581h", "<0xC3>", "<0xA9>", "l", "l", "o"), t.encode("h\u00e9llo").tokens(),
                "a character without a token falls back to its UTF-8 bytes");
        assertEquals(List.of("<s>"), t.encode("").tokens());
    }

    @ParameterizedTest
    @ValueSource(strings = {"hello world", "  two leading spaces", "trailing ", "caf\u00e9 \u4e2d\u6587 \ud83d\ude00",
        "tab\tand\nnewline", "the tokens, a thing."})
    void sentencePieceDecodesWhatItEncodes(String text) throws IOException {
        Tokenizer t = sentencePiece();
        assertEquals(text, t.decode(t.encode(text).ids()));
    }

    @Test
    void controlTokensInTheTextAreThemselvesAndLeftOutWhenDecoding() throws IOException {
        Tokenizer t = sentencePiece();
        Encoding e = t.encode("hello</s>world");
        assertEquals(List.of("<s>", "\u2581hello", "</s>", "\u2581world"), e.tokens());
        assertEquals("hello world", t.decode(e.ids()), "the space put before the text after a control token stays");
    }

    @Test
    void unknownModelsAndPreTokenizersAreRefusedByName() {
        Tokenizer.FormatException model = assertThrows(Tokenizer.FormatException.class, () -> read(new GgufWriter()
                .string("tokenizer.ggml.model", "t5").strings("tokenizer.ggml.tokens", List.of("a"))));
        assertTrue(model.getMessage().contains("'t5'"), model.getMessage());
        Tokenizer.FormatException pre = assertThrows(Tokenizer.FormatException.class, () -> read(
                GgufCheckpoints.byteLevelBpe(new GgufWriter(), List.of("a", "b", "ab"), List.of("a b"), "deepseek-llm")));
        assertTrue(pre.getMessage().contains("'deepseek-llm'"), pre.getMessage());
        Tokenizer.FormatException missing = assertThrows(Tokenizer.FormatException.class,
                () -> read(new GgufWriter().string("general.architecture", "llama")));
        assertTrue(missing.getMessage().contains("tokenizer.ggml.model is missing"), missing.getMessage());
    }

    @Test
    void duplicateTokensAndSpecialIdsOutsideTheVocabularyAreRefused() {
        assertThrows(Tokenizer.FormatException.class, () -> read(GgufCheckpoints.byteLevelBpe(new GgufWriter(),
                List.of("a", "a"), List.of(), "gpt-2")));
        assertThrows(Tokenizer.FormatException.class, () -> read(GgufCheckpoints.byteLevelBpe(new GgufWriter(),
                List.of("a", "b"), List.of(), "gpt-2").uint32("tokenizer.ggml.eos_token_id", 7)));
    }
}
