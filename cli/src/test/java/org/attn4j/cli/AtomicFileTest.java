package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFileTest {
    @TempDir
    Path dir;

    private List<String> names() throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aCommittedFileReplacesTheTargetWithTheUmasksPermissions() throws IOException {
        Path probe = Files.createFile(dir.resolve("probe"));
        Path target = Files.writeString(dir.resolve("target.txt"), "old");
        Files.setPosixFilePermissions(target, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        AtomicFile.write(target, out -> out.write("new".getBytes(StandardCharsets.UTF_8)));
        assertEquals("new", Files.readString(target));
        assertEquals(Files.getPosixFilePermissions(probe), Files.getPosixFilePermissions(target));
        assertEquals(List.of("probe", "target.txt"), names());
    }

    @Test
    void aFailedWriteLeavesTheTargetAndNoTemporaryFile() throws IOException {
        Path target = Files.writeString(dir.resolve("target.txt"), "old");
        assertThrows(IOException.class, () -> AtomicFile.write(target, out -> {
            out.write("half".getBytes(StandardCharsets.UTF_8));
            throw new IOException("disk full");
        }));
        assertEquals("old", Files.readString(target));
        assertEquals(List.of("target.txt"), names());
    }
}
