package org.attn4j.tck;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.models.parameters.HostTensor;

/**
 * The backend against PyTorch float64: every case of groups {@code ops} and {@code attention}, in F32 (required)
 * and F64 (optional). An attention case that returns weights becomes two checks: its output (which needs no
 * optional feature) and its weights ({@link Feature#OPTIONAL_RETURNED_WEIGHTS}).
 */
final class GoldenSuite {
    static final Set<String> GROUPS = Set.of("ops", "attention");

    private GoldenSuite() {
    }

    static List<TckCase> plan(FixtureSource fixtures, ToleranceTable tolerances) {
        List<TckCase> cases = new ArrayList<>();
        for (DType dtype : DType.values()) {
            for (GoldenCase golden : fixtures.cases()) {
                if (!GROUPS.contains(golden.group())) {
                    continue;
                }
                boolean attention = isAttention(golden);
                boolean dropout = golden.op().equals("dropout") || attention && golden.number("dropoutP") > 0;
                Set<Feature> needs = dropout ? Set.of(Feature.OPTIONAL_DROPOUT) : Set.of();
                if (attention) {
                    cases.add(new TckCase(golden.name(), Kind.GOLDEN, golden.op(), dtype, dtype.name(), needs,
                            backend -> run(backend, golden, fixtures, tolerances, dtype, false),
                            () -> detail(golden, fixtures)));
                    if (golden.bool("returnWeights")) {
                        Set<Feature> withWeights = new HashSet<>(needs);
                        withWeights.add(Feature.OPTIONAL_RETURNED_WEIGHTS);
                        cases.add(new TckCase(golden.name() + "_weights", Kind.GOLDEN, golden.op() + ".weights", dtype,
                                dtype.name(), withWeights,
                                backend -> run(backend, golden, fixtures, tolerances, dtype, true),
                                () -> detail(golden, fixtures)));
                    }
                } else {
                    cases.add(new TckCase(golden.name(), Kind.GOLDEN, golden.op(), dtype, dtype.name(), needs,
                            backend -> run(backend, golden, fixtures, tolerances, dtype, false),
                            () -> detail(golden, fixtures)));
                }
            }
        }
        return cases;
    }

    /**
     * @return the case's inputs with their shapes and its params, for example
     *     {@code a [7, 63], b [129, 63]; transposeA false, transposeB true}
     */
    static String detail(GoldenCase golden, FixtureSource fixtures) {
        StringBuilder b = new StringBuilder();
        for (String input : golden.inputs()) {
            b.append(b.length() == 0 ? "" : ", ").append(GoldenCase.role(input)).append(' ')
                    .append(fixtures.tensor(golden, input).shape());
        }
        String params = golden.params().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(java.util.stream.Collectors.joining(", "));
        return b + (params.isEmpty() ? "" : "; " + params);
    }

    /** Runs one golden case; for attention, {@code weights} checks the returned weights instead of the output. */
    private static Measurement run(Backend backend, GoldenCase golden, FixtureSource fixtures,
                                   ToleranceTable tolerances, DType dtype, boolean weights) {
        boolean attention = isAttention(golden);
        String op = attention && weights ? golden.op() + ".weights" : golden.op();
        Tolerance tolerance = tolerances.lookup(op, golden.name(), dtype);
        List<String> expectedNames = attention ? List.of(golden.outputs().get(weights ? 1 : 0)) : golden.outputs();
        try (Scope scope = backend.newScope()) {
            List<HostTensor> actual = GoldenCall.run(golden, fixtures, scope, dtype, weights);
            if (attention) {
                actual = List.of(actual.get(weights ? 1 : 0));
            }
            String what = op + " case " + golden.name() + " [" + dtype + "] on " + backend.name();
            if (actual.size() != expectedNames.size()) {
                return Measurement.failed(what + ": returned " + actual.size() + " tensors, expected "
                        + expectedNames.size() + " (" + expectedNames + ")");
            }
            Measurement m = Measurement.EXACT;
            for (int i = 0; i < actual.size(); i++) {
                HostTensor expected = fixtures.tensor(golden, expectedNames.get(i));
                m = m.and(Comparison.compare(what + ", output " + GoldenCase.role(expectedNames.get(i)),
                        expected.shape(), expected.data(), actual.get(i).shape(), actual.get(i).data(), dtype,
                        tolerance));
            }
            return m;
        }
    }

    /** @return whether the case is an attention call, whose weights are a second, optional check */
    private static boolean isAttention(GoldenCase golden) {
        return golden.op().equals("attention") || golden.op().equals("packedAttention");
    }
}
