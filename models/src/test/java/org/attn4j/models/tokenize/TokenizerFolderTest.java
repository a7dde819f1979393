package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Tokenizer#fromFolder}: BOS and EOS as transformers adds them (the tokenizer.json post-processor, rebuilt
 * from {@code add_bos_token} / {@code add_eos_token} for Llama and Gemma tokenizers or when the file sets them),
 * transformers' space clean-up on decode, and the keys of {@code tokenizer_config.json} attn4j refuses.
 */
class TokenizerFolderTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static int id(Tokenizer t, String token) {
        return t.id(token).orElseThrow();
    }

    @Test
    void llama3KeepsTheBeginOfTextTemplateOfItsTokenizerJson() throws IOException {
        Tokenizer t = Tokenizer.fromFolder(DecoderTokenizersMatchHuggingFaceTest.family("llama3"));
        int[] ids = t.encode("Hello world").ids();
        assertEquals(id(t, "<|begin_of_text|>"), ids[0]);
        assertArrayEquals(java.util.Arrays.copyOfRange(ids, 1, ids.length), t.encode("Hello world", false).ids());
    }

    @Test
    void qwen2AddsNothing() throws IOException {
        Tokenizer t = Tokenizer.fromFolder(DecoderTokenizersMatchHuggingFaceTest.family("qwen2"));
        assertArrayEquals(t.encode("Hello world", false).ids(), t.encode("Hello world").ids());
    }

    @Test
    void llamaTokenizersRebuildTheTemplateFromAddBosAndAddEos(@TempDir Path tmp) throws IOException {
        Path source = DecoderTokenizersMatchHuggingFaceTest.family("llama2");
        Tokenizer plain = Tokenizer.fromFolder(source);
        int[] body = plain.encode("Hello world", false).ids();
        assertEquals(1, plain.encode("Hello world").ids()[0]);
        assertEquals(body.length + 1, plain.encode("Hello world").length());

        Tokenizer both = Tokenizer.fromFolder(copy(source, tmp.resolve("both"), Map.of("add_eos_token", true)));
        int[] ids = both.encode("Hello world").ids();
        assertEquals(1, ids[0]);
        assertEquals(2, ids[ids.length - 1]);
        assertEquals(body.length + 2, ids.length);

        Tokenizer none = Tokenizer.fromFolder(copy(source, tmp.resolve("none"), Map.of("add_bos_token", false)));
        assertArrayEquals(body, none.encode("Hello world").ids());
    }

    @Test
    void phi3SaysAddBosTokenFalseSoItsTemplateLosesTheBos() throws IOException {
        Tokenizer fromFile = Tokenizer.fromJson(DecoderTokenizersMatchHuggingFaceTest.family("phi3")
                .resolve("tokenizer.json"));
        Tokenizer fromFolder = Tokenizer.fromFolder(DecoderTokenizersMatchHuggingFaceTest.family("phi3"));
        assertEquals(1, fromFile.encode("Hi").ids()[0]);
        assertArrayEquals(fromFile.encode("Hi", false).ids(), fromFolder.encode("Hi").ids());
    }

    @Test
    void cleanUpTokenizationSpacesJoinsPunctuationOnDecodeAsTransformersDoes(@TempDir Path tmp) throws IOException {
        Path source = DecoderTokenizersMatchHuggingFaceTest.family("llama3");
        int[] ids = Tokenizer.fromJson(source.resolve("tokenizer.json")).encode("Hi , you . Is n't it ?", false).ids();
        assertEquals("Hi, you. Isn't it?", Tokenizer.fromFolder(source).decode(ids));
        Path off = copy(source, tmp, Map.of("clean_up_tokenization_spaces", false));
        assertEquals("Hi , you . Is n't it ?", Tokenizer.fromFolder(off).decode(ids));
    }

    @Test
    void theChatTemplateMayLiveInItsOwnFile(@TempDir Path tmp) throws IOException {
        Files.writeString(tmp.resolve("chat_template.jinja"), "{{ messages[0]['content'] }}");
        assertEquals(Map.of("default", "{{ messages[0]['content'] }}"), TokenizerConfig.read(tmp).chatTemplates());
        Files.writeString(tmp.resolve("tokenizer_config.json"), "{\"chat_template\": [{\"name\": \"default\","
                + " \"template\": \"a\"}, {\"name\": \"tool_use\", \"template\": \"b\"}], \"bos_token\":"
                + " {\"__type\": \"AddedToken\", \"content\": \"<s>\"}}");
        TokenizerConfig config = TokenizerConfig.read(tmp);
        assertEquals(List.of("default", "tool_use"), List.copyOf(config.chatTemplates().keySet()));
        assertEquals("<s>", config.specialToken("bos_token").orElseThrow());
    }

    @Test
    void keysThatChangeTheIdsAndThatAttn4jDoesNotImplementAreRefusedByName(@TempDir Path tmp) throws IOException {
        Path source = DecoderTokenizersMatchHuggingFaceTest.family("llama2");
        for (Map.Entry<String, Object> bad : List.<Map.Entry<String, Object>>of(Map.entry("add_prefix_space", true),
                Map.entry("split_special_tokens", true), Map.entry("add_bos_token", "yes"))) {
            Path folder = copy(source, tmp.resolve(bad.getKey()), Map.of(bad.getKey(), bad.getValue()));
            Tokenizer.FormatException e = assertThrows(Tokenizer.FormatException.class,
                    () -> Tokenizer.fromFolder(folder));
            assertTrue(e.getMessage().contains(bad.getKey()) && e.getMessage().contains("tokenizer_config.json"),
                    e.getMessage());
        }
    }

    @Test
    void addedTokensDecoderMustAgreeWithTokenizerJson(@TempDir Path tmp) throws IOException {
        Path folder = copy(DecoderTokenizersMatchHuggingFaceTest.family("llama2"), tmp, Map.of("added_tokens_decoder",
                Map.of("1", Map.of("content", "<bos>", "special", true))));
        Tokenizer.FormatException e = assertThrows(Tokenizer.FormatException.class, () -> Tokenizer.fromFolder(folder));
        assertTrue(e.getMessage().contains("added_tokens_decoder gives id 1 to '<bos>'"), e.getMessage());
    }

    @Test
    void addingAnEosThatIsNotSetIsAnError(@TempDir Path tmp) throws IOException {
        Path folder = copy(DecoderTokenizersMatchHuggingFaceTest.family("qwen2"), tmp, Map.of("add_bos_token", true));
        Tokenizer.FormatException e = assertThrows(Tokenizer.FormatException.class, () -> Tokenizer.fromFolder(folder));
        assertTrue(e.getMessage().contains("add_bos_token is true but bos_token is not set"), e.getMessage());
    }

    @Test
    void harmlessKeysAreListedAsIgnored() throws IOException {
        TokenizerConfig config = TokenizerConfig.read(DecoderTokenizersMatchHuggingFaceTest.family("llama2"));
        assertTrue(config.ignoredKeys().containsAll(List.of("legacy", "model_max_length", "padding_side")),
                config.ignoredKeys().toString());
        assertEquals(Map.of("bos_token", "<s>", "eos_token", "</s>", "unk_token", "<unk>", "pad_token", "</s>"),
                config.templateVariables());
    }

    /** Copies a family's folder with some tokenizer_config.json keys replaced. */
    static Path copy(Path source, Path target, Map<String, Object> changes) throws IOException {
        Files.createDirectories(target);
        Files.copy(source.resolve("tokenizer.json"), target.resolve("tokenizer.json"));
        ObjectNode config = (ObjectNode) JSON.readTree(source.resolve("tokenizer_config.json").toFile());
        changes.forEach((k, v) -> config.set(k, JSON.valueToTree(v)));
        Files.writeString(target.resolve("tokenizer_config.json"), JSON.writeValueAsString(config));
        return target;
    }
}
