package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WordPieceTokenizerTest {

    @Test
    void encodesATextBetweenClsAndSep() throws IOException {
        Encoding e = WordPieceMatchesHuggingFaceTest.minilm().encode("Hello, world!");
        assertEquals(List.of("[CLS]", "hello", ",", "world", "!", "[SEP]"), e.tokens());
        assertArrayEquals(new int[] {101, 7592, 1010, 2088, 999, 102}, e.ids());
        assertArrayEquals(new int[6], e.typeIds());
        assertArrayEquals(new int[] {1, 1, 1, 1, 1, 1}, e.attentionMask());
    }

    @Test
    void givesThePairTypeOneAfterTheFirstSep() throws IOException {
        Encoding e = WordPieceMatchesHuggingFaceTest.minilm().encode("a question", "an answer");
        assertEquals(List.of("[CLS]", "a", "question", "[SEP]", "an", "answer", "[SEP]"), e.tokens());
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1}, e.typeIds());
    }

    @Test
    void padsABatchOnTheRightToItsLongestText() throws IOException {
        Batch b = WordPieceMatchesHuggingFaceTest.minilm().encodeBatch(List.of("short", "a bit longer text"), 128);
        assertEquals(2, b.size());
        assertEquals(6, b.length());
        assertArrayEquals(new int[] {3, 6}, b.lengths());
        assertArrayEquals(new int[] {101, 2460, 102, 0, 0, 0}, b.ids()[0]);
        assertArrayEquals(new int[] {1, 1, 1, 0, 0, 0}, b.attentionMask()[0]);
        assertArrayEquals(new int[] {1, 1, 1, 1, 1, 1}, b.attentionMask()[1]);
        assertArrayEquals(new int[6], b.typeIds()[1]);
    }

    @Test
    void printsWhatTheReadmeSaysForItsBatch() throws IOException {
        Batch b = WordPieceMatchesHuggingFaceTest.minilm().encodeBatch(List.of("Tokenizers are fun.", "Short."), 128);
        assertArrayEquals(new int[][] {{101, 19204, 17629, 2015, 2024, 4569, 1012, 102},
            {101, 2460, 1012, 102, 0, 0, 0, 0}}, b.ids());
        assertArrayEquals(new int[][] {{1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 0, 0, 0, 0}}, b.attentionMask());
    }

    @Test
    void truncatesABatchToItsMaximumWithSepLast() throws IOException {
        Batch b = WordPieceMatchesHuggingFaceTest.minilm().encodeBatch(List.of("one two three four five"), 4);
        assertEquals(List.of("[CLS]", "one", "two", "[SEP]"), b.encodings().get(0).tokens());
    }

    @Test
    void splitsSpecialTokensOutOfTheRawTextAndUnknownWordsBecomeUnk() throws IOException {
        Tokenizer t = WordPieceMatchesHuggingFaceTest.minilm();
        assertEquals(List.of("[CLS]", "the", "[MASK]", "sat", "[SEP]"), t.encode("the [MASK] sat").tokens());
        assertEquals(List.of("[CLS]", "[UNK]", "[SEP]"), t.encode("x".repeat(101)).tokens());
        assertEquals(List.of("[CLS]", "[SEP]"), t.encode("\u200B\u0000 \t").tokens());
    }

    @Test
    void decodesBackToNormalizedText() throws IOException {
        Tokenizer t = WordPieceMatchesHuggingFaceTest.minilm();
        assertEquals("hello, world! tokenization isn ' t hard.",
                t.decode(t.encode("Hello, world! Tokenization isn't hard.").ids()));
        assertThrows(IllegalArgumentException.class, () -> t.decode(new int[] {30522}));
    }

    @Test
    void knowsItsVocabularyAndSpecialIds() throws IOException {
        Tokenizer t = WordPieceMatchesHuggingFaceTest.minilm();
        assertEquals(30522, t.vocabSize());
        assertEquals(0, t.padId());
        assertEquals(101, t.id("[CLS]").orElseThrow());
        assertTrue(t.id("##ing").isPresent());
        assertTrue(t.id("notatoken").isEmpty());
    }

    @Test
    void refusesAMaximumBelowTheSpecialTokensAndNullText() throws IOException {
        Tokenizer t = WordPieceMatchesHuggingFaceTest.minilm();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.withMaxLength(1));
        assertTrue(e.getMessage().contains("maxLength is 1"), e.getMessage());
        assertEquals(List.of("[CLS]", "[SEP]", "[SEP]"), t.withMaxLength(3).encode("a", "b").tokens());
        assertThrows(IllegalArgumentException.class, () -> t.withMaxLength(2).encode("a", "b"));
        e = assertThrows(IllegalArgumentException.class, () -> t.encode(null));
        assertTrue(e.getMessage().contains("argument text is null"), e.getMessage());
    }

    @Test
    void readsAFileAndSaysWhatIsWrongWithABrokenOne(@TempDir Path dir) throws IOException {
        Path good = dir.resolve("tokenizer.json");
        Files.writeString(good, """
                {"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1, "##b": 2}},
                 "normalizer": {"type": "BertNormalizer"}, "pre_tokenizer": {"type": "BertPreTokenizer"}}
                """, StandardCharsets.UTF_8);
        assertArrayEquals(new int[] {1, 2, 0}, Tokenizer.fromJson(good).encode("AB c").ids());
        Files.writeString(good, """
                {"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"a": 1}}}
                """, StandardCharsets.UTF_8);
        IOException e = assertThrows(Tokenizer.FormatException.class, () -> Tokenizer.fromJson(good));
        assertTrue(e.getMessage().contains("model.unk_token '[UNK]' is not in the vocabulary"), e.getMessage());
        Files.writeString(good, """
                {"model": {"type": "WordPiece", "vocab": {"[UNK]": 0}},
                 "post_processor": {"type": "BertProcessing", "cls": ["[CLS]", 101], "sep": ["[SEP]", 102]}}
                """, StandardCharsets.UTF_8);
        e = assertThrows(Tokenizer.FormatException.class, () -> Tokenizer.fromJson(good));
        assertTrue(e.getMessage().contains("post_processor: special token id 101 is not in the vocabulary"),
                e.getMessage());
    }
}
