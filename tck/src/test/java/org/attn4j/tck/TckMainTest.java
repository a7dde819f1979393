package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.attn4j.models.io.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TckMainTest {

    private static String run(int expectedExit, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = Tck.run(args, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(expectedExit, exit, out);
        return out;
    }

    @Test
    void mainRunsTheKitOnANamedBackendPrintsTheTableAndWritesJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("report.json");

        String out = run(0, "--backend", "ejml", "--json", json.toString());

        assertTrue(out.startsWith("backend  kind          op"), out);
        assertTrue(out.contains("ejml     golden        attention "), out);
        @SuppressWarnings("unchecked")
        Map<String, Object> summary = (Map<String, Object>) ((Map<String, Object>) Json.parse(
                Files.readString(json))).get("summary");
        assertEquals(0L, summary.get("failed"));
        assertTrue((Long) summary.get("passed") > 500, summary.toString());
    }

    @Test
    void anUnknownBackendIsAUsageErrorListingTheProvidersFound() {
        String out = run(2, "--backend", "nosuch");
        assertTrue(out.contains("no backend provider named 'nosuch'") && out.contains("ejml"), out);
    }

    @Test
    void anUnknownArgumentIsAUsageError() {
        assertTrue(run(2, "--frobnicate").startsWith("usage: Tck [--backend NAME] [--json FILE]"));
    }
}
