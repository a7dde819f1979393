package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.attn4j.api.BackendSelection;
import org.attn4j.api.Backends;
import org.attn4j.api.ProviderReport;
import org.junit.jupiter.api.Test;

class BackendsCommandTest {

    @Test
    void listsEveryProviderWithStatusPriorityCapabilitiesAndReason() {
        List<ProviderReport> found = Backends.describe();
        Cli r = Cli.run("backends");
        assertEquals(0, r.exitCode(), r.transcript());
        assertEquals("", r.err(), r.transcript());
        List<String> lines = r.out().lines().toList();
        BackendSelection selection = Backends.select();
        assertEquals(found.size() + " backend providers found; selected: " + selection.backend().name() + " ("
                + selection.reason() + ")", lines.get(0), r.transcript());
        assertTrue(lines.get(2).matches(" +NAME +PRIORITY +STATUS +DEVICE +DTYPES +FUSED ATTENTION +DROPOUT +WEIGHTS"
                + " +THREADS"), r.transcript());
        for (ProviderReport p : found) {
            String status = p.availability().available() ? "available" : "unavailable";
            assertTrue(lines.stream().anyMatch(l -> l.matches(" +" + (p.selected() ? "\\*" : " ") + " +" + p.name()
                    + " +" + p.priority() + " +" + status + " +" + p.capabilities().device() + " .*")),
                    "no table row for " + p.summary() + "\n" + r.transcript());
            assertTrue(lines.contains("  " + p.summary()), "no reason line for " + p.name() + "\n" + r.transcript());
        }
    }

    @Test
    void anUnavailableProviderIsListedWithItsReasonAndNeverSelected() {
        Cli r = Cli.run("backends");
        assertTrue(r.out().lines().anyMatch(l -> l.matches(" +unplugged +1000 +unavailable +none +F32 +no +no +no"
                + " +1")), r.transcript());
        assertTrue(r.out().contains("  unplugged (priority 1000): unavailable — " + UnpluggedProvider.REASON + "\n"),
                r.transcript());
        assertTrue(!r.out().lines().findFirst().orElse("").contains("selected: unplugged"), r.transcript());
    }
}
