package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link DecodeStream} on the decoder families' tokenizers: a character whose bytes are several tokens (byte-level
 * pieces, {@code <0xNN>} fallback) comes out once whole, SentencePiece's leading space is dropped only at the start,
 * an unfinished character at the end comes out as decode gives it, and the pieces of any id sequence join to its
 * decoded text.
 */
class DecodeStreamTest {

    private static Tokenizer tokenizer(String family) throws IOException {
        return Tokenizer.fromJson(DecoderTokenizersMatchHuggingFaceTest.family(family).resolve("tokenizer.json"));
    }

    private static List<String> pieces(Tokenizer t, int... ids) {
        List<String> out = new ArrayList<>();
        DecodeStream stream = new DecodeStream(t, true);
        for (int id : ids) {
            out.add(stream.next(id));
        }
        out.add(stream.finish());
        out.removeIf(String::isEmpty);
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama3", "qwen2", "llama2", "mistral", "gemma"})
    void aCharacterOfManyTokensComesOutOnceWhole(String family) throws IOException {
        Tokenizer t = tokenizer(family);
        int[] ids = t.encode("a \uD83D\uDE00 b", false).ids();
        List<String> out = pieces(t, ids);
        assertEquals(t.decode(ids), String.join("", out));
        assertEquals(1, out.stream().filter(p -> p.contains("\uD83D\uDE00")).count(), out.toString());
        assertEquals(0, out.stream().filter(p -> p.contains("\uFFFD")).count(), out.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama3", "llama2", "gemma"})
    void anUnfinishedCharacterAtTheEndComesOutAsDecodeGivesIt(String family) throws IOException {
        Tokenizer t = tokenizer(family);
        int[] ids = t.encode("ok \uD83D\uDE00", false).ids();
        int[] cut = java.util.Arrays.copyOf(ids, ids.length - 1);
        assertEquals(t.decode(cut), String.join("", pieces(t, cut)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama2", "mistral"})
    void sentencePiecesLeadingSpaceGoesOnlyAtTheStart(String family) throws IOException {
        Tokenizer t = tokenizer(family);
        int[] ids = t.encode("Hello world again", false).ids();
        assertEquals("Hello world again", String.join("", pieces(t, ids)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama2", "mistral", "gemma", "llama3"})
    void aContinuationAfterContextKeepsItsFirstSpace(String family) throws IOException {
        Tokenizer t = tokenizer(family);
        int[] ids = t.encode("Hello world again \u00e9t\u00e9", false).ids();
        int k = 1;
        while (!t.decode(java.util.Arrays.copyOf(ids, k)).equals("Hello")) {
            k++;
        }
        int[] rest = java.util.Arrays.copyOfRange(ids, k, ids.length);
        DecodeStream stream = new DecodeStream(t, true, new int[] {ids[k - 1]});
        StringBuilder out = new StringBuilder();
        for (int id : rest) {
            out.append(stream.next(id));
        }
        out.append(stream.finish());
        assertEquals(" world again \u00e9t\u00e9", out.toString());
    }

    /**
     * Any ids, for decoders that read each token on its own. {@code ByteFallback} (the SentencePiece families) is
     * not one: a run of {@code <0xNN>} tokens that is not valid UTF-8 becomes U+FFFD as a whole, so a valid byte
     * already streamed can turn into U+FFFD once invalid bytes follow; {@link #thePiecesOfEncodedTextJoinToIt} covers
     * them on ids a model can produce.
     */
    @ParameterizedTest
    @ValueSource(strings = {"llama3", "qwen2", "metaspace"})
    void thePiecesOfRandomIdsJoinToTheirDecodedText(String family) throws IOException {
        Tokenizer t = tokenizer(family);
        Random random = new Random(17);
        for (int trial = 0; trial < 300; trial++) {
            int[] ids = random.ints(1 + random.nextInt(24), 0, t.vocabSize()).toArray();
            assertEquals(t.decode(ids), String.join("", pieces(t, ids)), "trial " + trial);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama2", "mistral", "phi3", "gemma"})
    void thePiecesOfEncodedTextJoinToIt(String family) throws IOException {
        Tokenizer t = tokenizer(family);
        List<String> corpus = DecoderTokenizersMatchHuggingFaceTest.llmCorpus();
        Random random = new Random(23);
        for (int trial = 0; trial < 300; trial++) {
            String text = corpus.get(random.nextInt(corpus.size())) + corpus.get(random.nextInt(corpus.size()));
            int[] ids = t.encode(text, false).ids();
            assertEquals(t.decode(ids), String.join("", pieces(t, ids)), "trial " + trial);
        }
    }
}
