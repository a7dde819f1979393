package org.attn4j.models.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class VocabularyTest {

    @Test
    void wordsAreSortedUniqueWithPunctuationStrippedAndNumberedInOrder() {
        Vocabulary v = Vocabulary.fromText("Your journey starts with one step. One step, then the journey!");
        assertEquals(List.of("One", "Your", "journey", "one", "starts", "step", "the", "then", "with"), v.words());
        assertEquals(0, v.id("One"));
        assertEquals(8, v.id("with"));
        assertEquals("journey", v.word(2));
    }

    @Test
    void encodeAndDecodeRoundTrip() {
        Vocabulary v = Vocabulary.fromText("Your journey starts with one step");
        int[] ids = v.encode("Your journey starts with one step");
        assertArrayEquals(new int[] {0, 1, 3, 5, 2, 4}, ids);
        assertEquals("Your journey starts with one step", v.decode(ids));
    }

    @Test
    void apostrophesAreDeletedLikePythonsStringPunctuation() {
        assertEquals(List.of("dont", "panic"), Vocabulary.tokenize("Don't -- panic!", true));
    }

    @Test
    void lowercasingMergesCase() {
        Vocabulary v = Vocabulary.fromText("The the THE cat", true);
        assertEquals(List.of("cat", "the"), v.words());
        assertEquals(1, v.id("The"));
    }

    @Test
    void unknownWordsAndIdsAreRejectedByName() {
        Vocabulary v = Vocabulary.fromText("a b");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> v.encode("a zebra")).getMessage()
                .contains("'zebra'"));
        assertThrows(IllegalArgumentException.class, () -> v.word(2));
    }

    @Test
    void emptyTextGivesAnEmptyVocabulary() {
        assertEquals(0, Vocabulary.fromText(" ... ").size());
    }

    @Test
    void emojiAndAccentedWordsAreWordsOnlyAsciiPunctuationIsDropped() {
        assertEquals(List.of("I", "\u2764\uFE0F", "café", "\uD83D\uDE00"),
                Vocabulary.tokenize("I \u2764\uFE0F café, \uD83D\uDE00!", false));
    }
}
