package org.attn4j.tck;

import org.attn4j.api.DType;

/**
 * The outcome of one conformance case on one backend.
 *
 * @param backend the backend's name
 * @param kind golden, differential, law or bad input
 * @param op the op as the report groups it, for example {@code "attention"} or {@code "attention.weights"}
 * @param testName the full name, {@code required_…} or {@code optional_…}, with the variant in brackets
 * @param dtype the element type the case ran in
 * @param variant what was compared with what: the dtype for golden, law and bad-input cases; for differential
 *     ones the pair, for example {@code F32~F64}, {@code F32 fused~reference} or {@code F32 ejml~nd4j}
 * @param status passed, skipped or failed
 * @param maxAbsError the largest {@code |actual − expected|} over finite expected values; 0 if nothing was compared
 * @param maxRelError the largest {@code |actual − expected| / |expected|} over expected values larger in magnitude
 *     than the tolerance's absolute slack (below that, relative error says nothing); 0 if none
 * @param message why it failed or was skipped; empty when passed
 * @param cause what the backend threw, when that failed the case; else null
 */
public record CaseResult(String backend, Kind kind, String op, String testName, DType dtype, String variant,
                         Status status,
                         double maxAbsError, double maxRelError, String message,
                         Throwable cause) {
}
