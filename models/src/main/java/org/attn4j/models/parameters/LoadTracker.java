package org.attn4j.models.parameters;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.attn4j.api.Shape;

/**
 * Records, while a module is built from a state dict, which names it asked for and which were missing or of the
 * wrong shape, so that one {@link StateDictException} can list every problem.
 */
final class LoadTracker {
    private final String module;
    private final StateDict root;
    private final Set<String> used = new LinkedHashSet<>();
    private final List<String> missing = new ArrayList<>();
    private final List<String> misShaped = new ArrayList<>();

    /**
     * @param missing names the module needs and the state dict lacks
     * @param unexpected names the state dict holds and the module does not use
     * @param misShaped {@code name: shape, needs shape} lines
     * @param nonFinite {@code name[index] = value} lines
     */
    record Report(List<String> missing, List<String> unexpected, List<String> misShaped, List<String> nonFinite) {
        Report {
            missing = List.copyOf(missing);
            unexpected = List.copyOf(unexpected);
            misShaped = List.copyOf(misShaped);
            nonFinite = List.copyOf(nonFinite);
        }

        boolean isEmpty() {
            return missing.isEmpty() && unexpected.isEmpty() && misShaped.isEmpty() && nonFinite.isEmpty();
        }

        String describe(String module) {
            StringBuilder b = new StringBuilder("Error(s) in loading state_dict for ").append(module).append(':');
            append(b, "missing", missing);
            append(b, "unexpected", unexpected);
            append(b, "shape mismatch", misShaped);
            append(b, "non-finite values (load with StateDict.allowingNonFinite() to accept them)", nonFinite);
            return b.toString();
        }

        private static void append(StringBuilder b, String what, List<String> items) {
            if (!items.isEmpty()) {
                b.append("\n  ").append(what).append(" (").append(items.size()).append("): ")
                        .append(String.join(", ", items));
            }
        }
    }

    private LoadTracker(String module, StateDict root) {
        this.module = module;
        this.root = root;
    }

    void used(String fullName) {
        used.add(fullName);
    }

    void missing(String fullName, Shape expected) {
        missing.add(fullName + (expected == null ? "" : " " + expected));
    }

    void misShaped(String fullName, Shape actual, Shape expected) {
        misShaped.add(fullName + ": shape " + actual + " in the state dict, the module needs " + expected);
    }

    /**
     * Builds a module strictly. A build nested in another strict build joins the outer one, so the outermost module
     * reports for the whole tree.
     *
     * @param params the whole state dict given to the module
     * @param module the module's name for the message
     * @param build makes the module from a tracked view of {@code params}
     * @param <T> the module type
     * @return the module
     * @throws StateDictException listing every problem, if any
     */
    static <T> T load(StateDict params, String module, Function<StateDict, T> build) {
        if (params.tracker() != null) {
            return build.apply(params);
        }
        LoadTracker tracker = new LoadTracker(module, params);
        T result = build.apply(params.tracked(tracker));
        Report report = tracker.report();
        if (!report.isEmpty()) {
            throw new StateDictException(module, report);
        }
        return result;
    }

    /**
     * @return an exception listing what was recorded so far, for a missing name whose shape the module cannot guess
     *     and so cannot go on without
     */
    StateDictException failNow() {
        return new StateDictException(module, report());
    }

    private Report report() {
        StateDict params = root;
        List<String> unexpected = new ArrayList<>();
        List<String> nonFinite = new ArrayList<>();
        for (Map.Entry<String, HostTensor> e : params.asMap().entrySet()) {
            String name = params.path() + e.getKey();
            if (!used.contains(name)) {
                unexpected.add(name);
            } else if (!params.nonFiniteAllowed()) {
                int at = e.getValue().indexOfNonFinite();
                if (at >= 0) {
                    nonFinite.add(name + "[" + at + "] = " + e.getValue().get(at));
                }
            }
        }
        return new Report(missing, unexpected, misShaped, Collections.unmodifiableList(nonFinite));
    }
}
