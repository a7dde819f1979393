package org.attn4j.bench.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decode bench's node-llama-cpp run ({@code src/peers/node-llama-cpp/decode.mjs}) on the smallest quantized test
 * file of the models module: it decodes the tokens asked for and prints what {@link EngineResult} reads from every
 * engine. Skipped where node-llama-cpp is not installed ({@code npm ci} in that folder, see the README).
 */
class NodeLlamaCppDecodeTest {
    private static final Path SCRIPT = Path.of("src/peers/node-llama-cpp/decode.mjs");

    @TempDir
    Path dir;

    @Test
    void decodesTheTokensAskedForAndReportsAsEveryEngineDoes() throws IOException, InterruptedException {
        assumeTrue(Files.isDirectory(SCRIPT.resolveSibling("node_modules")), "node-llama-cpp is not installed");
        Path file = dir.resolve("rows256-q4_k_m.gguf");
        try (InputStream in = getClass().getResourceAsStream(
                "/org/attn4j/models/decoder/quantized/rows256-q4_k_m.gguf")) {
            assertTrue(in != null, "no rows256-q4_k_m.gguf on the class path (the models test-jar)");
            Files.copy(in, file);
        }
        Process p = new ProcessBuilder("node", SCRIPT.toString(), file.toString(), "300,301,302,303,304,305", "8",
                "1").start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        String out = read(p.getInputStream());
        int exit = p.waitFor();
        EngineResult r = EngineResult.parse(exit, out, err.join());
        assertNull(r.error(), "node-llama-cpp: " + r.error());
        assertEquals(8, r.ids().length, "ids " + Arrays.toString(r.ids()));
        assertTrue(Arrays.stream(r.ids()).allMatch(id -> id >= 0 && id < 320), "ids " + Arrays.toString(r.ids()));
        assertTrue(r.decode() > 0 && r.prefill() > 0 && r.peakMiB() > 0, "figures of " + err.join());
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
