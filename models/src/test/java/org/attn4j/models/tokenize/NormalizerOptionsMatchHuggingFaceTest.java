package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each BertNormalizer option as the file sets it (lowercase, strip_accents null/true/false, clean_text,
 * handle_chinese_chars) gives the ids of Hugging Face's tokenizer for the same file, on every fifth corpus line.
 */
class NormalizerOptionsMatchHuggingFaceTest {

    @ParameterizedTest(name = "lowercase={0} strip_accents={1} clean_text={2} handle_chinese_chars={3}")
    @CsvSource({
        "true, null, true, true",
        "false, null, true, true",
        "false, true, true, true",
        "true, false, true, true",
        "true, null, false, true",
        "true, null, true, false",
    })
    void everyOptionMatches(boolean lowercase, String stripAccents, boolean cleanText, boolean chinese)
            throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root;
        try (InputStream in = getClass().getResourceAsStream(WordPieceMatchesHuggingFaceTest.MINILM_JSON)) {
            root = (ObjectNode) json.readTree(in);
        }
        ObjectNode normalizer = (ObjectNode) root.get("normalizer");
        normalizer.put("lowercase", lowercase);
        if (stripAccents.equals("null")) {
            normalizer.putNull("strip_accents");
        } else {
            normalizer.put("strip_accents", Boolean.parseBoolean(stripAccents));
        }
        normalizer.put("clean_text", cleanText);
        normalizer.put("handle_chinese_chars", chinese);
        byte[] bytes = json.writeValueAsBytes(root);
        Tokenizer ours = Tokenizer.fromJson(new ByteArrayInputStream(bytes)).withMaxLength(Integer.MAX_VALUE);
        List<String> corpus = Corpus.read();
        List<String> mismatches = new ArrayList<>();
        try (HuggingFaceTokenizer hf = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(bytes),
                Map.of("truncation", "false", "padding", "false"))) {
            for (int i = 0; i < corpus.size(); i += 5) {
                String line = corpus.get(i);
                ai.djl.huggingface.tokenizers.Encoding want = hf.encode(line);
                Encoding got = ours.encode(line);
                if (!Arrays.equals(want.getIds(), Arrays.stream(got.ids()).asLongStream().toArray())) {
                    mismatches.add("line " + i + " " + WordPieceMatchesHuggingFaceTest.escape(line) + ": expected "
                            + Arrays.toString(want.getTokens()) + " but got " + got.tokens());
                }
            }
        }
        assertEquals(List.of(), mismatches.subList(0, Math.min(5, mismatches.size())),
                mismatches.size() + " lines differ");
    }
}
