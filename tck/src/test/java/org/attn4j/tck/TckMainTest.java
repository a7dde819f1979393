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
        assertTrue(lines.get(1).startsWith("attn4j-tck "), outcome.out());
        assertTrue(lines.get(2).startsWith("total: "), outcome.out());
        assertTrue(lines.get(3).startsWith("verdict: ejml "), outcome.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("attention +\\d+ +0 +0 .* golden, differential, law,"
                + " bad-input")), outcome.out());
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
    void onlyAndCasesRunPartOfTheKitAndAnUnknownOpIsAUsageError() {
        Outcome part = run("--backend", "ejml", "--only", "softmax", "--cases", "\\[F64\\]$", "--detail");
        assertEquals(0, part.exit(), part.out());
        assertTrue(part.out().contains("verdict: ejml conformant on the cases selected by --only softmax --cases"
                + " '\\[F64\\]$' (a partial run: no conformance claim)"), part.out());
        assertTrue(part.out().lines().anyMatch(l -> l.matches("ejml +golden +softmax +F64 +\\d+ +0 +0 .*")),
                part.out());

        Outcome typo = run("--backend", "ejml", "--only", "sofmax");
        assertEquals(2, typo.exit());
        assertTrue(typo.out().startsWith("tck: --only names no op or kind of the kit: [sofmax]; ops: "), typo.out());
    }

    @Test
    void aJarGivenAtRunTimeIsJudgedAndOnlyThePairsThatRanAreListed(@TempDir Path dir) throws Exception {
        Path jar = ThirdPartyJars.providerJar(dir, "loopy", true);

        Outcome outcome = ThirdPartyJars.withJars(List.of(jar),
                () -> run("--backend", "loopy", "--only", "softmax,wiring"));

        assertEquals(0, outcome.exit(), outcome.out());
        assertTrue(outcome.out().contains("\nverdict: loopy conformant on the cases selected by"), outcome.out());
        String compared = outcome.out().lines().filter(l -> l.startsWith("compared with: ")).findFirst()
                .orElseThrow();
        assertEquals("compared with: F32 loopy~ejml (2 cases); F32 loopy~nd4j (2 cases); F32~reference (2 cases)",
                compared, "loopy declares no F64, so no F64 pair ran");
    }

    @Test
    void anUnknownArgumentIsAUsageError() {
        Outcome outcome = run("--frobnicate");
        assertEquals(2, outcome.exit());
        assertEquals("tck: Unknown option: '--frobnicate' (see 'tck --help')", outcome.out().strip());
    }
}
