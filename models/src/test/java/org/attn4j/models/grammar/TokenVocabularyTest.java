package org.attn4j.models.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.attn4j.models.tokenize.Tokenizer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Law: the bytes a vocabulary gives each token, joined over a text's tokens, are the bytes of the text the tokenizer
 * decodes them to, for byte-level BPE (Llama 3, Qwen 2) and SentencePiece with byte fallback (Llama 2, Mistral,
 * Gemma, Phi-3, a Metaspace pre-tokenizer), on every text of the tokenizers' test corpus (code, accents, CJK, emoji).
 * A SentencePiece decoder drops the space of a text's first piece; the joined bytes keep it. Where a tokenizer's
 * decoding cleans up spaces before punctuation, both sides are cleaned up alike. Texts that encode to a special token
 * (which adds no bytes and which a grammar never allows) are left out.
 */
class TokenVocabularyTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path folder(String name) throws URISyntaxException {
        return Path.of(TokenVocabularyTest.class.getResource("/org/attn4j/models/tokenize/llm/" + name).toURI());
    }

    /**
     * transformers' {@code clean_up_tokenization}, which some tokenizers' decoding applies after joining the tokens
     * (a space before punctuation and English contractions dropped), to a fixed point, as it may apply to each
     * token's piece; applied to both sides.
     */
    private static String cleanUp(String text) {
        String before;
        do {
            before = text;
            text = text.replace(" .", ".").replace(" ?", "?").replace(" !", "!").replace(" ,", ",")
                    .replace(" ' ", "'").replace(" n't", "n't").replace(" 'm", "'m").replace(" 's", "'s")
                    .replace(" 've", "'ve").replace(" 're", "'re");
        } while (!text.equals(before));
        return text;
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama3", "qwen2", "llama2", "mistral", "gemma", "phi3", "metaspace"})
    void tokenBytesJoinToTheDecodedText(String family) throws IOException, URISyntaxException {
        Tokenizer t = Tokenizer.fromFolder(folder(family));
        TokenVocabulary v = TokenVocabulary.of(t);
        assertEquals(t.vocabSize(), v.size());
        List<String> corpus = Files.readAllLines(folder("corpus.jsonl"));
        int checked = 0;
        for (int line = 0; line < corpus.size(); line++) {
            if (corpus.get(line).isBlank()) {
                continue;
            }
            String text = JSON.readValue(corpus.get(line), String.class);
            int[] ids = t.encode(text, false).ids();
            if (java.util.Arrays.stream(ids).anyMatch(t::isSpecial)) {
                continue;
            }
            ByteArrayOutputStream joined = new ByteArrayOutputStream();
            for (int id : ids) {
                joined.writeBytes(v.bytes(id));
            }
            String decoded = cleanUp(t.decode(ids, true));
            String bytes = cleanUp(new String(joined.toByteArray(), StandardCharsets.UTF_8));
            assertTrue(bytes.equals(decoded) || bytes.equals(" " + decoded), family + ", line " + line
                    + ": decoded [" + decoded + "], joined [" + bytes + "]");
            checked++;
        }
        assertTrue(checked > 300, family + ": " + checked);
    }
}
