package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Text with characters that Unicode 14 to 16 added (emoji, digits, letters, marks), which Java 17's own tables call
 * unassigned, gets the ids of Hugging Face's Rust tokenizers (DJL, test scope) under the Split regexes of Llama 3,
 * Qwen2/Qwen3, DeepSeek-V3 and gpt-oss: the regex classes come from the carried Unicode 16 tables on every JDK.
 * DeepSeek-V3's and gpt-oss's pre-tokenizers are put in front of GPT-2's byte-level vocabulary. A
 * {@code single_word} added token is kept or dropped next to the same word characters as there.
 */
class NewUnicodeMatchesHuggingFaceTest {
    static final List<String> LINES = List.of(
            "🫶 🥹 🫠 🩷 🫨 🩵 🪿 🫎 🪼 🫩 🫆 🪾 🫜 🪉 🫟",
            "love it🫶🫶 so much🥹, melting🫠! pink🩷heart",
            "👩🏽‍🤝‍👨🏿 🧑‍🧑‍🧒 🫱🏻‍🫲🏿 🙂‍↔️ 🙂‍↕️ 🐦‍🔥 🍋‍🟩 🏃‍➡️",
            "Tangsa 𖫀𖫁𖫂𖫃 Kawi 𑽐𑽑𑽒 Nag Mundari 𞓰𞓱𞓲𞓳 Garay 𐵀𐵁𐵂 Sunuwar 𑯰𑯱 Kirat Rai 𖵰𖵱𖵲𖵳",
            "digits 12𖫃45𞓳6789 and 𐵀𐵁𐵂𐵃𐵄 mixed with 123",
            "Garay letters 𐵐𐵑𐵒 Toto 𞊐𞊑𞊒 Vithkuqi 𐕰𐕱 Cypro-Minoan 𒾐𒾑 Tulu-Tigalari 𑎀𑎁𑎂",
            "Arabic with new marks: ع\u0897ر\u0898ب and Kannada ಝ\u0CDD Telugu \u0C5Dx",
            "Egyptian 𓑠𓑡 Kaktovik 𝋀𝋁𝋂 and CJK Ext. I 𮯰𮯱 and Ext. H 𱍐𱍑",
            "'s 'S 🫶'll 🥹'LL a🫠b 1🩷2 x\u0897y",
            "    🫶\n\n🥹\t🫠\r\n  🩷  ",
            "symbols ⃀ ₿ 🛜 🛝 🪻 🫷🫸 and new currency ⃁",
            "नमस्ते 🫶 世界 🥹 مرحبا 🫠 שלום 🩷 こんにちは");

    private static final String DEEPSEEK_V3 = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}"
            + "\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";
    private static final String GPT_OSS = "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}"
            + "\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+"
            + "[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*"
            + "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

    @ParameterizedTest
    @ValueSource(strings = {"llama3", "qwen2", "deepseek-v3", "gpt-oss"})
    void textWithCharactersOfUnicode14To16GetsTheIdsOfHuggingFace(String name) throws IOException {
        byte[] file = switch (name) {
            case "deepseek-v3" -> regexesOverGpt2(new String[] {"\\p{N}{1,3}", "[一-龥\u3040-ゟ゠-ヿ]+", DEEPSEEK_V3});
            case "gpt-oss" -> regexesOverGpt2(new String[] {GPT_OSS});
            default -> Files.readAllBytes(DecoderTokenizersMatchHuggingFaceTest.family(name).resolve("tokenizer.json"));
        };
        Tokenizer ours = Tokenizer.fromJson(new ByteArrayInputStream(file));
        List<String> mismatches = new ArrayList<>();
        try (HuggingFaceTokenizer hf = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(file),
                Map.of("truncation", "false", "padding", "false"))) {
            for (int i = 0; i < LINES.size(); i++) {
                String line = LINES.get(i);
                long[] want = hf.encode(line, false, false).getIds();
                int[] got = ours.encode(line, false).ids();
                if (!Arrays.equals(want, Arrays.stream(got).asLongStream().toArray())) {
                    mismatches.add("line " + i + " " + WordPieceMatchesHuggingFaceTest.escape(line) + ": expected "
                            + want.length + " ids " + Arrays.toString(hf.encode(line, false, false).getTokens())
                            + " but got " + got.length + " " + ours.encode(line, false).tokens());
                } else if (!hf.decode(want, true).equals(ours.decode(got))) {
                    mismatches.add("line " + i + " decodes to " + WordPieceMatchesHuggingFaceTest.escape(
                            ours.decode(got)) + ", not " + WordPieceMatchesHuggingFaceTest.escape(hf.decode(want)));
                }
            }
        }
        assertEquals(List.of(), mismatches, mismatches.size() + " mismatches over " + LINES.size() + " lines");
    }

    @org.junit.jupiter.api.Test
    void singleWordAddedTokensSeeTheWordCharactersOfHuggingFace() throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = (ObjectNode) json.readTree(DecoderTokenizersMatchHuggingFaceTest.gpt2Json());
        ((ArrayNode) root.get("added_tokens")).addObject().put("id", 50257).put("content", "zqx")
                .put("single_word", true).put("lstrip", false).put("rstrip", false).put("normalized", false)
                .put("special", false);
        byte[] file = json.writeValueAsBytes(root);
        Tokenizer ours = Tokenizer.fromJson(new ByteArrayInputStream(file));
        List<String> mismatches = new ArrayList<>();
        try (HuggingFaceTokenizer hf = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(file),
                Map.of("truncation", "false", "padding", "false"))) {
            for (String line : List.of("zqx", " zqx ", "xzqx", "zqxx", "_zqx", "zqx_", "1zqx", "zqx١", "ⅧzqxⅧ",
                    "Ⓐzqx", "zqx🅰", "🄰zqx", "a\u0301 zqx\u0301", "\u0301zqx", "\u200Dzqx", "zqx\u200C", "zqx‿x",
                    "🫶zqx🫶", "²zqx", "zqx½", "-zqx-", "𐵀zqx", "zqx𐵐", "\u0897zqx", "zqx\u00ADx", "zqx\u2060")) {
                long[] want = hf.encode(line, false, false).getIds();
                int[] got = ours.encode(line, false).ids();
                if (!Arrays.equals(want, Arrays.stream(got).asLongStream().toArray())) {
                    mismatches.add(WordPieceMatchesHuggingFaceTest.escape(line) + ": expected "
                            + Arrays.toString(want) + " but got " + Arrays.toString(got));
                }
            }
        }
        assertEquals(List.of(), mismatches);
    }

    /** GPT-2's vocabulary and merges behind a Sequence of isolating Splits and a regex-free ByteLevel. */
    private static byte[] regexesOverGpt2(String[] regexes) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = (ObjectNode) json.readTree(DecoderTokenizersMatchHuggingFaceTest.gpt2Json());
        ObjectNode pre = root.putObject("pre_tokenizer");
        pre.put("type", "Sequence");
        ArrayNode stages = pre.putArray("pretokenizers");
        for (String r : regexes) {
            ObjectNode split = stages.addObject().put("type", "Split");
            split.putObject("pattern").put("Regex", r);
            split.put("behavior", "Isolated").put("invert", false);
        }
        stages.addObject().put("type", "ByteLevel").put("add_prefix_space", false).put("trim_offsets", true)
                .put("use_regex", false);
        return json.writeValueAsBytes(root);
    }
}
