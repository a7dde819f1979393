package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TckCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS);

    @TempDir
    Path dir;

    @Test
    void printsTheConformanceTableOfOneBackendAndWritesItsJson() throws IOException {
        Path json = dir.resolve("reports/tck.json");
        Cli r = Cli.run("tck", "--backend", "ejml", "--json", json.toString());
        assertEquals(0, r.exitCode(), r.transcript());
        List<String> lines = r.out().lines().toList();
        assertEquals("attn4j tck: backend ejml", lines.get(0), r.transcript());
        assertTrue(lines.get(1).matches("attn4j-tck \\S+ on attn4j-api \\S+"), r.transcript());
        assertTrue(lines.get(2).startsWith("total: "), r.transcript());
        assertEquals("verdict: ejml conformant", lines.get(3), r.transcript());
        assertEquals("ejml, per op:", lines.get(5), r.transcript());
        assertTrue(lines.get(6).matches("op +passed +failed +skipped +error÷scale +÷tolerance +checked by"),
                r.transcript());
        assertTrue(lines.stream().anyMatch(l -> l.matches("attention +\\d+ +0 +0 +.* golden, differential, law,"
                + " bad-input")), r.transcript());
        assertTrue(lines.stream().anyMatch(l -> l.matches("all-MiniLM-L6-v2 +2 +0 +0 +.* model")), r.transcript());
        String total = lines.stream().filter(l -> l.startsWith("total: ")).findFirst().orElseThrow();
        assertTrue(total.endsWith(", 0 failed"), total);
        assertTrue(lines.contains("json: " + json), r.transcript());

        Map<?, ?> report = JSON.readValue(Files.readString(json), Map.class);
        Map<?, ?> summary = (Map<?, ?>) report.get("summary");
        assertEquals("total: " + summary.get("passed") + " passed, " + summary.get("skipped") + " skipped, "
                + summary.get("failed") + " failed", total);
        assertTrue(((List<?>) report.get("rows")).stream().allMatch(row -> "ejml".equals(((Map<?, ?>) row)
                .get("backend"))), "rows of other backends in " + json);
    }

    @Test
    void withoutABackendEveryProviderIsCheckedAndAnUnavailableOneIsOneLineWithItsReason() {
        Cli r = Cli.run("tck");
        assertEquals(0, r.exitCode(), r.transcript());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(2).startsWith("total: "), r.transcript());
        List<String> verdicts = lines.subList(3, 3 + BackendChoice.known().size());
        for (String name : BackendChoice.known()) {
            assertTrue(verdicts.stream().anyMatch(l -> l.startsWith("verdict: " + name + " ")),
                    "no verdict for " + name + "\n" + r.transcript());
        }
        assertTrue(verdicts.contains("verdict: unplugged not run, unavailable here: " + UnpluggedProvider.REASON),
                r.transcript());
        assertEquals(1, lines.stream().filter(l -> l.contains(UnpluggedProvider.REASON)).count(), r.transcript());
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("unplugged")), r.transcript());
        assertTrue(lines.contains("ejml, per op:") && lines.contains("nd4j, per op:"), r.transcript());
    }

    @Test
    void aRequestedBackendThatCannotRunFailsAndSaysWhy() {
        Cli r = Cli.run("tck", "--backend", UnpluggedProvider.NAME);
        assertEquals(1, r.exitCode(), r.transcript());
        assertEquals("attn4j tck: backend 'unplugged' cannot run here, so none of its cases ran: "
                + UnpluggedProvider.REASON, r.err().strip(), r.transcript());
    }

    @Test
    void anUnknownBackendIsAOneLineUsageErrorListingTheKnownOnes() {
        Cli r = Cli.run("tck", "--backend", "tpu");
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals("attn4j tck: unknown backend 'tpu'; known backends: " + String.join(", ", BackendChoice.known())
                + " (see 'attn4j tck --help')", r.err().strip(), r.transcript());
        assertEquals("", r.out(), r.transcript());
    }

    @Test
    void onlyRunsPartOfTheKitAndDetailPrintsTheTablePerKindAndVariant() {
        Cli r = Cli.run("tck", "--backend", "ejml", "--only", "softmax", "--detail");
        assertEquals(0, r.exitCode(), r.transcript());
        assertTrue(r.out().contains("\nverdict: ejml conformant on the cases selected by --only softmax (a partial run:"
                + " no conformance claim)\n"), r.transcript());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("ejml +golden +softmax +F32 +\\d+ +0 +0 .*")),
                r.transcript());

        Cli typo = Cli.run("tck", "--backend", "ejml", "--only", "sofmax");
        assertEquals(2, typo.exitCode(), typo.transcript());
        assertTrue(typo.err().startsWith("attn4j tck: --only names no op or kind of the kit: [sofmax]; ops: "),
                typo.transcript());
        assertEquals("", typo.out(), typo.transcript());
    }

    @Test
    void aJsonPathThatIsADirectoryIsAOneLineUsageError() {
        Cli r = Cli.run("tck", "--backend", "ejml", "--json", dir.toString());
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals("attn4j tck: --json " + dir + " is a directory; name a file (see 'attn4j tck --help')",
                r.err().strip(), r.transcript());
    }

    @Test
    void aJsonPathThatCannotBeWrittenIsAUsageErrorBeforeAnyCaseRuns() {
        Cli r = Cli.run("tck", "--backend", "ejml", "--json", "/proc/attn4j-tck.json");
        assertEquals(2, r.exitCode(), r.transcript());
        assertTrue(r.err().startsWith("attn4j tck: --json /proc/attn4j-tck.json"), r.transcript());
        assertEquals("", r.out(), r.transcript());
    }
}
