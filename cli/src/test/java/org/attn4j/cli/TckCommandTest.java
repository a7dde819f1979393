package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.attn4j.models.io.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TckCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsTheConformanceTableOfOneBackendAndWritesItsJson() throws IOException {
        Path json = dir.resolve("reports/tck.json");
        Cli r = Cli.run("tck", "--backend", "ejml", "--json", json.toString());
        assertEquals(0, r.exitCode(), r.transcript());
        List<String> lines = r.out().lines().toList();
        assertEquals("attn4j tck: backend ejml", lines.get(0), r.transcript());
        assertTrue(lines.get(1).matches("backend +kind +op +.*passed +skipped +failed +max abs err +max rel err"),
                r.transcript());
        assertTrue(lines.stream().anyMatch(l -> l.matches("ejml +golden +attention +F32 +\\d+ +\\d+ +0 .*")),
                r.transcript());
        String total = lines.stream().filter(l -> l.startsWith("total: ")).findFirst().orElseThrow();
        assertTrue(total.endsWith(", 0 failed"), total);
        assertTrue(lines.contains("json: " + json), r.transcript());

        Map<?, ?> report = (Map<?, ?>) Json.parse(Files.readString(json));
        Map<?, ?> summary = (Map<?, ?>) report.get("summary");
        assertEquals("total: " + summary.get("passed") + " passed, " + summary.get("skipped") + " skipped, "
                + summary.get("failed") + " failed", total);
        assertTrue(((List<?>) report.get("rows")).stream().allMatch(row -> "ejml".equals(((Map<?, ?>) row)
                .get("backend"))), "rows of other backends in " + json);
    }

    @Test
    void withoutABackendEveryProviderIsCheckedAndUnavailableOnesAreSkippedWithTheirReason() {
        Cli r = Cli.run("tck");
        assertEquals(0, r.exitCode(), r.transcript());
        for (String name : BackendChoice.known()) {
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith(name + " ")), "no rows for " + name + "\n"
                    + r.transcript());
        }
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("skipped ") && l.contains("unplugged: ")
                && l.contains(UnpluggedProvider.REASON)), r.transcript());
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
    void aJsonPathThatIsADirectoryIsAOneLineUsageError() {
        Cli r = Cli.run("tck", "--backend", "ejml", "--json", dir.toString());
        assertEquals(2, r.exitCode(), r.transcript());
        assertEquals("attn4j tck: --json " + dir + " is a directory; name a file (see 'attn4j tck --help')",
                r.err().strip(), r.transcript());
    }
}
