package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.attn4j.api.WeightType;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.decoder.GgufCheckpoints;
import org.attn4j.models.io.GgufWriter;
import org.attn4j.models.tokenize.Tokenizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code attn4j generate} on the random-weight fixture folders of tck/src/golden/generate_decoder_folders.py. */
class GenerateCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS);

    private static Path folder(String name) {
        try {
            return Path.of(GenerateCommandTest.class.getResource("decoders/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Long> expected(String name, String key) throws IOException {
        Map<String, Object> json = JSON.readValue(Files.readString(folder(name).resolve("expected.json")), Map.class);
        return (List<Long>) json.get(key);
    }

    private static String joined(List<Long> ids, String separator) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(separator));
    }

    @ParameterizedTest
    @ValueSource(strings = {"gpt2_tiny", "llama_gqa_tiny", "gemma2_softcap_tiny", "phi3_longrope_tiny"})
    void greedyDecodingPrintsThePyTorchContinuation(String name) throws IOException {
        Cli r = Cli.run("generate", "--model", folder(name).toString(), "--ids", joined(expected(name, "prompt"), ","),
                "--max-new", "16", "--print-ids");
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals(joined(expected(name, "greedy"), " ") + "\n", r.out(), r.transcript());
    }

    @ParameterizedTest
    @ValueSource(strings = {"gpt2_tiny", "llama_gqa_tiny", "gemma2_softcap_tiny"})
    void samplingWithASeedIsRepeatableAndStaysInTheVocabulary(String name) throws IOException {
        String[] args = {"generate", "--model", folder(name).toString(), "--ids", joined(expected(name, "prompt"), ","),
            "--max-new", "10", "--temperature", "0.8", "--top-k", "20", "--top-p", "0.9", "--seed", "7", "--print-ids"};
        Cli first = Cli.run(args);
        Cli second = Cli.run(args);
        assertEquals(0, first.exitCode(), first.transcript());
        assertEquals(first.out(), second.out());
        int[] ids = Arrays.stream(first.out().trim().split(" ")).mapToInt(Integer::parseInt).toArray();
        // gemma2_softcap_tiny's config.json lists eos_token_id 2, which generate honours and this seed samples
        assertEquals(name.equals("gemma2_softcap_tiny") ? 8 : 10, ids.length, first.transcript());
        assertTrue(Arrays.stream(ids).allMatch(id -> id >= 0 && id < 97), first.transcript());
    }

    @Test
    void statsFollowTheTextOnStandardErrorAndLeaveTheOutputAlone() throws IOException {
        String name = "llama_gqa_tiny";
        Cli r = Cli.run("generate", "--model", folder(name).toString(), "--ids", joined(expected(name, "prompt"), ","),
                "--max-new", "16", "--print-ids", "--stats");
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals(joined(expected(name, "greedy"), " ") + "\n", r.out(), r.transcript());
        List<String> lines = r.err().lines().toList();
        assertEquals(4, lines.size(), r.transcript());
        assertTrue(lines.get(0).matches("load: [0-9.]+ s \\(backend \\w+, weights as in the file: F32 21; [0-9.]+ MiB\\)"),
                r.transcript());
        int prompt = expected(name, "prompt").size();
        assertTrue(lines.get(1).matches("prefill: " + prompt + " tokens in [0-9.]+ ms \\([0-9.]+ ms per token, [0-9.]+"
                + " tokens/s\\)"), r.transcript());
        assertTrue(lines.get(2).matches("decode: 15 tokens in [0-9.]+ ms \\([0-9.]+ ms per token, [0-9.]+ tokens/s\\)"),
                r.transcript());
        assertTrue(lines.get(3).matches("peak memory: [0-9.]+ MiB (resident \\(VmHWM\\)|of Java heap.*)"),
                r.transcript());
    }

    @ParameterizedTest
    @ValueSource(strings = {"f32", "bf16", "f16"})
    void weightsCanBeConvertedAtLoad(String type) throws IOException {
        String name = "llama_gqa_tiny";
        Cli r = Cli.run("generate", "--model", folder(name).toString(), "--ids", joined(expected(name, "prompt"), ","),
                "--max-new", "16", "--print-ids", "--weights", type, "--stats");
        assertEquals(0, r.exitCode(), r.transcript());
        String held = type.equals("f32") ? "F32 21" : "F32 5, " + type.toUpperCase() + " 16";
        assertTrue(r.err().lines().findFirst().orElse("").matches(".*weights " + type.toUpperCase() + ": " + held
                + "; [0-9.]+ MiB\\)"), r.transcript());
        int[] ids = Arrays.stream(r.out().trim().split(" ")).mapToInt(Integer::parseInt).toArray();
        assertEquals(16, ids.length, r.transcript());
        if (type.equals("f32")) {
            assertEquals(joined(expected(name, "greedy"), " ") + "\n", r.out(), r.transcript());
        }
    }

    /**
     * llama_gqa_tiny's rows of 32 (hidden) and 48 (intermediate) divide into no K-type block: Q4_K falls back to
     * Q5_0, Q5_K to Q5_1, Q6_K to Q8_0, and the ffn_down rows of 48 to F16; the output takes Q8_0; of 2 layers the
     * second gets more bits in the _M mixes, both layers' attn_v in Q4_K_S.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"q4_k_m | Q4_K_M: Q8_0 2, Q5_0 12, F32 5, F16 2",
        "q5_k_m | Q5_K_M: Q8_0 2, Q5_1 12, F32 5, F16 2", "q4_k_s | Q4_K_S: Q8_0 1, Q5_0 11, Q5_1 2, F32 5, F16 2",
        "q6_k | Q6_K: Q8_0 14, F32 5, F16 2"})
    void aLlamaCppMixIsQuantizedAtLoadAndTheStatsCountIt(String mix, String census) throws IOException {
        String name = "llama_gqa_tiny";
        Cli r = Cli.run("generate", "--model", folder(name).toString(), "--ids", joined(expected(name, "prompt"), ","),
                "--max-new", "16", "--print-ids", "--weights", mix, "--stats");
        assertEquals(0, r.exitCode(), r.transcript());
        String load = r.err().lines().findFirst().orElse("");
        assertTrue(load.matches("load: [0-9.]+ s \\(backend \\w+, weights \\Q" + census + "\\E; [0-9.]+ MiB\\)"),
                r.transcript());
        assertEquals(16, r.out().trim().split(" ").length, r.transcript());
    }

    @Test
    void aMixWhoseTypesCannotHoldARowIsRefusedNamingTheTensor() {
        Cli r = Cli.run("generate", "--model", folder("llama_gqa_tiny").toString(), "--ids", "1,2",
                "--weights", "q8_0");
        assertEquals(2, r.exitCode(), r.transcript());
        assertTrue(r.err().contains("mlp.down_proj.weight") && r.err().contains("48"), r.transcript());
    }

    @ParameterizedTest
    @ValueSource(strings = {"--ids=1,x", "--ids=500", "--max-new=-1", "--top-p=0", "--temperature=-1",
        "--prompt=", "--prompt=caf\u00e9 \u4e2d", "--weights=int4"})
    void badInputIsOneLineAndExitCodeTwo(String option) {
        Cli r = Cli.run("generate", "--model", folder("gpt2_tiny").toString(), option);
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
        assertEquals("", r.out(), r.transcript());
    }

    @Test
    void promptIsEncodedWithTheFoldersTokenizerAndTheContinuationStreamsAsItsText() throws IOException {
        Path folder = folder("gpt2_tiny");
        Tokenizer tokenizer = Tokenizer.fromJson(folder.resolve("tokenizer.json"));
        String text = "hello, caf\u00e9 tw";
        String ids = Arrays.stream(tokenizer.encode(text).ids()).mapToObj(String::valueOf)
                .collect(Collectors.joining(","));
        String[] common = {"generate", "--model", folder.toString(), "--max-new", "12", "--temperature", "1.5",
            "--seed", "3"};
        Cli byIds = Cli.run(concat(common, "--ids", ids, "--print-ids"));
        Cli byTextAsIds = Cli.run(concat(common, "--prompt", text, "--print-ids"));
        Cli byText = Cli.run(concat(common, "--prompt", text));
        assertEquals(0, byIds.exitCode(), byIds.transcript());
        assertEquals(byIds.out(), byTextAsIds.out(), byTextAsIds.transcript());
        assertEquals(0, byText.exitCode(), byText.transcript());
        int[] generated = Arrays.stream(byIds.out().trim().split(" ")).mapToInt(Integer::parseInt).toArray();
        assertEquals(12, generated.length, byIds.transcript());
        assertEquals(tokenizer.decode(generated) + "\n", byText.out(), byText.transcript());
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    @Test
    void promptWithoutATokenizerNamesWhatIsMissingAndExitsTwo() {
        Path folder = folder("llama_gqa_tiny");
        Cli r = Cli.run("generate", "--model", folder.toString(), "--prompt", "hello");
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
        assertTrue(r.err().contains("tokenizer.json") && r.err().contains("vocab.json + merges.txt"), r.transcript());
        assertEquals("", r.out(), r.transcript());
    }

    @Test
    void gpt2FilesServeAsTheTokenizerToo(@TempDir Path tmp) throws IOException {
        Path source = folder("gpt2_tiny");
        for (String name : List.of("config.json", "model.safetensors")) {
            Files.copy(source.resolve(name), tmp.resolve(name));
        }
        JsonNode model = JSON.readTree(source.resolve("tokenizer.json").toFile()).get("model");
        Files.writeString(tmp.resolve("vocab.json"), JSON.writeValueAsString(model.get("vocab")));
        StringBuilder merges = new StringBuilder("#version: 0.2\n");
        model.get("merges").forEach(m -> merges.append(m.asText()).append('\n'));
        Files.writeString(tmp.resolve("merges.txt"), merges);
        Cli fromJson = Cli.run("generate", "--model", source.toString(), "--prompt", "hello", "--max-new", "8");
        Cli fromFiles = Cli.run("generate", "--model", tmp.toString(), "--prompt", "hello", "--max-new", "8");
        assertEquals(0, fromFiles.exitCode(), fromFiles.transcript());
        assertEquals(fromJson.out(), fromFiles.out(), fromFiles.transcript());
    }

    /**
     * A fixture folder written as a GGUF file the way llama.cpp's converter writes it (F32 here), with a tokenizer:
     * gpt2_tiny's byte-level BPE, or for llama_gqa_tiny a SentencePiece vocabulary of its 97 ids.
     */
    private static Path gguf(String name, Path dir) throws IOException {
        Path folder = folder(name);
        DecoderConfig config = DecoderConfig.read(folder);
        GgufWriter w = GgufCheckpoints.fromFolder(folder, WeightType.F32);
        if (name.equals("gpt2_tiny")) {
            JsonNode model = JSON.readTree(folder.resolve("tokenizer.json").toFile()).get("model");
            String[] tokens = new String[model.get("vocab").size()];
            model.get("vocab").properties().forEach(e -> tokens[e.getValue().asInt()] = e.getKey());
            List<String> merges = new java.util.ArrayList<>();
            model.get("merges").forEach(m -> merges.add(m.asText()));
            GgufCheckpoints.byteLevelBpe(w, Arrays.asList(tokens), merges, "gpt-2");
        } else {
            GgufCheckpoints.sentencePiece(w, config.vocabSize());
        }
        Path file = dir.resolve(name + ".gguf");
        w.write(file);
        return file;
    }

    @ParameterizedTest
    @ValueSource(strings = {"gpt2_tiny", "llama_gqa_tiny"})
    void aGgufFileDecodesThePyTorchContinuation(String name, @TempDir Path tmp) throws IOException {
        Cli r = Cli.run("generate", "--model", gguf(name, tmp).toString(), "--ids",
                joined(expected(name, "prompt"), ","), "--max-new", "16", "--print-ids");
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals(joined(expected(name, "greedy"), " ") + "\n", r.out(), r.transcript());
    }

    @Test
    void aGgufFilesTokenizerEncodesThePromptAndStreamsTheText(@TempDir Path tmp) throws IOException {
        String[] common = {"--prompt", "hello, caf\u00e9 tw", "--max-new", "12", "--temperature", "1.5", "--seed", "3"};
        Cli fromFolder = Cli.run(concat(new String[] {"generate", "--model", folder("gpt2_tiny").toString()}, common));
        Cli fromGguf = Cli.run(concat(new String[] {"generate", "--model", gguf("gpt2_tiny", tmp).toString()}, common));
        assertEquals(0, fromGguf.exitCode(), fromGguf.transcript());
        assertEquals(fromFolder.out(), fromGguf.out(), fromGguf.transcript());
        Cli llama = Cli.run("generate", "--model", gguf("llama_gqa_tiny", tmp).toString(), "--prompt", "hi",
                "--max-new", "4");
        assertEquals(0, llama.exitCode(), llama.transcript());
    }

    @ParameterizedTest
    @ValueSource(strings = {"garbage", "falcon"})
    void aGgufFileThatIsNotAModelIsOneLineAndExitCodeTwo(String kind, @TempDir Path tmp) throws IOException {
        Path file = tmp.resolve("model.gguf");
        if (kind.equals("garbage")) {
            Files.writeString(file, "GGUF but not really, just text long enough");
        } else {
            new GgufWriter().string("general.architecture", "falcon").write(file);
        }
        Cli r = Cli.run("generate", "--model", file.toString(), "--ids", "1,2");
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
        assertTrue(r.err().contains(kind.equals("garbage") ? "gguf" : "falcon"), r.transcript());
    }

    @ParameterizedTest
    @ValueSource(strings = {"missing", "empty"})
    void aFolderThatIsNoModelIsBadInput(String kind, @TempDir Path tmp) throws IOException {
        Path model = kind.equals("missing") ? tmp.resolve("nothing-here") : tmp;
        if (kind.equals("empty")) {
            Files.writeString(tmp.resolve("config.json"), "{\"model_type\": \"bert\"}");
        }
        Cli r = Cli.run("generate", "--model", model.toString(), "--ids", "1,2");
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
    }

    @Test
    void aChatCheckpointsPromptStartsWithItsBosAndItsContinuationIsPyTorchs() throws IOException {
        Path folder = folder("llama3_chat_tiny");
        Map<String, Object> expected = JSON.readValue(folder.resolve("expected.json").toFile(), Map.class);
        String text = (String) expected.get("prompt_text");
        assertEquals(joined(expected(folder, "prompt"), ","), Arrays.stream(Tokenizer.fromFolder(folder).encode(text)
                .ids()).mapToObj(String::valueOf).collect(Collectors.joining(",")));
        Cli r = Cli.run("generate", "--model", folder.toString(), "--prompt", text, "--temperature", "0",
                "--max-new", "16", "--print-ids");
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals(joined(expected(folder, "continuation"), " ") + "\n", r.out(), r.transcript());
    }

    @SuppressWarnings("unchecked")
    private static List<Long> expected(Path folder, String key) throws IOException {
        Map<String, Object> json = JSON.readValue(Files.readString(folder.resolve("expected.json")), Map.class);
        return (List<Long>) json.get(key);
    }
}
