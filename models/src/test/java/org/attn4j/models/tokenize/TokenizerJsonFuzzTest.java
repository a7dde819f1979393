package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.attn4j.models.Mutations;
import org.junit.jupiter.api.Test;

/**
 * A seeded mutation loop over two small valid tokenizer.json files (WordPiece with every part attn4j reads, and
 * byte-level BPE): half the mutants are byte mutations, half replace one JSON value by a value of another kind.
 * Every mutant is read and then encodes, batches and decodes a few texts, or it is refused with an
 * {@link IOException} or {@link IllegalArgumentException} that has a message. Anything else (another exception,
 * an error, a hang) fails with the case number and the mutant in Base64. The time limit is
 * there to catch a hang, not to time the loop.
 */
class TokenizerJsonFuzzTest {
    private static final int CASES = 12_000;
    private static final long SEED = 0x70CE_0001L;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> TEXTS = List.of("Hello, [MASK] wörld! 你好 ab abc", "", "  \u0000\u200B",
            "x".repeat(300), "a<|endoftext|>b 😀 's");

    @Test
    void everyMutatedTokenizerJsonIsReadOrRefusedWithAMessage() throws IOException {
        List<byte[]> seeds = List.of(wordPiece(), byteLevelBpe());
        for (byte[] seed : seeds) {
            assertTrue(check(-1, seed), "a seed is refused");
        }
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            SplittableRandom random = new SplittableRandom(SEED);
            int read = 0;
            for (int c = 0; c < CASES; c++) {
                byte[] seed = seeds.get(c % seeds.size());
                byte[] mutant = c % 4 < 2 ? Mutations.mutate(seed, random) : replaceAValue(seed, random);
                if (check(c, mutant)) {
                    read++;
                }
            }
            assertTrue(read > CASES / 20 && read < CASES, "mutants read: " + read + " of " + CASES);
        });
    }

    private static boolean check(int c, byte[] mutant) {
        return Mutations.readOrRefused(c, mutant, bytes -> {
            Tokenizer t = Tokenizer.fromJson(new ByteArrayInputStream(bytes));
            for (String text : TEXTS) {
                use(c, () -> t.decode(t.encode(text).ids()));
                use(c, () -> t.encode(text, text));
            }
            use(c, () -> t.encodeBatch(TEXTS, 8));
        });
    }

    /**
     * A tokenizer that was read may still refuse a text with a message: a byte-level symbol outside a BPE vocabulary
     * that has no unk_token.
     */
    private static void use(int c, Runnable r) {
        try {
            r.run();
        } catch (IllegalArgumentException e) {
            assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "case " + c + ": no message in " + e);
        }
    }

    /** Replaces one value anywhere in the tree by null, a number at an edge, a string, an array or an object. */
    private static byte[] replaceAValue(byte[] seed, SplittableRandom random) throws IOException {
        JsonNode root = JSON.readTree(seed);
        List<JsonNode> containers = new ArrayList<>();
        collect(root, containers);
        JsonNode parent = containers.get(random.nextInt(containers.size()));
        JsonNode value = switch (random.nextInt(10)) {
            case 0 -> JSON.nullNode();
            case 1 -> JSON.getNodeFactory().numberNode(-1);
            case 2 -> JSON.getNodeFactory().numberNode(Integer.MAX_VALUE);
            case 3 -> JSON.getNodeFactory().numberNode(1e300);
            case 4 -> JSON.getNodeFactory().textNode("");
            case 5 -> JSON.getNodeFactory().textNode("[UNK]");
            case 6 -> JSON.createArrayNode().add(0).add("a");
            case 7 -> JSON.createObjectNode();
            case 8 -> JSON.getNodeFactory().booleanNode(random.nextBoolean());
            default -> JSON.getNodeFactory().numberNode(random.nextInt(-3, 40));
        };
        if (parent instanceof ObjectNode o && o.size() > 0) {
            List<String> names = new ArrayList<>();
            o.fieldNames().forEachRemaining(names::add);
            o.set(names.get(random.nextInt(names.size())), value);
        } else if (parent instanceof ArrayNode a && a.size() > 0) {
            a.set(random.nextInt(a.size()), value);
        }
        return JSON.writeValueAsBytes(root);
    }

    private static void collect(JsonNode node, List<JsonNode> out) {
        if (node.isContainerNode()) {
            out.add(node);
            node.forEach(child -> collect(child, out));
        }
    }

    static byte[] wordPiece() {
        return ("""
                {"version": "1.0",
                 "truncation": {"direction": "Right", "max_length": 16, "strategy": "LongestFirst", "stride": 0},
                 "padding": {"strategy": "BatchLongest", "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
                 "added_tokens": [
                   {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false,
                    "normalized": false, "special": true},
                   {"id": 1, "content": "[UNK]", "special": true},
                   {"id": 2, "content": "[CLS]", "special": true},
                   {"id": 3, "content": "[SEP]", "special": true},
                   {"id": 4, "content": "[MASK]", "lstrip": true, "special": true}],
                 "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                   "strip_accents": null, "lowercase": true},
                 "pre_tokenizer": {"type": "BertPreTokenizer"},
                 "post_processor": {"type": "TemplateProcessing",
                   "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                              {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                   "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                            {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                            {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                   "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                                      "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
                 "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
                 "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                   "max_input_chars_per_word": 100,
                   "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "hello": 5, ",": 6,
                     "!": 7, "world": 8, "wo": 9, "##rld": 10, "a": 11, "##b": 12, "##c": 13, "你": 14, "好": 15,
                     "x": 16, "##x": 17}}}
                """).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] byteLevelBpe() {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode model = root.putObject("model");
        model.put("type", "BPE").putNull("dropout");
        model.putNull("unk_token");
        ObjectNode vocab = model.putObject("vocab");
        for (int b = 0; b < 256; b++) {
            vocab.put(byteChar(b), b);
        }
        vocab.put("he", 256).put("ll", 257).put("hell", 258).put("hello", 259).put("\u0120w", 260)
                .put("<|endoftext|>", 261);
        model.putArray("merges").add("h e").add("l l").add("he ll").add("hell o").add("\u0120 w");
        root.putObject("pre_tokenizer").put("type", "ByteLevel").put("add_prefix_space", false)
                .put("use_regex", true);
        root.putObject("post_processor").put("type", "ByteLevel");
        root.putObject("decoder").put("type", "ByteLevel");
        root.putArray("added_tokens").addObject().put("id", 261).put("content", "<|endoftext|>")
                .put("special", true);
        try {
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The character byte-level BPE spells byte {@code b} with. */
    private static String byteChar(int b) {
        boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        if (printable) {
            return String.valueOf((char) b);
        }
        int n = 0;
        for (int x = 0; x < b; x++) {
            if (!((x >= '!' && x <= '~') || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE && x <= 0xFF))) {
                n++;
            }
        }
        return String.valueOf((char) (256 + n));
    }
}
