package org.attn4j.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed PTX must come from the committed CUDA sources: {@code ptx/sources.sha256}, written by
 * {@code src/build/ptx.sh generate}, must list the SHA-256 of every file in {@code src/main/cuda}. This holds
 * without the CUDA toolkit; with nvcc the build also recompiles and compares the PTX itself.
 */
class PtxSourceChecksumTest {

    @Test
    void committedPtxWasGeneratedFromTheCurrentCudaSources() throws IOException, NoSuchAlgorithmException {
        Path dir = Path.of(System.getProperty("attn4j.cuda.sourceDir", "src/main/cuda"));
        String actual;
        try (Stream<Path> files = Files.list(dir)) {
            actual = files.filter(p -> p.toString().endsWith(".cu") || p.toString().endsWith(".cuh"))
                    .sorted()
                    .map(PtxSourceChecksumTest::line)
                    .collect(Collectors.joining());
        }
        String recorded;
        try (InputStream in = getClass().getResourceAsStream(PtxModule.RESOURCE_DIR + "sources.sha256")) {
            recorded = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertEquals(recorded, actual,
                "src/main/cuda changed since the PTX was generated: run bash src/build/ptx.sh generate . in backend-cuda");
    }

    private static String line(Path file) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
            return HexFormat.of().formatHex(digest) + "  " + file.getFileName() + "\n";
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("hashing " + file, e);
        }
    }
}
