package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The WordPiece tokenizer of the real all-MiniLM-L6-v2 {@code tokenizer.json} gives exactly the ids, type ids and
 * attention masks of Hugging Face's Rust tokenizers (through DJL, test scope) on every line of the corpus, alone,
 * as pairs and truncated, and decodes those ids to the same text.
 */
class WordPieceMatchesHuggingFaceTest {
    static final String MINILM_JSON = "/all-minilm-l6-v2-tokenizer.json";

    private static List<String> corpus;

    @BeforeAll
    static void readCorpus() {
        corpus = Corpus.read();
        assertTrue(corpus.size() >= 2000, "corpus lines: " + corpus.size());
    }

    static Tokenizer minilm() throws IOException {
        try (InputStream in = WordPieceMatchesHuggingFaceTest.class.getResourceAsStream(MINILM_JSON)) {
            return Tokenizer.fromJson(in);
        }
    }

    static HuggingFaceTokenizer reference(Map<String, String> options) throws IOException {
        try (InputStream in = WordPieceMatchesHuggingFaceTest.class.getResourceAsStream(MINILM_JSON)) {
            return HuggingFaceTokenizer.newInstance(in, options);
        }
    }

    @Test
    void everyCorpusLineGetsTheIdsAndTheDecodedTextOfHuggingFace() throws IOException {
        Tokenizer ours = minilm().withMaxLength(Integer.MAX_VALUE);
        try (HuggingFaceTokenizer hf = reference(Map.of("truncation", "false", "padding", "false"))) {
            List<String> mismatches = new ArrayList<>();
            for (int i = 0; i < corpus.size(); i++) {
                String line = corpus.get(i);
                ai.djl.huggingface.tokenizers.Encoding want = hf.encode(line);
                Encoding got = ours.encode(line);
                compare("line " + i, line, want, got, mismatches);
                String decoded = hf.decode(want.getIds(), true);
                if (!decoded.equals(ours.decode(got.ids()))) {
                    mismatches.add("line " + i + " decodes to " + escape(ours.decode(got.ids())) + ", not "
                            + escape(decoded));
                }
            }
            assertEquals(List.of(), mismatches.subList(0, Math.min(10, mismatches.size())),
                    mismatches.size() + " of " + corpus.size() + " lines differ");
        }
    }

    /** Hugging Face computes every overflowing window of a truncated text, so short lengths test fewer lines. */
    @Test
    void pairsAndTruncationGetTheIdsOfHuggingFace() throws IOException {
        List<String> mismatches = new ArrayList<>();
        for (int max : new int[] {5, 16, 64}) {
            Tokenizer ours = minilm().withMaxLength(max);
            try (HuggingFaceTokenizer hf = reference(Map.of("truncation", "true", "padding", "false",
                    "maxLength", Integer.toString(max)))) {
                int step = max < 16 ? 30 : 3;
                for (int i = 0; i + 1 < corpus.size(); i += step) {
                    String a = corpus.get(i);
                    String b = corpus.get(i + 1);
                    compare("max " + max + " line " + i, a, hf.encode(a), ours.encode(a), mismatches);
                    compare("max " + max + " pair " + i, a + " | " + b, hf.encode(a, b), ours.encode(a, b),
                            mismatches);
                }
            }
        }
        assertEquals(List.of(), mismatches.subList(0, Math.min(10, mismatches.size())),
                mismatches.size() + " encodings differ");
    }

    @Test
    void theFileTruncatesTo128AsHuggingFaceDoesByDefault() throws IOException {
        Tokenizer ours = minilm();
        assertEquals(128, ours.maxLength());
        String longText = String.join(" ", corpus.subList(0, 40));
        try (HuggingFaceTokenizer hf = reference(Map.of("truncation", "true", "padding", "false",
                "maxLength", "128"))) {
            List<String> mismatches = new ArrayList<>();
            compare("40 lines", longText, hf.encode(longText), ours.encode(longText), mismatches);
            assertEquals(List.of(), mismatches);
        }
        assertEquals(128, ours.encode(longText).length());
    }

    private static void compare(String where, String text, ai.djl.huggingface.tokenizers.Encoding want,
                                Encoding got, List<String> mismatches) {
        long[] ids = Arrays.stream(got.ids()).asLongStream().toArray();
        long[] types = Arrays.stream(got.typeIds()).asLongStream().toArray();
        if (!Arrays.equals(want.getIds(), ids) || !Arrays.equals(want.getTypeIds(), types)
                || !Arrays.equals(want.getAttentionMask(), Arrays.stream(got.attentionMask()).asLongStream()
                .toArray())) {
            mismatches.add(where + " " + escape(text) + ": expected " + Arrays.toString(want.getTokens())
                    + Arrays.toString(want.getIds()) + " types " + Arrays.toString(want.getTypeIds()) + " but got "
                    + got.tokens() + Arrays.toString(got.ids()) + " types " + Arrays.toString(got.typeIds()));
        }
    }

    static String escape(String s) {
        StringBuilder out = new StringBuilder("\"");
        s.codePoints().forEach(c -> {
            if (c < 0x20 || (c >= 0x7F && c < 0xA0) || Character.getType(c) == Character.FORMAT
                    || Character.isWhitespace(c) && c != ' ') {
                out.append(String.format("\\u%04X", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.append('"').toString();
    }

    @AfterAll
    static void forget() {
        corpus = null;
    }
}
