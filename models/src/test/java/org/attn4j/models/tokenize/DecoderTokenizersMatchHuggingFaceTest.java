package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The tokenizer.json files of the decoder families (byte-level BPE of Llama 3 and Qwen2 with their Split regexes,
 * GPT-2's real vocabulary, SentencePiece-style BPE of Llama 2, Mistral, Phi-3 and Gemma, Metaspace), written by
 * {@code src/test/python/generate_llm_tokenizers.py}, give exactly the ids of Hugging Face's Rust tokenizers (DJL,
 * test scope) on every line of both corpora (the WordPiece corpus and {@code llm/corpus.jsonl}: code, white space
 * runs, digit runs, every family's special tokens in text), with and without the post-processor's special tokens,
 * and decode those ids to the same text with and without special tokens. A {@link DecodeStream} fed the ids one by
 * one gives that text too.
 */
class DecoderTokenizersMatchHuggingFaceTest {
    private static List<String> corpus;

    @BeforeAll
    static void readCorpora() {
        corpus = new ArrayList<>(Corpus.read());
        corpus.addAll(llmCorpus());
        assertTrue(corpus.size() > 2400, "corpus lines: " + corpus.size());
    }

    static List<String> llmCorpus() {
        ObjectMapper json = new ObjectMapper();
        try (InputStream in = DecoderTokenizersMatchHuggingFaceTest.class.getResourceAsStream("llm/corpus.jsonl")) {
            List<String> lines = new ArrayList<>();
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                lines.add(json.readValue(l, String.class));
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path family(String name) {
        try {
            return Path.of(DecoderTokenizersMatchHuggingFaceTest.class.getResource("llm/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] gpt2Json() throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        ObjectNode model = root.putObject("model");
        model.put("type", "BPE");
        model.set("vocab", json.readTree(ByteLevelBpeMatchesGpt2Test.resource("encoder.json").toFile()));
        ArrayNode merges = model.putArray("merges");
        for (String line : Files.readAllLines(ByteLevelBpeMatchesGpt2Test.resource("vocab.bpe"),
                StandardCharsets.UTF_8)) {
            if (!line.startsWith("#version") && !line.isEmpty()) {
                merges.add(line);
            }
        }
        root.putObject("pre_tokenizer").put("type", "ByteLevel").put("add_prefix_space", false)
                .put("trim_offsets", true).put("use_regex", true);
        root.putObject("post_processor").put("type", "ByteLevel").put("add_prefix_space", true)
                .put("trim_offsets", false).put("use_regex", true);
        root.putObject("decoder").put("type", "ByteLevel").put("add_prefix_space", true)
                .put("trim_offsets", true).put("use_regex", true);
        root.putArray("added_tokens").addObject().put("id", 50256).put("content", "<|endoftext|>")
                .put("single_word", false).put("lstrip", false).put("rstrip", false).put("normalized", false)
                .put("special", true);
        return json.writeValueAsBytes(root);
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama3", "qwen2", "llama2", "mistral", "phi3", "gemma", "metaspace", "gpt2"})
    void everyLineGetsTheIdsAndTextOfHuggingFace(String name) throws IOException {
        byte[] file = name.equals("gpt2") ? gpt2Json() : Files.readAllBytes(family(name).resolve("tokenizer.json"));
        Tokenizer ours = Tokenizer.fromJson(new ByteArrayInputStream(file));
        List<String> mismatches = new ArrayList<>();
        try (HuggingFaceTokenizer hf = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(file),
                Map.of("truncation", "false", "padding", "false"))) {
            for (int i = 0; i < corpus.size(); i++) {
                String line = corpus.get(i);
                for (boolean special : new boolean[] {true, false}) {
                    long[] want = hf.encode(line, special, false).getIds();
                    int[] got = ours.encode(line, special).ids();
                    if (!Arrays.equals(want, Arrays.stream(got).asLongStream().toArray())) {
                        mismatches.add("line " + i + " " + WordPieceMatchesHuggingFaceTest.escape(line)
                                + (special ? "" : " without specials") + ": expected " + Arrays.toString(want)
                                + " " + Arrays.toString(hf.encode(line, special, false).getTokens()) + " but got "
                                + Arrays.toString(got) + " " + ours.encode(line, special).tokens());
                        continue;
                    }
                    for (boolean skip : new boolean[] {true, false}) {
                        String text = hf.decode(want, skip);
                        if (!text.equals(ours.decode(got, skip))) {
                            mismatches.add("line " + i + " decodes" + (skip ? "" : " with specials") + " to "
                                    + WordPieceMatchesHuggingFaceTest.escape(ours.decode(got, skip)) + ", not "
                                    + WordPieceMatchesHuggingFaceTest.escape(text));
                        }
                    }
                    if (special) {
                        DecodeStream stream = new DecodeStream(ours, true);
                        StringBuilder streamed = new StringBuilder();
                        for (int id : got) {
                            streamed.append(stream.next(id));
                        }
                        streamed.append(stream.finish());
                        if (!streamed.toString().equals(ours.decode(got, true))) {
                            mismatches.add("line " + i + " streams as "
                                    + WordPieceMatchesHuggingFaceTest.escape(streamed.toString()));
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), mismatches.subList(0, Math.min(8, mismatches.size())),
                mismatches.size() + " mismatches over " + corpus.size() + " lines of " + name);
    }
}
