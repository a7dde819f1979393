package org.attn4j.bench.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.attn4j.models.embed.SentenceEmbedding;
import org.junit.jupiter.api.Test;

class EncoderFamiliesMainTest {

    @Test
    void everyTextIsTheLengthMinusTwoWordsTheGeneratorsVocabularyHolds() {
        List<String> texts = EncoderFamiliesMain.texts(32, 128);
        assertEquals(32, texts.size());
        for (String text : texts) {
            String[] words = text.split(" ");
            assertEquals(126, words.length, text);
            for (String w : words) {
                int id = Integer.parseInt(w.substring(1));
                assertTrue(w.startsWith("t") && id >= 5 && id < 1000, w);
            }
        }
        assertEquals(texts, EncoderFamiliesMain.texts(32, 128), "seeded");
    }

    @Test
    void theDefaultsAreTheTargetsBatchLengthAndThreadsAndUnknownNamesAreRefused() {
        EncoderFamiliesMain.Settings s = EncoderFamiliesMain.parse(new String[0]);
        assertEquals(List.of(32, 128, 2), List.of(s.batch(), s.length(), s.threads()));
        assertEquals(List.copyOf(EncoderFamiliesMain.FAMILIES.keySet()), s.families());
        assertEquals(Path.of("bench", "target", "families"), s.dir());
        IllegalArgumentException family = assertThrows(IllegalArgumentException.class,
                () -> EncoderFamiliesMain.parse(new String[] {"--families", "bert,t5"}));
        assertTrue(family.getMessage().contains("unknown family 't5'"), family.getMessage());
        IllegalArgumentException option = assertThrows(IllegalArgumentException.class,
                () -> EncoderFamiliesMain.parse(new String[] {"--bach", "8"}));
        assertTrue(option.getMessage().contains("'--bach'"), option.getMessage());
    }

    @Test
    void vectorsWithinTheBoundPassAndGiveTheLargestErrorAndValue() {
        List<SentenceEmbedding> ours = List.of(embedding(1.0f, -4.0f), embedding(0.5f, 2.0f));
        float[][] theirs = {{1.0f, -4.001f}, {0.5f, 2.0f}};
        double[] error = EncoderFamiliesMain.compare("bert", ours, theirs, 2e-3);
        assertArrayEquals(new double[] {0.001, 4.001}, error, 1e-6);
    }

    @Test
    void vectorsPastTheBoundStopTheRunNamingFamilyRowFeatureAndValues() {
        List<SentenceEmbedding> ours = List.of(embedding(1.0f, -4.0f), embedding(0.5f, 2.0f));
        float[][] theirs = {{1.0f, -4.0f}, {0.5f, 2.1f}};
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> EncoderFamiliesMain.compare("xlmr", ours, theirs, 2e-3));
        assertTrue(e.getMessage().startsWith("xlmr: attn4j and ONNX Runtime differ: row 1 feature 1, ONNX Runtime 2.1,"
                + " attn4j 2.0, abs error 1.000e-01"), e.getMessage());
    }

    private static SentenceEmbedding embedding(float... v) {
        return new SentenceEmbedding("t5", new int[] {2, 5, 3}, v);
    }
}
