package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
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
    @ValueSource(strings = {"gpt2_tiny", "llama_gqa_tiny"})
    void greedyDecodingPrintsThePyTorchContinuation(String name) throws IOException {
        Cli r = Cli.run("generate", "--model", folder(name).toString(), "--ids", joined(expected(name, "prompt"), ","),
                "--max-new", "16");
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals(joined(expected(name, "greedy"), " ") + "\n", r.out(), r.transcript());
    }

    @ParameterizedTest
    @ValueSource(strings = {"gpt2_tiny", "llama_gqa_tiny"})
    void samplingWithASeedIsRepeatableAndStaysInTheVocabulary(String name) throws IOException {
        String[] args = {"generate", "--model", folder(name).toString(), "--ids", joined(expected(name, "prompt"), ","),
            "--max-new", "10", "--temperature", "0.8", "--top-k", "20", "--top-p", "0.9", "--seed", "7"};
        Cli first = Cli.run(args);
        Cli second = Cli.run(args);
        assertEquals(0, first.exitCode(), first.transcript());
        assertEquals(first.out(), second.out());
        int[] ids = Arrays.stream(first.out().trim().split(" ")).mapToInt(Integer::parseInt).toArray();
        assertEquals(10, ids.length, first.transcript());
        assertTrue(Arrays.stream(ids).allMatch(id -> id >= 0 && id < 97), first.transcript());
    }

    @ParameterizedTest
    @ValueSource(strings = {"--ids=1,x", "--ids=500", "--max-new=-1", "--top-p=0", "--temperature=-1",
        "--prompt=hello"})
    void badInputIsOneLineAndExitCodeTwo(String option) {
        Cli r = Cli.run("generate", "--model", folder("gpt2_tiny").toString(), option);
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals(1, r.err().lines().count(), r.transcript());
        assertEquals("", r.out(), r.transcript());
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
}
