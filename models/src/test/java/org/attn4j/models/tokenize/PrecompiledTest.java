package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code Precompiled} normalizer with the nmt_nfkc charsmap SentencePiece trained: every line of the
 * multilingual corpus and a set of short clusters (a mark after a fullwidth letter, which Hugging Face drops; a
 * halfwidth sound mark; CR LF; a NUL) become the text Hugging Face's normalizer makes of them
 * ({@code unigram/precompiled.jsonl}, written by {@code generate_unigram_tokenizers.py}), and grapheme clusters end
 * where Unicode says.
 */
class PrecompiledTest {

    @Test
    void everyLineIsNormalizedAsHuggingFaceNormalizesIt() throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode normalizer = json.readTree(UnigramMatchesHuggingFaceTest.file("xlmr-template")).path("normalizer")
                .path("normalizers").get(0);
        Precompiled precompiled = new Precompiled(Base64.getDecoder().decode(
                normalizer.path("precompiled_charsmap").asText()));
        List<String> mismatches = new ArrayList<>();
        int lines = 0;
        try (var in = PrecompiledTest.class.getResourceAsStream("unigram/precompiled.jsonl")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                JsonNode pair = json.readTree(line);
                String got = precompiled.normalize(pair.get("text").asText());
                if (!got.equals(pair.get("normalized").asText())) {
                    mismatches.add(WordPieceMatchesHuggingFaceTest.escape(pair.get("text").asText()) + ": expected "
                            + WordPieceMatchesHuggingFaceTest.escape(pair.get("normalized").asText()) + " but got "
                            + WordPieceMatchesHuggingFaceTest.escape(got));
                }
                lines++;
            }
        }
        assertEquals(List.of(), mismatches.subList(0, Math.min(8, mismatches.size())),
                mismatches.size() + " mismatches over " + lines + " lines");
    }

    @Test
    void graphemeClustersEndWhereUnicodeSays() {
        assertClusters("\r\n|a", "\r\na");
        assertClusters("e\u0301\u0302|x", "e\u0301\u0302x");
        assertClusters("\u0600a|b", "\u0600ab");
        assertClusters("\u1100\u1161\u11a8|\u1100", "\u1100\u1161\u11a8\u1100");
        assertClusters("\uac00\u11a8|\uac01", "\uac00\u11a8\uac01");
        assertClusters("a|\u0000|\u0301", "a\u0000\u0301");
        assertClusters("\ud83d\udc4d\ud83c\udffd\u200d|x", "\ud83d\udc4d\ud83c\udffd\u200dx");
        assertClusters("\u0915\u093f|\u0915", "\u0915\u093f\u0915");
    }

    @Test
    void aCharsmapWhoseSizesDoNotFitIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Precompiled(new byte[] {1, 0}));
        assertThrows(IllegalArgumentException.class, () -> new Precompiled(new byte[] {8, 0, 0, 0, 1, 2, 3, 4}));
        assertThrows(IllegalArgumentException.class, () -> new Precompiled(new byte[] {3, 0, 0, 0, 1, 2, 3}));
    }

    private static void assertClusters(String expected, String text) {
        StringBuilder out = new StringBuilder();
        for (int at = 0; at < text.length(); ) {
            int end = Precompiled.graphemeEnd(text, at);
            out.append(out.length() > 0 ? "|" : "").append(text, at, end);
            at = end;
        }
        assertEquals(WordPieceMatchesHuggingFaceTest.escape(expected), WordPieceMatchesHuggingFaceTest.escape(
                out.toString()));
    }
}
