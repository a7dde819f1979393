package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A tokenizer.json component attn4j does not implement is refused with a {@link Tokenizer.FormatException} that names
 * the JSON path and the component, never read as something else.
 */
class UnsupportedTokenizerComponentsTest {
    private static final String VOCAB = "{\"a\": 0, \"b\": 1, \"ab\": 2, \"<unk>\": 3}";

    private static String file(String model, String normalizer, String pre, String post, String decoder) {
        return "{\"model\": " + model + ", \"normalizer\": " + normalizer + ", \"pre_tokenizer\": " + pre
                + ", \"post_processor\": " + post + ", \"decoder\": " + decoder + "}";
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "model.vocab is not a non-empty array of [token, score]|{\"type\": \"Unigram\", \"vocab\": " + VOCAB
            + "}|null|null|null|null",
        "model.type 'WordLevel'|{\"type\": \"WordLevel\", \"vocab\": " + VOCAB + "}|null|null|null|null",
        "normalizer.precompiled_charsmap is not a charsmap|BPE|{\"type\": \"Precompiled\", \"precompiled_charsmap\": \"\"}|null|null|null",
        "normalizer.normalizers[1].type 'ByteLevel'|BPE|{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"NFC\"},"
            + " {\"type\": \"ByteLevel\"}]}|null|null|null",
        "pre_tokenizer.type 'Whitespace'|BPE|null|{\"type\": \"Whitespace\"}|null|null",
        "pre_tokenizer.type 'UnicodeScripts'|BPE|null|{\"type\": \"UnicodeScripts\"}|null|null",
        "pre_tokenizer.pattern.Regex|BPE|null|{\"type\": \"Split\", \"pattern\": {\"Regex\": \"\\\\h+\"},"
            + " \"behavior\": \"Isolated\", \"invert\": false}|null|null",
        "pre_tokenizer.behavior 'Merged'|BPE|null|{\"type\": \"Split\", \"pattern\": {\"String\": \" \"},"
            + " \"behavior\": \"Merged\", \"invert\": false}|null|null",
        "pre_tokenizer.prepend_scheme 'sometimes'|BPE|null|{\"type\": \"Metaspace\", \"replacement\": \"\\u2581\","
            + " \"prepend_scheme\": \"sometimes\", \"split\": true}|null|null",
        "decoder.type 'CTC'|BPE|null|null|null|{\"type\": \"CTC\"}",
        "decoder.type 'BPEDecoder'|BPE|null|null|null|{\"type\": \"BPEDecoder\", \"suffix\": \"</w>\"}",
        "decoder.decoders[0].content|BPE|null|null|null|{\"type\": \"Sequence\", \"decoders\": [{\"type\": \"Strip\","
            + " \"content\": \"ab\", \"start\": 1, \"stop\": 0}]}",
        "post_processor.type 'TemplateProcessingX'|BPE|null|null|{\"type\": \"TemplateProcessingX\"}|null",
        "model.end_of_word_suffix|{\"type\": \"BPE\", \"vocab\": " + VOCAB + ", \"merges\": [\"a b\"],"
            + " \"end_of_word_suffix\": \"</w>\"}|null|null|null|null",
        "model.dropout|{\"type\": \"BPE\", \"vocab\": " + VOCAB + ", \"merges\": [\"a b\"], \"dropout\": 0.1}"
            + "|null|null|null|null",
        "model.merges[0] 'a c'|{\"type\": \"BPE\", \"vocab\": " + VOCAB + ", \"merges\": [\"a c\"]}|null|null|null|null",
    })
    void isRefusedByName(String expected, String model, String normalizer, String pre, String post, String decoder) {
        String m = model.equals("BPE") ? "{\"type\": \"BPE\", \"vocab\": " + VOCAB + ", \"merges\": [\"a b\"]}" : model;
        byte[] json = file(m, normalizer, pre, post, decoder).getBytes(StandardCharsets.UTF_8);
        Tokenizer.FormatException e = assertThrows(Tokenizer.FormatException.class,
                () -> Tokenizer.fromJson(new ByteArrayInputStream(json)));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
