package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SentencePiece Unigram tokenizer.json files laid out as the XLM-RoBERTa family ships them (bge-m3,
 * multilingual-e5, paraphrase-multilingual-MiniLM, bge-reranker-v2-m3), written by
 * {@code src/test/python/generate_unigram_tokenizers.py} from models SentencePiece trained with nmt_nfkc (so the
 * {@code Precompiled} charsmap is a real one), give exactly the ids, type ids, attention masks and decoded text of
 * Hugging Face's Rust tokenizers (DJL, test scope) on every line of the multilingual corpora (CJK, Arabic, Hindi,
 * Thai, emoji with joiners, compatibility characters that NFKC rewrites, combining marks, very long words), on text
 * pairs, and on seeded random strings of those characters.
 */
class UnigramMatchesHuggingFaceTest {
    private static List<String> corpus;

    @BeforeAll
    static void readCorpora() {
        corpus = new ArrayList<>(Corpus.read());
        corpus.addAll(DecoderTokenizersMatchHuggingFaceTest.llmCorpus());
        corpus.addAll(unigramCorpus());
        corpus.addAll(NewUnicodeMatchesHuggingFaceTest.LINES);
        assertTrue(corpus.size() > 3000, "corpus lines: " + corpus.size());
    }

    static List<String> unigramCorpus() {
        ObjectMapper json = new ObjectMapper();
        try (InputStream in = UnigramMatchesHuggingFaceTest.class.getResourceAsStream("unigram/corpus.jsonl")) {
            List<String> lines = new ArrayList<>();
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                lines.add(json.readValue(l, String.class));
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] file(String name) throws IOException {
        try {
            Path p = Path.of(UnigramMatchesHuggingFaceTest.class.getResource("unigram/" + name + "/tokenizer.json")
                    .toURI());
            return Files.readAllBytes(p);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"xlmr-roberta", "xlmr-template", "byte-fallback"})
    void everyLineGetsTheIdsMaskAndTextOfHuggingFace(String name) throws IOException {
        byte[] file = file(name);
        List<String> lines = new ArrayList<>(corpus);
        lines.addAll(randomLines(400, 1234));
        assertSameAsHuggingFace(name, file, lines);
    }

    @ParameterizedTest
    @ValueSource(strings = {"xlmr-roberta", "xlmr-template"})
    void pairsGetTheIdsAndTypeIdsOfHuggingFace(String name) throws IOException {
        byte[] file = file(name);
        Tokenizer ours = Tokenizer.fromJson(new ByteArrayInputStream(file));
        List<String> mismatches = new ArrayList<>();
        try (HuggingFaceTokenizer hf = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(file),
                Map.of("truncation", "false", "padding", "false"))) {
            for (int i = 0; i + 1 < corpus.size(); i += 7) {
                ai.djl.huggingface.tokenizers.Encoding want = hf.encode(corpus.get(i), corpus.get(i + 1));
                Encoding got = ours.encode(corpus.get(i), corpus.get(i + 1));
                if (!Arrays.equals(want.getIds(), Arrays.stream(got.ids()).asLongStream().toArray())
                        || !Arrays.equals(want.getTypeIds(), Arrays.stream(got.typeIds()).asLongStream().toArray())
                        || !Arrays.equals(want.getAttentionMask(),
                                Arrays.stream(got.attentionMask()).asLongStream().toArray())) {
                    mismatches.add("pair at line " + i + ": expected " + Arrays.toString(want.getIds()) + " types "
                            + Arrays.toString(want.getTypeIds()) + " but got " + Arrays.toString(got.ids())
                            + " types " + Arrays.toString(got.typeIds()));
                }
            }
        }
        assertEquals(List.of(), mismatches.subList(0, Math.min(8, mismatches.size())),
                mismatches.size() + " mismatching pairs of " + name);
    }

