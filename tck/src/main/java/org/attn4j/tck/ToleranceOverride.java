package org.attn4j.tck;

import java.util.regex.Pattern;
import org.attn4j.api.DType;

/**
 * A looser (or tighter) tolerance a backend declares for one op, instead of the kit's default. Every override in
 * force is printed in the report, so a backend cannot quietly claim conformance with bigger errors. Declare one in
 * {@link BackendTck#toleranceOverrides()} (or {@link TckOptions#withToleranceOverride}):
 * <pre>{@code
 * @Override
 * protected List<ToleranceOverride> toleranceOverrides() {
 *     return List.of(new ToleranceOverride("gelu", DType.F64, ".*", 1e-9, 1e-9, "our erf is a rational approximation"));
 * }
 * }</pre>
 *
 * @param op the op as the report names it, for example {@code "softmax"} or {@code "attention"}
 * @param dtype the element type it applies to
 * @param casePattern a regular expression the whole case name must match, {@code ".*"} for every case
 * @param abs the absolute slack
 * @param rel the relative slack
 * @param reason why the backend needs it
 */
public record ToleranceOverride(String op, DType dtype, String casePattern, double abs, double rel, String reason) {

    /** Validates the pattern and the tolerance. */
    public ToleranceOverride {
        Pattern.compile(casePattern);
        new Tolerance(abs, rel, reason);
    }

    /** @return the tolerance this override sets */
    public Tolerance tolerance() {
        return new Tolerance(abs, rel, "override declared by the backend: " + reason);
    }

    boolean matches(String caseOp, String caseName, DType caseDType) {
        return op.equals(caseOp) && dtype == caseDType && caseName.matches(casePattern);
    }
}
