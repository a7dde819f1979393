package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.attn4j.backend.ejml.EjmlBackendProvider;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

class FilterTest {

    private static TckOptions with(TckSettings settings) {
        return TckOptions.defaults().withSettings(settings);
    }

    @Test
    void onlyRunsTheNamedOpsAndSaysTheRunIsPartial() {
        TckReport report = TckRunner.run(new EjmlBackendProvider(),
                with(TckSettings.defaults().withOnly(List.of("softmax", "gelu"))));

        Set<String> ops = report.results().stream().map(CaseResult::op).collect(Collectors.toSet());
        assertEquals(Set.of("softmax", "gelu"), ops);
        assertTrue(report.toTable().contains("verdict: ejml conformant on the cases selected by --only"
                + " gelu,softmax (a partial run: no conformance claim)"), report.toTable());
        assertTrue(report.notes().stream().anyMatch(n -> n.startsWith("filtered by --only gelu,softmax: ")),
                report.notes().toString());

        TckReport weights = TckRunner.run(new EjmlBackendProvider(), with(TckSettings.defaults()
                .withOnly(List.of("attention")).withCases("_attn_causal_square")));
        assertEquals(Set.of("attention", "attention.weights"), weights.results().stream().map(CaseResult::op)
                .collect(Collectors.toSet()), "attention also names attention.weights");
    }

    @Test
    void onlyTakesKindsAndCasesTakesAPattern() {
        TckReport wiring = TckRunner.run(new EjmlBackendProvider(),
                with(TckSettings.defaults().withOnly(List.of("wiring"))));
        assertTrue(wiring.results().stream().allMatch(r -> r.kind() == Kind.WIRING));

        TckReport causal = TckRunner.run(new EjmlBackendProvider(),
                with(TckSettings.defaults().withCases("^required_attn_causal_.*\\[F32\\]$")));
        assertTrue(!causal.results().isEmpty() && causal.results().stream()
                .allMatch(r -> r.testName().startsWith("required_attn_causal_") && r.dtype().name().equals("F32")),
                causal.toTable());
    }

    @Test
    void aNameThatSelectsNothingIsRefusedListingTheOpsAndKinds() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TckRunner.run(
                new EjmlBackendProvider(), with(TckSettings.defaults().withOnly(List.of("sofmax")))));

        assertTrue(e.getMessage().startsWith("tck: --only names no op or kind of the kit: [sofmax]; ops: add,"
                + " additiveMask, "), e.getMessage());
        assertTrue(e.getMessage().endsWith("; kinds: wiring, golden, differential, law, bad-input, model"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TckSettings.defaults().withCases("attn_("));
    }

    @Test
    void theJUnitRouteReadsTheFilterFromSystemProperties() {
        System.setProperty(TckSettings.ONLY_PROPERTY, "gelu, relu");
        List<String> names = new ArrayList<>();
        try {
            collect(Tck.dynamicTests(new EjmlBackendProvider()), names);
        } finally {
            System.clearProperty(TckSettings.ONLY_PROPERTY);
        }
        List<String> expected = TckRunner.create(new EjmlBackendProvider(),
                with(TckSettings.defaults().withOnly(List.of("gelu", "relu")))).cases().stream()
                .map(TckCase::testName).toList();
        assertTrue(expected.size() > 10 && expected.size() < 100, expected.toString());
        assertEquals(expected.stream().sorted().toList(), names.stream().sorted().toList());
    }

    private static void collect(Stream<? extends DynamicNode> nodes, List<String> into) {
        nodes.forEach(n -> {
            if (n instanceof DynamicTest t) {
                into.add(t.getDisplayName());
            } else {
                collect(((DynamicContainer) n).getChildren(), into);
            }
        });
    }
}
