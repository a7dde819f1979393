package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.WeightType;
import org.attn4j.models.chat.ChatTemplate;
import org.attn4j.models.chat.ChatTemplateOptions;
import org.attn4j.models.chat.Message;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.decoder.GgufCheckpoints;
import org.attn4j.models.io.GgufWriter;
import org.attn4j.models.tokenize.Tokenizer;
import org.attn4j.models.tokenize.TokenizerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code attn4j chat} on the tiny random-weight Llama 3 chat checkpoint of the models module
 * ({@code generate_chat_model.py}): the one-shot reply is PyTorch's greedy reply up to the stop id of the
 * checkpoint's generation config, decoded; messages on standard input make a conversation; bad folders, templates
 * and generation configs are one line and exit code 2.
 */
class ChatCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SYSTEM = "You are a helpful assistant.";
    private static final String QUESTION = "Hello! What is the capital of France?";

    static Path folder(String name) {
        try {
            return Path.of(ChatCommandTest.class.getResource("decoders/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static String expectedReply() throws IOException {
        Path f = folder("llama3_chat_tiny");
        Map<String, Object> expected = JSON.readValue(f.resolve("expected.json").toFile(), Map.class);
        int[] ids = ((List<Integer>) expected.get("chat_reply")).stream().mapToInt(Integer::intValue).toArray();
        return Tokenizer.fromFolder(f).decode(ids);
    }

    private static Cli withInput(String input, String... args) {
        InputStream stdin = System.in;
        try {
            System.setIn(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
            return Cli.run(args);
        } finally {
            System.setIn(stdin);
        }
    }

    @Test
    void oneMessageGetsPyTorchsGreedyReplyUpToTheCheckpointsStopId() throws IOException {
        Cli r = Cli.run("chat", "--model", folder("llama3_chat_tiny").toString(), "--system", SYSTEM, "--message",
                QUESTION, "--temperature", "0", "--stats");
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals(expectedReply() + "\n", r.out(), r.transcript());
        assertTrue(r.err().startsWith("attn4j chat: stopped at ") && r.err().contains("; prompt 54 tokens, reply 4"
                + " tokens"), r.transcript());
    }

    @Test
    void messagesOnStandardInputMakeAConversation() throws IOException {
        String[] args = {"chat", "--model", folder("llama3_chat_tiny").toString(), "--system", SYSTEM,
            "--temperature", "0", "--max-new", "6"};
        Cli r = withInput(QUESTION + "\n\nAnd of Italy?\n/exit\nnever read\n", args);
        assertEquals(0, r.exitCode(), r.transcript());
        List<String> replies = r.out().lines().toList();
        assertEquals(2, replies.size(), r.transcript());
        assertEquals(expectedReply(), replies.get(0), r.transcript());
        Cli again = withInput(QUESTION + "\n/reset\n" + QUESTION + "\n", args);
        List<String> both = again.out().lines().toList();
        assertEquals(List.of(replies.get(0), replies.get(0)), both, again.transcript());
    }

    @Test
    @SuppressWarnings("unchecked")
    void aConversationFileGetsTransformersPromptIdsAndPyTorchsReply(@TempDir Path tmp) throws IOException {
        Path f = folder("llama3_chat_tiny");
        Map<String, Object> expected = JSON.readValue(f.resolve("expected.json").toFile(), Map.class);
        Path conversation = tmp.resolve("chat.json");
        Files.writeString(conversation, JSON.writeValueAsString(expected.get("messages")));
        Cli r = Cli.run("chat", "--model", f.toString(), "--messages", conversation.toString(), "--temperature", "0",
                "--print-prompt-ids");
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals(expectedReply() + "\n", r.out(), r.transcript());
        assertEquals(expected.get("chat_prompt"), JSON.readValue(r.err().strip(), List.class), r.transcript());
    }

    @Test
    void toolCallsAndResultsInAConversationFileReachTheTemplateWithTheirArgumentsAsObjects(@TempDir Path tmp)
            throws IOException {
        Path f = folder("llama3_chat_tiny");
        Path conversation = tmp.resolve("tools.json");
        Files.writeString(conversation, "[{\"role\": \"developer\", \"content\": \"Use tools.\"}, "
                + "{\"role\": \"user\", \"content\": \"Weather?\"}, {\"role\": \"assistant\", \"content\": \"\", "
                + "\"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"w\", "
                + "\"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}}]}, {\"role\": \"tool\", \"tool_call_id\": \"c1\", "
                + "\"content\": \"22 C\"}]");
        Cli r = Cli.run("chat", "--model", f.toString(), "--messages", conversation.toString(), "--max-new", "2",
                "--print-prompt-ids", "--message", "Thanks");
        assertEquals(0, r.exitCode(), r.transcript());
        List<Message> messages = List.of(Message.system("Use tools."), Message.user("Weather?"),
                Message.assistant("").with("tool_calls", List.of(Map.of("id", "c1", "type", "function", "function",
                        Map.of("name", "w", "arguments", Map.of("city", "Paris"))))),
                Message.of("tool", "22 C").with("tool_call_id", "c1"), Message.user("Thanks"));
        String text = ChatTemplate.of(TokenizerConfig.read(f)).render(messages,
                ChatTemplateOptions.defaults().withAddGenerationPrompt(true));
        int[] ids = Tokenizer.fromFolder(f).encode(text, false).ids();
        assertEquals(Arrays.stream(ids).boxed().toList(), JSON.readValue(r.err().strip(), List.class),
                r.transcript());
    }

    @Test
    void theCheckpointsSamplingDefaultsApplyAndRepeatWithASeed() {
        String[] args = {"chat", "--model", folder("llama3_chat_tiny").toString(), "--message", QUESTION,
            "--max-new", "8", "--seed", "3"};
        Cli first = Cli.run(args);
        Cli second = Cli.run(args);
        assertEquals(0, first.exitCode(), first.transcript());
        assertEquals(first.out(), second.out());
    }

    /** The chat checkpoint written as a GGUF file as llama.cpp's converter writes it, with more metadata. */
    private static Path gguf(Path tmp, String name, Map<String, Long> extra) throws IOException {
        Path folder = folder("llama3_chat_tiny");
        GgufWriter w = GgufCheckpoints.byteLevelBpe(GgufCheckpoints.fromFolder(folder, WeightType.F32), folder,
                DecoderConfig.read(folder).vocabSize(), "llama-bpe");
        extra.forEach(w::uint32);
        Path file = tmp.resolve(name + ".gguf");
        w.write(file);
        return file;
    }

    @Test
    @SuppressWarnings("unchecked")
    void aGgufFileChatsWithItsTemplateAndStopsWhereItsMetadataSays(@TempDir Path tmp) throws IOException {
        Path f = folder("llama3_chat_tiny");
        Map<String, Object> expected = JSON.readValue(f.resolve("expected.json").toFile(), Map.class);
        int stop = ((Number) expected.get("chat_stop")).intValue();
        Cli r = Cli.run("chat", "--model", gguf(tmp, "eot", Map.of("tokenizer.ggml.eot_token_id", (long) stop))
                .toString(), "--system", SYSTEM, "--message", QUESTION, "--stats");
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals(expectedReply() + "\n", r.out(), r.transcript());
        assertTrue(r.err().contains("(id " + stop + "); prompt 54 tokens, reply 4 tokens"), r.transcript());
        Cli on = Cli.run("chat", "--model", gguf(tmp, "converted", Map.of()).toString(), "--system", SYSTEM,
                "--message", QUESTION, "--max-new", "5", "--stats");
        int[] reply = ((List<Integer>) expected.get("chat_reply")).stream().mapToInt(Integer::intValue).toArray();
        int[] longer = java.util.Arrays.copyOf(reply, reply.length + 1);
        longer[reply.length] = stop;
        assertEquals(Tokenizer.fromFolder(f).decode(longer) + "\n", on.out(), on.transcript());
        assertTrue(on.err().contains("stopped at the length limit"), on.transcript());
    }

    @Test
    void badInputIsOneLineAndExitCodeTwo(@TempDir Path tmp) throws IOException {
        Path noTemplate = folder("gpt2_tiny");
        Path noTemplateGguf = tmp.resolve("gpt2.gguf");
        GgufCheckpoints.byteLevelBpe(GgufCheckpoints.fromFolder(noTemplate, WeightType.F32), noTemplate,
                DecoderConfig.read(noTemplate).vocabSize(), "gpt-2").write(noTemplateGguf);
        Path mirostat = gguf(tmp, "mirostat", Map.of("general.sampling.mirostat", 2L));
        Path beams = copy(tmp.resolve("beams"), Map.of(), Map.of("num_beams", 4));
        Path gemma = copy(tmp.resolve("gemma"), Map.of("chat_template", "{{ bos_token }}{% if messages[0]['role'] =="
                + " 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"), Map.of());
        for (Object[] c : List.of(
                new Object[] {new String[] {"--model", tmp.resolve("missing").toString(), "--message", "hi"},
                    "no such file or folder"},
                new Object[] {new String[] {"--model", folder("llama3_chat_tiny").toString(), "--message", " "},
                    "--message is empty"},
                new Object[] {new String[] {"--model", noTemplate.toString(), "--message", "hi"}, "chat template"},
                new Object[] {new String[] {"--model", beams.toString(), "--message", "hi"}, "num_beams"},
                new Object[] {new String[] {"--model", gemma.toString(), "--system", "x", "--message", "hi"},
                    "raised: System role not supported"},
                new Object[] {new String[] {"--model", folder("llama3_chat_tiny").toString(), "--message", "hi",
                    "--top-p", "0"}, "topP"},
                new Object[] {new String[] {"--model", noTemplateGguf.toString(), "--message", "hi"},
                    "no chat template (tokenizer.chat_template)"},
                new Object[] {new String[] {"--model", mirostat.toString(), "--message", "hi"},
                    "general.sampling.mirostat"},
                new Object[] {new String[] {"--model", folder("llama3_chat_tiny").toString(), "--messages",
                    tmp.resolve("missing.json").toString()}, "cannot be read"},
                new Object[] {new String[] {"--model", folder("llama3_chat_tiny").toString(), "--messages",
                    write(tmp, "broken.json", "[{\"role\": ")}, "is not JSON"},
                new Object[] {new String[] {"--model", folder("llama3_chat_tiny").toString(), "--messages",
                    write(tmp, "object.json", "{\"role\": \"user\"}")}, "non-empty JSON array"},
                new Object[] {new String[] {"--model", folder("llama3_chat_tiny").toString(), "--messages",
                    write(tmp, "field.json", "[{\"role\": \"user\", \"content\": \"x\", \"audio\": 1}]")},
                    "messages[0].audio is not a message field"},
                new Object[] {new String[] {"--model", folder("llama3_chat_tiny").toString(), "--messages",
                    write(tmp, "role.json", "[{\"content\": \"x\"}]")}, "messages[0].role must be"},
                new Object[] {new String[] {"--model", folder("llama3_chat_tiny").toString(), "--system", "x",
                    "--messages", write(tmp, "ok.json", "[{\"role\": \"user\", \"content\": \"x\"}]")},
                    "--system and --messages"})) {
            String[] args = Stream.concat(Stream.of("chat"), Stream.of((String[]) c[0])).toArray(String[]::new);
            Cli r = Cli.run(args);
            assertEquals(2, r.exitCode(), r.transcript());
            assertEquals(1, r.err().lines().count(), r.transcript());
            assertTrue(r.err().contains((String) c[1]), r.transcript());
            assertEquals("", r.out(), r.transcript());
        }
    }

    private static String write(Path dir, String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file.toString();
    }

    /** The chat checkpoint copied with some tokenizer_config.json and generation_config.json keys replaced. */
    private static Path copy(Path target, Map<String, Object> tokenizerConfig, Map<String, Object> generation)
            throws IOException {
        Path source = folder("llama3_chat_tiny");
        Files.createDirectories(target);
        for (String name : List.of("config.json", "model.safetensors", "tokenizer.json")) {
            Files.copy(source.resolve(name), target.resolve(name));
        }
        for (Map.Entry<String, Map<String, Object>> f : Map.of("tokenizer_config.json", tokenizerConfig,
                "generation_config.json", generation).entrySet()) {
            ObjectNode json = (ObjectNode) JSON.readTree(source.resolve(f.getKey()).toFile());
            f.getValue().forEach((k, v) -> json.set(k, JSON.valueToTree(v)));
            Files.writeString(target.resolve(f.getKey()), JSON.writeValueAsString(json));
        }
        return target;
    }
}
