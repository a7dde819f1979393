package org.attn4j.tck;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Supplier;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;

/**
 * One planned conformance check: what it needs, how it is named, and how it runs on a backend.
 *
 * @param id the case, for example {@code attn_causal_square} or {@code law_causal_prefix_invariance}
 * @param kind golden, differential, law, bad input, wiring or model
 * @param op the op as the report groups it
 * @param dtype the element type it runs in
 * @param variant what the brackets of the test name show, for example {@code F32} or {@code F32 ejml~nd4j}
 * @param features what it needs from the backend, in {@link Feature} order; any optional one makes the whole case
 *     optional, and the first one the backend lacks is the reason it is skipped
 * @param body the check
 * @param detail the operands' shapes and the op's flags spelled out, for a failure message; empty where the id
 *     says it all
 */
record TckCase(String id, Kind kind, String op, DType dtype, String variant, Set<Feature> features, Body body,
               Supplier<String> detail) {

    /** The check itself. */
    interface Body {
        /**
         * @param backend the backend under test, available and having every feature the case needs
         * @return the errors measured and, if the check failed, why
         */
        Measurement run(Backend backend);
    }

    TckCase {
        EnumSet<Feature> all = EnumSet.of(Feature.of(dtype));
        all.addAll(features);
        features = Collections.unmodifiableSet(all);
    }

    TckCase(String id, Kind kind, String op, DType dtype, String variant, Set<Feature> features, Body body) {
        this(id, kind, op, dtype, variant, features, body, () -> "");
    }

    /** @return {@code required_<id>[<variant>]} or {@code optional_<id>[<variant>]} */
    String testName() {
        boolean required = features.stream().allMatch(Feature::required);
        return (required ? "required_" : "optional_") + id + "[" + variant + "]";
    }
}
