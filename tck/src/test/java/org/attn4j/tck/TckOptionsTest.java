package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.attn4j.api.DType;
import org.attn4j.models.parameters.HostTensor;
import org.junit.jupiter.api.Test;

class TckOptionsTest {

    /** Only the matmul cases of the committed golden files. */
    private static final class MatmulOnly implements FixtureSource {
        private final FixtureSource all = GoldenFixtures.classpath();

        @Override
        public String description() {
            return "matmul cases of " + all.description();
        }

        @Override
        public List<GoldenCase> cases() {
            return all.cases().stream().filter(c -> c.op().equals("matmul")).toList();
        }

        @Override
        public HostTensor tensor(GoldenCase golden, String tensorName) {
            return all.tensor(golden, tensorName);
        }
    }

    @Test
    void optionsReplaceTheFixtureSourceAndAddAReportedToleranceOverride() {
        TckReport report = TckRunner.run(TestBackends.minimal().provider(), TestBackends.only(Kind.GOLDEN)
                .withFixtures(new MatmulOnly())
                .withToleranceOverride(new ToleranceOverride("matmul", DType.F32, "matmul_7x63x129_.*", 0, 0,
                        "demands bit-exact F32 to prove the override is applied")));

        assertTrue(report.results().stream().allMatch(r -> r.op().equals("matmul")));
        assertEquals(72, report.results().size());
        List<CaseResult> failed = report.failures();
        assertTrue(!failed.isEmpty() && failed.stream().allMatch(r -> r.testName().startsWith(
                "required_matmul_7x63x129_")), report.toTable());
        assertTrue(failed.get(0).message().contains("outside |actual − expected| ≤ 0.0 + 0.0·|expected|"),
                failed.get(0).message());
        assertTrue(report.notes().stream().anyMatch(n -> n.startsWith("tolerance override for matmul F32 cases "
                + "matmul_7x63x129_.*")), report.notes().toString());
        assertTrue(report.notes().stream().anyMatch(n -> n.contains("matmul cases of class path")));
    }

    @Test
    void differentialChecksCompareWithEveryAvailablePeerAndCatchADisagreement() {
        PeerBackends peers = new PeerBackends(List.of(new BackendUnderTest(TestBackends.maskOffByOne().provider()),
                new BackendUnderTest(TestBackends.unavailable())));

        TckReport report = TckRunner.run(TestBackends.minimal().provider(),
                TestBackends.only(Kind.DIFFERENTIAL).withPeers(peers));

        List<CaseResult> withPeer = report.results().stream().filter(r -> r.variant().equals("F32 minimal~broken-mask"))
                .toList();
        assertTrue(withPeer.stream().anyMatch(r -> r.status() == Status.PASSED
                && r.testName().equals("required_diff_attention_plain_2x3x17x17x16x16[F32 minimal~broken-mask]")));
        assertTrue(withPeer.stream().anyMatch(r -> r.status() == Status.FAILED
                && r.testName().equals("required_diff_attention_causal_2x3x17x17x16x16[F32 minimal~broken-mask]")
                && r.message().startsWith("attention case diff_attention_causal_2x3x17x17x16x16 [F32 minimal vs"
                        + " F32 broken-mask]")), report.toTable());
        assertTrue(report.results().stream().filter(r -> r.variant().equals("F64 minimal~broken-mask"))
                .allMatch(r -> r.status() == Status.SKIPPED && r.message().contains("declares no F64")));
        assertTrue(report.notes().stream().anyMatch(n -> n.startsWith("differential: peer nogpu is unavailable here")),
                report.notes().toString());
        assertEquals(java.util.Set.of("F32 minimal~broken-mask", "F32~reference"),
                report.peersThatRan().get("minimal").keySet(), report.toTable());
    }
}
