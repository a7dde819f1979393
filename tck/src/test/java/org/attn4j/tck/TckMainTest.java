package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TckMainTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS);

    private record Outcome(int exit, String out) {
    }

    private static Outcome run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = Tck.run(args, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return new Outcome(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void mainRunsTheKitOnANamedBackendPrintsTheTableAndWritesJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("report.json");

        Outcome outcome = run("--backend", "ejml", "--json", json.toString());

        List<String> lines = outcome.out().lines().toList();
        assertEquals("tck: backend ejml", lines.get(0), outcome.out());
        assertTrue(lines.get(1).startsWith("total: "), outcome.out());
        assertTrue(lines.get(2).startsWith("verdict: ejml "), outcome.out());
        assertTrue(outcome.out().contains("ejml     golden        attention "), outcome.out());
        @SuppressWarnings("unchecked")
        Map<String, Object> summary = (Map<String, Object>) JSON.readValue(Files.readString(json), Map.class)
                .get("summary");
        assertEquals((Long) summary.get("failed") == 0 ? 0 : 1, outcome.exit(), outcome.out());
        assertTrue((Long) summary.get("passed") > 500, summary.toString());
    }

    @Test
    void anUnknownBackendIsAUsageErrorListingTheProvidersFound() {
        Outcome outcome = run("--backend", "nosuch");
        assertEquals(2, outcome.exit());
        assertTrue(outcome.out().startsWith("tck: unknown backend 'nosuch'; known backends: ")
                && outcome.out().contains("ejml") && outcome.out().lines().count() == 1, outcome.out());
    }

    @Test
    void anUnknownArgumentIsAUsageError() {
        Outcome outcome = run("--frobnicate");
        assertEquals(2, outcome.exit());
        assertEquals("tck: Unknown option: '--frobnicate' (see 'tck --help')", outcome.out().strip());
    }
}
