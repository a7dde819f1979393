package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class FailureDetailTest {

    private static void collect(Stream<? extends DynamicNode> nodes, List<DynamicTest> into) {
        nodes.forEach(n -> {
            if (n instanceof DynamicTest t) {
                into.add(t);
            } else {
                collect(((DynamicContainer) n).getChildren(), into);
            }
        });
    }

    @Test
    void theFirstFailuresCarryEveryDetailAndLaterOnesOneCappedLineWithoutAStackTrace() {
        List<DynamicTest> tests = new ArrayList<>();
        collect(Tck.dynamicTests(TestBackends.softmaxWithoutMax().provider(), TestBackends.only(Kind.GOLDEN)),
                tests);
        List<AssertionFailedError> failures = new ArrayList<>();
        for (DynamicTest t : tests) {
            try {
                t.getExecutable().execute();
            } catch (AssertionFailedError e) {
                failures.add(e);
            } catch (Throwable other) {
                assertTrue(other instanceof TestAbortedException, other.toString());
            }
        }

        assertTrue(tests.stream().allMatch(t -> t.getTestSourceUri().orElseThrow().equals(
                Tck.source(FailureDetailTest.class, t.getDisplayName()))), "each case is its own method source");
        assertEquals("required_x[F32 a~b]", Tck.source(FailureDetailTest.class, "required_x[F32 a~b]").getFragment());
        assertTrue(failures.size() > Tck.DETAILED_FAILURES, failures.size() + " failures");
        for (AssertionFailedError e : failures.subList(0, Tck.DETAILED_FAILURES)) {
            assertTrue(e.getMessage().contains("expected") && e.getMessage().contains("actual"), e.getMessage());
            assertTrue(e.getMessage().contains("[operands: "), e.getMessage());
            assertEquals(0, e.getStackTrace().length, "the kit's and JUnit's frames say nothing about the backend");
        }
        for (int i = Tck.DETAILED_FAILURES; i < failures.size(); i++) {
            AssertionFailedError e = failures.get(i);
            assertEquals(0, e.getStackTrace().length, e.getMessage());
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
            assertTrue(e.getMessage().endsWith(" [failure " + (i + 1) + ": the first " + Tck.DETAILED_FAILURES
                    + " failures carry every detail]"), e.getMessage());
            assertTrue(e.getMessage().length() <= Tck.BRIEF_LENGTH + 80, e.getMessage());
        }
    }

    @Test
    void thePrintedTableListsTheFirstFailuresAndCountsTheRest() {
        TckReport report = TckRunner.run(TestBackends.softmaxWithoutMax().provider(), TestBackends.only(Kind.GOLDEN));
        int failed = report.failures().size();
        assertTrue(failed > 3, report.toTable());

        String table = report.toTable(3);

        assertEquals(3, table.lines().filter(l -> l.startsWith("FAILED ")).count(), table);
        assertTrue(table.endsWith("… and " + (failed - 3) + " more failures, each in the JSON report\n"), table);
        assertEquals(failed, report.toTable().lines().filter(l -> l.startsWith("FAILED ")).count());
    }
}
