package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GoldenFixturesTest {

    private static void copy(String name, Path dir) throws IOException {
        try (InputStream in = GoldenFixtures.class.getResourceAsStream(GoldenFixtures.RESOURCE_FOLDER + name)) {
            Files.copy(in, dir.resolve(name));
        }
    }

    @Test
    void aFolderOfRegeneratedFilesReadsLikeTheCommittedOnes(@TempDir Path dir) throws IOException {
        for (String name : List.of("manifest.json", "ops.safetensors", "attention.safetensors")) {
            copy(name, dir);
        }
        GoldenFixtures folder = GoldenFixtures.directory(dir);
        GoldenFixtures committed = GoldenFixtures.classpath();

        assertEquals(committed.cases(), folder.cases());
        GoldenCase softmax = folder.cases().stream().filter(c -> c.name().equals("softmax_large_logits")).findFirst()
                .orElseThrow();
        assertArrayEquals(committed.tensor(softmax, "softmax_large_logits/out").data(),
                folder.tensor(softmax, "softmax_large_logits/out").data());
        assertTrue(folder.description().startsWith("folder "), folder.description());
    }

    @Test
    void aMalformedManifestNamesTheCaseAndTheFix(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("manifest.json"), "[{\"group\": \"ops\", \"name\": \"x\", \"op\": 3}]");

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GoldenFixtures.directory(dir));
        assertTrue(e.getMessage().contains("case #0 x has op = 3, not a String")
                && e.getMessage().contains("generate_goldens.py"), e.getMessage());
    }

    @Test
    void aMalformedSafetensorsFileNamesTheFileAndTheFix(@TempDir Path dir) throws IOException {
        copy("manifest.json", dir);
        Files.write(dir.resolve("ops.safetensors"), new byte[] {1, 2, 3});
        GoldenFixtures folder = GoldenFixtures.directory(dir);
        GoldenCase first = folder.cases().get(0);

        UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> folder.tensor(first, first.inputs().get(0)));
        assertTrue(e.getMessage().contains("golden file ops.safetensors") && e.getMessage().contains("malformed")
                && e.getMessage().contains("generate_goldens.py"), e.getMessage());
    }
}
