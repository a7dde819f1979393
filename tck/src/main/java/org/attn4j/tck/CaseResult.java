package org.attn4j.tck;

import org.attn4j.api.DType;

/**
 * The outcome of one conformance case on one backend.
 *
 * @param backend the backend's name
 * @param kind golden, differential, law, bad input, wiring or model
 * @param op the op as the report groups it, for example {@code "attention"} or {@code "attention.weights"}
 * @param testName the full name, {@code required_…} or {@code optional_…}, with the variant in brackets
 * @param dtype the element type the case ran in
 * @param variant what was compared with what: the dtype for golden, law and bad-input cases; for differential
 *     ones the pair, for example {@code F32~F64}, {@code F32 fused~reference} or {@code F32 ejml~nd4j}
 * @param status passed, skipped or failed
 * @param maxAbsError the largest {@code |actual − expected|} over finite expected values; 0 if nothing was compared
 * @param maxRelError the largest {@code |actual − expected| / |expected|} over expected values larger in magnitude
 *     than the tolerance's absolute slack (below that, relative error says nothing); 0 if none
 * @param errorToScale the largest absolute error of an output divided by the largest finite {@code |expected|} of
 *     that output: the error relative to the case's scale; 0 if nothing was compared
 * @param toleranceUsed the largest {@code |actual − expected| / (abs + rel·|expected|)} of the case: below 1 passes
 * @param message why it failed or was skipped; for a passed case empty, or a note worth the author's attention
 * @param cause what the backend threw, when that failed the case; else null
 */
public record CaseResult(String backend, Kind kind, String op, String testName, DType dtype, String variant,
                         Status status, double maxAbsError, double maxRelError, double errorToScale,
                         double toleranceUsed, String message, Throwable cause) {

    /**
     * A result without the scaled errors (both 0).
     *
     * @param backend the backend's name
     * @param kind the kind of check
     * @param op the op
     * @param testName the full test name
     * @param dtype the element type
     * @param variant the dtype or the pair compared
     * @param status the outcome
     * @param maxAbsError the largest absolute error
     * @param maxRelError the largest meaningful relative error
     * @param message why it failed or was skipped; empty or a note when passed
     * @param cause what the backend threw, or null
     */
    public CaseResult(String backend, Kind kind, String op, String testName, DType dtype, String variant,
                      Status status, double maxAbsError, double maxRelError, String message, Throwable cause) {
        this(backend, kind, op, testName, dtype, variant, status, maxAbsError, maxRelError, 0, 0, message, cause);
    }
}