    @Test
    void aUnigramFileThatIsNotWellFormedIsRefusedNamingTheField() throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = (ObjectNode) json.readTree(file("xlmr-template"));
        ((ObjectNode) root.get("model")).put("unk_id", 1_000_000);
        assertRefused(json.writeValueAsBytes(root), "model.unk_id");
        root = (ObjectNode) json.readTree(file("xlmr-template"));
        ((ObjectNode) root.get("model")).put("fuse_unk", false);
        assertRefused(json.writeValueAsBytes(root), "model.fuse_unk");
        root = (ObjectNode) json.readTree(file("xlmr-template"));
        ((ObjectNode) root.path("normalizer").path("normalizers").get(0)).put("precompiled_charsmap", "AAAA");
        assertRefused(json.writeValueAsBytes(root), "normalizer.normalizers[0].precompiled_charsmap");
        root = (ObjectNode) json.readTree(file("xlmr-template"));
        ((ObjectNode) root.get("model")).putArray("vocab").addArray().add("a").add("not a score");
        assertRefused(json.writeValueAsBytes(root), "model.vocab[0]");
    }

    @Test
    void aCharacterWithoutATokenIsOneUnknownTokenPerRunOrItsBytes() throws IOException {
        String text = "a \u0F00\u0F01\u0F02 b";
        for (String name : new String[] {"xlmr-template", "byte-fallback"}) {
            Tokenizer t = Tokenizer.fromJson(new ByteArrayInputStream(file(name)));
            List<String> tokens = t.encode(text, false).tokens();
            if (name.equals("xlmr-template")) {
                assertTrue(tokens.contains("\u0F00\u0F01\u0F02"), "one unknown piece for the run: " + tokens);
                int unknowns = (int) Arrays.stream(t.encode(text, false).ids()).filter(id -> id == 3).count();
                assertEquals(1, unknowns, "unknown ids in " + tokens);
            } else {
                assertEquals(9, tokens.stream().filter(x -> x.matches("<0x[0-9A-F]{2}>")).count(),
                        "byte tokens in " + tokens);
                assertEquals(text, t.decode(t.encode(text).ids()).replace("\u2581", " ").strip());
            }
        }
    }

    private static void assertRefused(byte[] file, String path) {
        Tokenizer.FormatException e = assertThrows(Tokenizer.FormatException.class,
                () -> Tokenizer.fromJson(new ByteArrayInputStream(file)));
        assertTrue(e.getMessage().contains(path), e.getMessage());
    }

    /** Seeded strings of characters drawn from the corpora, so that the lattice meets unusual neighbours. */
    static List<String> randomLines(int count, long seed) {
        Random random = new Random(seed);
        int[] chars = String.join("", corpus).codePoints().distinct().toArray();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            StringBuilder b = new StringBuilder();
            int n = 1 + random.nextInt(40);
            for (int j = 0; j < n; j++) {
                b.appendCodePoint(random.nextInt(5) == 0 ? ' ' : chars[random.nextInt(chars.length)]);
            }
            out.add(b.toString());
        }
        return out;
    }

    private static void assertSameAsHuggingFace(String name, byte[] file, List<String> lines) throws IOException {
        Tokenizer ours = Tokenizer.fromJson(new ByteArrayInputStream(file));
        List<String> mismatches = new ArrayList<>();
        try (HuggingFaceTokenizer hf = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(file),
                Map.of("truncation", "false", "padding", "false"))) {
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                for (boolean special : new boolean[] {true, false}) {
                    ai.djl.huggingface.tokenizers.Encoding want = hf.encode(line, special, false);
                    Encoding got = ours.encode(line, special);
                    if (!Arrays.equals(want.getIds(), Arrays.stream(got.ids()).asLongStream().toArray())) {
                        mismatches.add("line " + i + " " + WordPieceMatchesHuggingFaceTest.escape(line)
                                + (special ? "" : " without specials") + ": expected "
                                + Arrays.toString(want.getIds()) + " " + Arrays.toString(want.getTokens())
                                + " but got " + Arrays.toString(got.ids()) + " " + got.tokens());
                        continue;
                    }
                    assertArrayEquals(want.getAttentionMask(),
                            Arrays.stream(got.attentionMask()).asLongStream().toArray(), "mask of line " + i);
                    assertArrayEquals(want.getTypeIds(), Arrays.stream(got.typeIds()).asLongStream().toArray(),
                            "type ids of line " + i);
                    String text = hf.decode(want.getIds(), true);
                    if (!text.equals(ours.decode(got.ids(), true))) {
                        mismatches.add("line " + i + " decodes to "
                                + WordPieceMatchesHuggingFaceTest.escape(ours.decode(got.ids(), true)) + ", not "
                                + WordPieceMatchesHuggingFaceTest.escape(text));
                    }
                }
            }
        }
        assertEquals(List.of(), mismatches.subList(0, Math.min(8, mismatches.size())),
                mismatches.size() + " mismatches over " + lines.size() + " lines of " + name);
    }
}
