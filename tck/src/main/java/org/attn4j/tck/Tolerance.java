package org.attn4j.tck;

/**
 * How far an actual value may be from the expected one: {@code |actual − expected| ≤ abs + rel·|expected|}, the
 * rule of {@code torch.allclose}. NaN matches only NaN, an infinity only the same infinity.
 *
 * @param abs the absolute slack, at least 0
 * @param rel the slack relative to the expected value, at least 0
 * @param reason why this much error is legitimate
 */
public record Tolerance(double abs, double rel, String reason) {

    /** Rejects negative slack and a missing reason. */
    public Tolerance {
        if (!(abs >= 0) || !(rel >= 0)) {
            throw new IllegalArgumentException("Tolerance: arguments abs " + abs + " and rel " + rel
                    + " must be at least 0");
        }
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("Tolerance: argument reason is empty; say why this error is legitimate");
        }
    }

    /**
     * @param expected the reference value
     * @param actual the value under test
     * @return whether {@code actual} is close enough
     */
    public boolean accepts(double expected, double actual) {
        if (Double.isNaN(expected) || Double.isInfinite(expected)) {
            return Double.compare(expected, actual) == 0;
        }
        return Math.abs(actual - expected) <= abs + rel * Math.abs(expected);
    }

    /**
     * @param expected the reference value
     * @param actual the value under test
     * @return how much of the tolerance the error uses: {@code |actual − expected| / (abs + rel·|expected|)}, 0 for
     *     an exact match (also of NaN or an infinity), infinite for a mismatch the tolerance allows nothing for
     */
    public double used(double expected, double actual) {
        if (Double.isNaN(expected) || Double.isInfinite(expected)) {
            return Double.compare(expected, actual) == 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        double error = Double.isNaN(actual) ? Double.POSITIVE_INFINITY : Math.abs(actual - expected);
        if (error == 0) {
            return 0;
        }
        double slack = abs + rel * Math.abs(expected);
        return slack > 0 ? error / slack : Double.POSITIVE_INFINITY;
    }

    /**
     * @param factor how many times looser
     * @param why what the factor accounts for
     * @return this tolerance scaled by {@code factor}, its reason extended by {@code why}
     */
    public Tolerance times(double factor, String why) {
        return new Tolerance(abs * factor, rel * factor, reason + "; ×" + factor + " because " + why);
    }

    /** @return {@code |a−e| ≤ abs + rel·|e|} with the numbers filled in */
    public String rule() {
        return "|actual − expected| ≤ " + abs + " + " + rel + "·|expected|";
    }
}
