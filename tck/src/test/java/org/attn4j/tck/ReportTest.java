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
                abs * 10, message, null);
    }

    @Test
    void tableAndJsonCountEveryOutcomePerBackendKindOpAndVariant() throws IOException {
        TckReport report = new TckReport(List.of(result("softmax", Status.PASSED, 1e-7, ""),
                result("softmax", Status.FAILED, 3e-3, "softmax case x: bad"),
                result("gelu", Status.SKIPPED, 0, "the backend declares no F64 support")), List.of("a note"));

        String table = report.toTable();
        assertTrue(table.contains("softmax"), table);
        assertTrue(table.contains("3.00e-03"), table);
        assertTrue(table.contains("total: 1 passed, 1 skipped, 1 failed"), table);
        assertTrue(table.contains("FAILED required_softmax_x[F32] on b: softmax case x: bad"), table);
        assertTrue(table.contains("skipped 1 × b: the backend declares no F64 support"), table);

        @SuppressWarnings("unchecked")
        Map<String, Object> json = JSON.readValue(report.toJson(), Map.class);
        assertEquals(Map.of("passed", 1L, "skipped", 1L, "failed", 1L), json.get("summary"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) json.get("rows");
        assertEquals(2, rows.size());
        assertEquals(1L, rows.get(0).get("passed"));
        assertEquals(1L, rows.get(0).get("failed"));
        assertEquals(3e-3, (Double) rows.get(0).get("maxAbsError"), 0);
        assertEquals(3, ((List<?>) json.get("results")).size());
        assertEquals(List.of("a note"), json.get("notes"));
        assertEquals(Map.of("b", "NOT_CONFORMANT"), json.get("verdicts"));
        assertTrue(table.contains("verdict: b not conformant"), table);
    }

    @Test
    void aBackendIsConformantWhenNothingFailedAndNotRunWhenNothingRan() {
        TckReport report = new TckReport(List.of(
                new CaseResult("ok", Kind.LAW, "softmax", "required_x[F32]", DType.F32, "F32", Status.PASSED, 0, 0,
                        "", null),
                new CaseResult("ok", Kind.LAW, "softmax", "optional_x[F64]", DType.F64, "F64", Status.SKIPPED, 0, 0,
                        "the backend declares no F64 support", null),
                new CaseResult("gpu", Kind.LAW, "softmax", "required_x[F32]", DType.F32, "F32", Status.SKIPPED, 0, 0,
                        "backend gpu is unavailable here: no device", null)), List.of());

        assertEquals(Map.of("ok", TckReport.Verdict.CONFORMANT, "gpu", TckReport.Verdict.NOT_RUN), report.verdicts());
        assertTrue(report.passed());
    }

    @Test
    void mismatchMessageNamesIndexExpectedActualAbsAndRelError() {
        Measurement m = Comparison.compare("softmax case c [F64] on b, output out", Shape.of(2, 2),
                new double[] {1, 2, 3, 4}, Shape.of(2, 2), new double[] {1, 2, 3.5, 4}, DType.F64, TIGHT);

        assertEquals("softmax case c [F64] on b, output out: 1 of 4 elements outside |actual − expected| ≤ 1.0E-6"
                + " + 1.0E-6·|expected|; first at index 2 [1, 0]: expected 3.0, actual 3.5, abs error 0.5,"
                + " rel error 0.16666666666666666", m.failure());
        assertEquals(0.5, m.maxAbsError());
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
