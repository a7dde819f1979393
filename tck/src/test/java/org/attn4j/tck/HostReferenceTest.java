package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class HostReferenceTest {

    @Test
    void theHostReferenceMatchesThePyTorchGoldensAndKeepsTheLaws() {
        TckReport report = TckRunner.run(HostReference.instance(), TestBackends.only(Kind.GOLDEN, Kind.LAW)
                .withSettings(new TckSettings(TckSettings.defaults().seed(), java.util.EnumSet.of(Kind.GOLDEN,
                        Kind.LAW)).withCases("^(?!.*_threads_)")));

        assertEquals(0, report.count(Status.FAILED), report.toTable());
        assertEquals(0, report.count(Status.SKIPPED), report.toTable());
        assertTrue(report.count(Status.PASSED) > 650, report.toTable());
    }

    @Test
    void aLoneF32BackendIsStillComparedOnRandomInputsWithTheHostReference() {
        TckReport report = TckRunner.run(TestBackends.minimal().provider(),
                TestBackends.only(Kind.DIFFERENTIAL).withPeers(PeerBackends.none()));

        assertEquals(0, report.count(Status.FAILED), report.toTable());
        Map<String, Integer> ran = report.peersThatRan().get("minimal");
        assertEquals(java.util.Set.of("F32~reference"), ran.keySet(), report.toTable());
        int n = ran.get("F32~reference");
        assertTrue(n >= 40, report.toTable());
        assertTrue(report.toTable().contains("compared with: F32~reference (" + n + " cases)\n"), report.toTable());
        assertTrue(report.results().stream().filter(r -> r.variant().equals("F32~reference"))
                .anyMatch(r -> r.op().equals("attention") && r.maxAbsError() > 0));
    }

    @Test
    void aWrongOpIsCaughtByTheHostReferenceWithoutAnyPeer() {
        TckReport report = TckRunner.run(TestBackends.maskOffByOne().provider(),
                TestBackends.only(Kind.DIFFERENTIAL).withPeers(PeerBackends.none()));

        assertTrue(report.failures().stream().anyMatch(r -> r.testName()
                .equals("required_diff_attention_causal_2x3x17x17x16x16[F32~reference]")
                && r.message().startsWith("attention case diff_attention_causal_2x3x17x17x16x16 [F32 broken-mask vs"
                        + " F64 reference]")
                && r.message().contains("[operands: q [2, 3, 17, 16], k [2, 3, 17, 16], v [2, 3, 17, 16] ~ N(0, 1);"
                        + " causal]")), report.toTable());
    }
}
