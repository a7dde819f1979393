package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class BrokenBackendTest {

    private static CaseResult failure(TckReport report, String testName) {
        List<CaseResult> matches = report.failures().stream().filter(r -> r.testName().equals(testName)).toList();
        assertEquals(1, matches.size(), () -> testName + " should have failed; failures: "
                + report.failures().stream().map(CaseResult::testName).toList());
        return matches.get(0);
    }

    private static void assertNamesTheMismatch(String message) {
        for (String part : List.of("index ", "expected ", "actual ", "abs error ", "rel error ")) {
            assertTrue(message.contains(part), () -> "message lacks '" + part + "': " + message);
        }
    }

    @Test
    void softmaxThatForgetsTheMaxFailsNamingOpAndCase() {
        TckReport report = TckRunner.create(TestBackends.softmaxWithoutMax().provider(),
                TestBackends.only(Kind.GOLDEN)).run();

        assertFalse(report.passed());
        CaseResult large = failure(report, "required_softmax_large_logits[F32]");
        assertEquals("softmax", large.op());
        assertTrue(large.message().startsWith("softmax case softmax_large_logits [F32] on broken-softmax"),
                large.message());
        assertNamesTheMismatch(large.message());
        assertEquals("attention", failure(report, "required_attn_large_logits[F32]").op());
        assertTrue(report.toTable().contains("FAILED required_softmax_large_logits[F32]"));
    }

    @Test
    void maskOffByOneFailsCausalAttentionAndThePrefixLaw() {
        TckReport report = TckRunner.create(TestBackends.maskOffByOne().provider(),
                TestBackends.only(Kind.GOLDEN, Kind.LAW)).run();

        CaseResult causal = failure(report, "required_attn_causal_square[F32]");
        assertTrue(causal.message().startsWith("attention case attn_causal_square [F32] on broken-mask"),
                causal.message());
        assertNamesTheMismatch(causal.message());
        assertEquals("additiveMask", failure(report, "required_additiveMask_causal_4x4[F32]").op());
        assertTrue(failure(report, "required_law_causal_prefix_invariance[F32]").message()
                .startsWith("attention law_causal_prefix_invariance [F32] on broken-mask"));
    }

    @Test
    void anOpThatThrowsFailsItsCasesKeepingTheExceptionAsTheCause() {
        TckReport report = TckRunner.create(TestBackends.withoutGelu().provider(), TestBackends.only(Kind.GOLDEN))
                .run();

        CaseResult gelu = failure(report, "required_gelu_none[F32]");
        assertTrue(gelu.message().startsWith("gelu case gelu_none [F32] on no-gelu threw"
                + " java.lang.UnsupportedOperationException: gelu is not implemented yet"), gelu.message());
        assertTrue(gelu.message().endsWith(" [operands: x [5, 10]; approximation NONE]"), gelu.message());
        assertInstanceOf(UnsupportedOperationException.class, gelu.cause());
        assertTrue(java.util.Arrays.stream(gelu.cause().getStackTrace())
                .noneMatch(f -> f.getClassName().startsWith("org.junit.") || f.getClassName().equals(
                        TckRunner.class.getName())), "the cause keeps the backend's frames only");
        assertEquals(4, report.failures().size(), report.toTable());
    }
}
