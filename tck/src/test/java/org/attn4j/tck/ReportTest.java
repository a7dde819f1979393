package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.junit.jupiter.api.Test;

class ReportTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS);
    private static final Tolerance TIGHT = new Tolerance(1e-6, 1e-6, "test");

    private static CaseResult result(String op, Status status, double abs, String message) {
        return new CaseResult("b", Kind.GOLDEN, op, "required_" + op + "_x[F32]", DType.F32, "F32", status, abs,
                abs * 10, abs / 2, abs * 100, message, null);
    }

    @Test
    void theReportSummarisesPerOpFoldsSkipsAndListsFailuresAfterALegend() throws IOException {
        TckReport report = new TckReport(List.of(result("softmax", Status.PASSED, 1e-7, ""),
                result("softmax", Status.FAILED, 3e-3, "softmax case x: bad"),
                result("gelu", Status.SKIPPED, 0, "the backend declares no F64 support"),
                result("exp", Status.SKIPPED, 0, "the backend declares no F64 support"),
                new CaseResult("b", Kind.WIRING, "capabilities", "required_wiring_capabilities_F64[capabilities]",
                        DType.F32, "capabilities", Status.PASSED, 0, 0, 0, 0, "b does not declare F64, yet it works",
                        null)), List.of("a note"), "1.2.3", "1.2.4", null);

        List<String> lines = report.toTable().lines().toList();
        assertEquals(List.of("attn4j-tck 1.2.3 on attn4j-api 1.2.4", "total: 2 passed, 2 skipped, 1 failed",
                "verdict: b not conformant", "", "b, per op:",
                "op            passed  failed  skipped  error÷scale  ÷tolerance  checked by",
                "softmax            1       1        0     1.50e-03        0.30  golden",
                "capabilities       1       0        0            0           0  wiring",
                "skipped 2 (golden 2): the backend declares no F64 support",
                "noted: b does not declare F64, yet it works", "note: a note"), lines.subList(0, 11));
        assertTrue(lines.get(11).startsWith("legend: required_<case>[…] must pass"), lines.get(11));
        assertEquals("FAILED required_softmax_x[F32] on b: softmax case x: bad", lines.get(lines.size() - 1));
        assertTrue(report.toDetail().lines().anyMatch(l -> l.matches("b +golden +softmax +F32 +1 +0 +1 +1.50e-03"
                + " +0.30 +3.00e-03 +3.00e-02")), report.toDetail());
        assertTrue(report.toDetail().lines().noneMatch(l -> l.contains("gelu")), "all-skipped rows are folded");

        @SuppressWarnings("unchecked")
        Map<String, Object> json = JSON.readValue(report.toJson(), Map.class);
        assertEquals(Map.of("passed", 2L, "skipped", 2L, "failed", 1L), json.get("summary"));
        assertEquals(Map.of("kit", "1.2.3", "api", "1.2.4"), json.get("versions"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) json.get("rows");
        assertEquals(4, rows.size());
        assertEquals(1L, rows.get(0).get("passed"));
        assertEquals(1L, rows.get(0).get("failed"));
        assertEquals(3e-3, (Double) rows.get(0).get("maxAbsError"), 0);
        assertEquals(1.5e-3, (Double) rows.get(0).get("errorToScale"), 0);
        assertEquals(5, ((List<?>) json.get("results")).size());
        assertEquals(List.of("a note"), json.get("notes"));
        assertEquals(Map.of("b", "NOT_CONFORMANT"), json.get("verdicts"));
    }

    @Test
    void aBackendIsConformantWhenNothingFailedAndNotRunWhenNothingRan() {
        TckReport report = new TckReport(List.of(
                new CaseResult("ok", Kind.LAW, "softmax", "required_x[F32]", DType.F32, "F32", Status.PASSED, 0, 0,
                        "", null),
                new CaseResult("ok", Kind.LAW, "softmax", "optional_x[F64]", DType.F64, "F64", Status.SKIPPED, 0, 0,
                        "the backend declares no F64 support", null),
                new CaseResult("gpu", Kind.WIRING, "provider", "required_wiring_name[provider]", DType.F32,
                        "provider", Status.PASSED, 0, 0, "", null),
                new CaseResult("gpu", Kind.LAW, "softmax", "required_x[F32]", DType.F32, "F32", Status.SKIPPED, 0, 0,
                        "backend gpu is unavailable here: no device", null)), List.of());

        assertEquals(Map.of("ok", TckReport.Verdict.CONFORMANT, "gpu", TckReport.Verdict.NOT_RUN), report.verdicts(),
                "a passing wiring alone is no conformance");
        assertEquals(Map.of("gpu", "no device"), report.unavailableReasons());
        assertTrue(report.passed());
    }

    @Test
    void mismatchMessageNamesIndexExpectedActualAbsAndRelError() {
        Measurement m = Comparison.compare("softmax case c [F64] on b, output out", Shape.of(2, 2),
                new double[] {1, 2, 3, 4}, Shape.of(2, 2), new double[] {1, 2, 3.5, 4}, DType.F64, TIGHT);

        assertEquals("softmax case c [F64] on b, output out: 1 of 4 elements outside |actual − expected| ≤ 1.0E-6"
                + " + 1.0E-6·|expected| (the output's largest |expected| is 4.0); first at index 2 [1, 0]: expected"
                + " 3.0, actual 3.5, abs error 0.5, rel error 0.16666666666666666", m.failure());
        assertEquals(0.5, m.maxAbsError());
        assertEquals(0.5 / 4, m.errorToScale());
        assertEquals(0.5 / (1e-6 + 3e-6), m.toleranceUsed(), 1e-6);
        assertEquals(0.5 / 3, m.maxRelError(), 1e-15);
    }

    @Test
    void nanMatchesOnlyNanAndAnInfinityOnlyItself() {
        double inf = Double.POSITIVE_INFINITY;
        assertNull(Comparison.compare("x", Shape.of(3), new double[] {Double.NaN, inf, -inf}, Shape.of(3),
                new double[] {Double.NaN, inf, -inf}, DType.F64, TIGHT).failure());
        assertTrue(Comparison.compare("x", Shape.of(2), new double[] {Double.NaN, 1}, Shape.of(2),
                new double[] {0, 1}, DType.F64, TIGHT).failure().contains("expected NaN, actual 0.0"));
        assertTrue(Comparison.compare("x", Shape.of(1), new double[] {1}, Shape.of(1), new double[] {Double.NaN},
                DType.F64, TIGHT).failure().contains("expected 1.0, actual NaN"));
        assertTrue(Comparison.compare("x", Shape.of(1), new double[] {inf}, Shape.of(1), new double[] {1e300},
                DType.F64, TIGHT).failure().contains("expected Infinity"));
    }

    @Test
    void f32ResultsAreComparedWithTheGoldenValueRoundedToF32() {
        assertNull(Comparison.compare("exp", Shape.of(1), new double[] {1e39}, Shape.of(1),
                new double[] {Double.POSITIVE_INFINITY}, DType.F32, new Tolerance(0, 0, "exact")).failure());
    }

    @Test
    void aWrongShapeFailsBeforeAnyValueIsCompared() {
        assertEquals("x: shape expected [2], actual [1, 2]", Comparison.compare("x", Shape.of(2), new double[2],
                Shape.of(1, 2), new double[2], DType.F64, TIGHT).failure());
    }
}
