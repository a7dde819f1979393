package org.attn4j.bench.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.attn4j.models.io.Gguf;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * llama.cpp ({@code de.kherud:llama}'s bundled build) loads every quantized GGUF test file of the models module
 * (written by {@code bench/src/quantize}'s {@code QuantizedTestFiles}, as {@code llama-quantize} makes them), names
 * its file type as its own quantizer's, and counts the tensors of each type that the file holds. Each load runs in
 * a JVM of its own ({@link LlamaCppLoad}), whose standard error holds what llama.cpp's loader printed.
 */
class QuantizedFilesLoadInLlamaCppTest {
    private static final String FOLDER = "/org/attn4j/models/decoder/quantized/";
    private static final Pattern TYPE_COUNT = Pattern.compile("- type\\s+(\\w+):\\s+(\\d+) tensors");

    @TempDir
    static Path dir;

    static Stream<Arguments> files() {
        Map<String, String> mixes = Map.of("q4_k_m", "Q4_K - Medium", "q5_k_m", "Q5_K - Medium", "q4_k_s",
                "Q4_K - Small", "q6_k", "Q6_K", "q8_0", "Q8_0");
        return Stream.of("rows576-q4_k_m", "rows576-q5_k_m", "rows576-q4_k_s", "rows576-q6_k", "rows256-q4_k_m",
                "rows256-q5_k_m", "rows256-q4_k_s", "rows256-q6_k", "rows256-q8_0")
                .map(name -> Arguments.of(name, mixes.get(name.substring(name.indexOf('-') + 1))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void llamaCppLoadsTheFileAndNamesItsMix(String name, String mix) throws IOException, InterruptedException {
        Path file = dir.resolve(name + ".gguf");
        try (InputStream in = QuantizedFilesLoadInLlamaCppTest.class.getResourceAsStream(FOLDER + name + ".gguf")) {
            assertTrue(in != null, "no test file " + name + ".gguf on the class path (the models test-jar)");
            Files.copy(in, file);
        }
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), LlamaCppLoad.class.getName(), file.toString())
                .redirectErrorStream(true).start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = p.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(its output could not be read: " + e + ")";
            }
        });
        boolean exited = p.waitFor(2, TimeUnit.MINUTES);
        if (!exited) {
            p.destroyForcibly().waitFor();
        }
        String log = output.join();
        assertTrue(exited, name + ": llama.cpp's JVM did not exit within 2 minutes:\n" + log);
        assertEquals(0, p.exitValue(), name + ": llama.cpp did not load the file:\n" + log);
        assertTrue(log.contains("file type   = " + mix + "\n"), name + ": llama.cpp's loader names no file type "
                + mix + ":\n" + log);
        Map<String, Integer> logged = new TreeMap<>();
        Matcher m = TYPE_COUNT.matcher(log);
        while (m.find()) {
            logged.put(m.group(1).toUpperCase(Locale.ROOT), Integer.parseInt(m.group(2)));
        }
        Map<String, Integer> held = new TreeMap<>();
        for (Gguf.TensorInfo t : Gguf.read(file).infos()) {
            held.merge(t.type().name(), 1, Integer::sum);
        }
        assertEquals(held, logged, name + ": tensors per type, as llama.cpp's loader counts them");
    }
}
