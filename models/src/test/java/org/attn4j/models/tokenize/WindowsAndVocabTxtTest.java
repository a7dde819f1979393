package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Tokenizer#fromVocabTxt} against the {@code tokenizer.json} Hugging Face made from the same vocabulary
 * (all-MiniLM-L6-v2's), and {@link Tokenizer#encodeWindows}'s laws, over the corpus.
 */
class WindowsAndVocabTxtTest {
    @TempDir
    static Path dir;

    private static Tokenizer fromJson;
    private static Path vocabTxt;
    private static List<String> corpus;

    @BeforeAll
    static void read() throws IOException {
        JsonNode root;
        try (InputStream in = WindowsAndVocabTxtTest.class.getResourceAsStream("/all-minilm-l6-v2-tokenizer.json")) {
            byte[] bytes = in.readAllBytes();
            root = new ObjectMapper().readTree(bytes);
            fromJson = Tokenizer.fromJson(new java.io.ByteArrayInputStream(bytes));
        }
        TreeMap<Integer, String> byId = new TreeMap<>();
        root.get("model").get("vocab").properties().forEach(e -> byId.put(e.getValue().asInt(), e.getKey()));
        assertEquals(byId.size() - 1, byId.lastKey(), "ids 0 .. n-1 without a gap");
        vocabTxt = dir.resolve("vocab.txt");
        Files.writeString(vocabTxt, String.join("\n", byId.values()) + "\n");
        corpus = Corpus.read();
    }

    @Test
    void aVocabTxtGivesTheTokenizerHuggingFaceBuildsFromIt() throws IOException {
        Tokenizer fromVocab = Tokenizer.fromVocabTxt(vocabTxt, null).withMaxLength(128);
        Tokenizer reference = fromJson.withMaxLength(128);
        assertEquals(reference.vocabSize(), fromVocab.vocabSize());
        assertEquals(reference.padId(), fromVocab.padId());
        for (int i = 0; i < corpus.size(); i++) {
            String line = corpus.get(i);
            Encoding a = reference.encode(line);
            Encoding b = fromVocab.encode(line);
            assertEquals(a.tokens(), b.tokens(), "line " + (i + 1));
            assertEquals(java.util.Arrays.toString(a.ids()), java.util.Arrays.toString(b.ids()), "line " + (i + 1));
            String next = corpus.get((i + 1) % corpus.size());
            Encoding pa = reference.encode(line, next);
            Encoding pb = fromVocab.encode(line, next);
            assertEquals(java.util.Arrays.toString(pa.typeIds()), java.util.Arrays.toString(pb.typeIds()),
                    "pair " + (i + 1));
            assertEquals(java.util.Arrays.toString(pa.ids()), java.util.Arrays.toString(pb.ids()), "pair " + (i + 1));
            assertEquals(reference.decode(a.ids()), fromVocab.decode(b.ids()), "decode " + (i + 1));
        }
    }

    @Test
    void tokenizerConfigSetsCaseLengthAndSpecialsAndRefusesWhatItCannotHonour() throws IOException {
        Path config = dir.resolve("tokenizer_config.json");
        Files.writeString(config, "{\"do_lower_case\": false, \"model_max_length\": 5, "
                + "\"unk_token\": {\"content\": \"[UNK]\", \"special\": true}, \"tokenizer_class\": \"BertTokenizer\"}");
        Tokenizer cased = Tokenizer.fromVocabTxt(vocabTxt, config);
        assertEquals(5, cased.maxLength());
        assertEquals(List.of("[CLS]", "[UNK]", "world", "!", "[SEP]"), cased.encode("Hello world! again").tokens());

        Files.writeString(config, "{\"never_split\": [\"[FOO]\"]}");
        Tokenizer.FormatException e = assertThrows(Tokenizer.FormatException.class,
                () -> Tokenizer.fromVocabTxt(vocabTxt, config));
        assertTrue(e.getMessage().contains("tokenizer_config.never_split"), e.getMessage());
        Files.writeString(config, "{\"tokenizer_class\": \"XLMRobertaTokenizer\"}");
        e = assertThrows(Tokenizer.FormatException.class, () -> Tokenizer.fromVocabTxt(vocabTxt, config));
        assertTrue(e.getMessage().contains("'XLMRobertaTokenizer' is not a BERT WordPiece tokenizer"), e.getMessage());
        Files.writeString(config, "{\"do_basic_tokenize\": false}");
        e = assertThrows(Tokenizer.FormatException.class, () -> Tokenizer.fromVocabTxt(vocabTxt, config));
        assertTrue(e.getMessage().contains("tokenizer_config.do_basic_tokenize"), e.getMessage());

        Path noCls = Files.writeString(dir.resolve("no-cls.txt"), "[PAD]\n[UNK]\nhello\n");
        e = assertThrows(Tokenizer.FormatException.class, () -> Tokenizer.fromVocabTxt(noCls, null));
        assertTrue(e.getMessage().contains("has no '[CLS]'"), e.getMessage());
    }

    @Test
    void windowsCoverTheWholeTextInOrderFitAndCutBetweenWords() {
        for (int max : new int[] {3, 8, 16}) {
            Tokenizer t = fromJson.withMaxLength(max);
            Tokenizer whole = fromJson.withMaxLength(Integer.MAX_VALUE);
            for (int i = 0; i < corpus.size(); i++) {
                String line = corpus.get(i);
                List<Encoding> windows = t.encodeWindows(line);
                List<String> inner = new ArrayList<>();
                for (int w = 0; w < windows.size(); w++) {
                    List<String> tokens = windows.get(w).tokens();
                    String where = "line " + (i + 1) + " window " + w + " of max " + max + ": " + tokens;
                    assertTrue(tokens.size() <= max, where);
                    assertEquals("[CLS]", tokens.get(0), where);
                    assertEquals("[SEP]", tokens.get(tokens.size() - 1), where);
                    assertEquals(windows.get(w).length(), windows.get(w).ids().length, where);
                    List<String> body = tokens.subList(1, tokens.size() - 1);
                    if (w + 1 < windows.size()) {
                        assertTrue(!body.isEmpty(), where);
                        String next = windows.get(w + 1).tokens().get(1);
                        boolean wholeWord = body.subList(1, body.size()).stream().allMatch(s -> s.startsWith("##"));
                        assertTrue(!next.startsWith("##") || (wholeWord && body.size() == max - 2),
                                "a cut inside a word that fits a window: " + where + " then " + next);
                    }
                    inner.addAll(body);
                }
                List<String> all = whole.encode(line).tokens();
                assertEquals(all.subList(1, all.size() - 1), inner, "line " + (i + 1) + " of max " + max);
                if (all.size() <= max) {
                    assertEquals(List.of(t.encode(line).tokens()), windows.stream().map(Encoding::tokens).toList());
                }
            }
        }
    }
}
