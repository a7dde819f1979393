package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class SkippingTest {

    @Test
    void optionalFeaturesTheBackendLacksAreSkippedWithTheReasonNeverPassed() {
        TckReport report = TckRunner.create(TestBackends.minimal().provider(),
                TestBackends.only(Kind.GOLDEN, Kind.BAD_INPUT)).run();

        List<CaseResult> optional = report.results().stream().filter(r -> r.testName().startsWith("optional_"))
                .toList();
        assertTrue(optional.size() > 100, "optional cases planned: " + optional.size());
        for (CaseResult r : optional) {
            assertEquals(Status.SKIPPED, r.status(), r.testName());
            assertTrue(r.message().contains("the backend declares no"), r.message());
        }
        assertTrue(report.results().stream().anyMatch(r -> r.testName().equals("optional_attn_basic_weights[F32]")
                && r.message().contains("returned attention weights")));
        assertTrue(report.results().stream().anyMatch(r -> r.testName().equals("optional_dropout_p0p1_s42[F32]")
                && r.message().contains("dropout")));
        assertEquals(0, report.count(Status.FAILED), report.toTable());
        assertTrue(report.results().stream().filter(r -> r.testName().startsWith("required_"))
                .allMatch(r -> r.status() == Status.PASSED));
    }

    @Test
    void unavailableBackendIsSkippedWithItsReasonNeverPassedNorFailed() {
        TckReport report = TckRunner.run(TestBackends.unavailable(), TestBackends.allBut(Kind.WIRING));

        assertEquals(0, report.count(Status.PASSED));
        assertEquals(0, report.count(Status.FAILED));
        assertEquals(report.results().size(), report.count(Status.SKIPPED));
        assertTrue(report.results().stream().allMatch(r -> r.message().equals(
                "backend nogpu is unavailable here: libcuda.so.1 not found; install the NVIDIA driver")));
        assertEquals(TckReport.Verdict.NOT_RUN, report.verdicts().get("nogpu"));
    }

    @Test
    void theProviderOfAnUnavailableBackendHasItsWiringCheckedAndIsStillNotRun() {
        TckReport report = TckRunner.run(TestBackends.unavailable(), TestBackends.only(Kind.WIRING, Kind.LAW));

        List<String> ran = report.results().stream().filter(r -> r.status() != Status.SKIPPED)
                .map(CaseResult::testName).toList();
        assertEquals(List.of("required_wiring_found_by_service_loader[provider]", "required_wiring_name[provider]",
                "required_wiring_priority[provider]", "required_wiring_availability[provider]",
                "required_wiring_api_signature[api]"), ran);
        assertTrue(report.results().stream().filter(r -> r.op().equals("capabilities"))
                .allMatch(r -> r.status() == Status.SKIPPED));
    }

    @Test
    void skippedCaseAbortsItsJUnitTest() throws Throwable {
        DynamicTest first = firstTest(Tck.dynamicTests(TestBackends.unavailable(), TestBackends.only(Kind.LAW)))
                .orElseThrow();

        assertTrue(first.getDisplayName().startsWith("required_law_"), first.getDisplayName());
        TestAbortedException e = assertThrows(TestAbortedException.class, () -> first.getExecutable().execute());
        assertTrue(e.getMessage().contains("libcuda.so.1 not found"), e.getMessage());
    }

    private static Optional<DynamicTest> firstTest(Stream<? extends DynamicNode> nodes) {
        for (DynamicNode node : nodes.toList()) {
            if (node instanceof DynamicTest test) {
                return Optional.of(test);
            }
            Optional<DynamicTest> inner = firstTest(((DynamicContainer) node).getChildren());
            if (inner.isPresent()) {
                return inner;
            }
        }
        return Optional.empty();
    }
}
