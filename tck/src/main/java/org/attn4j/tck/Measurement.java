package org.attn4j.tck;

/**
 * What running one case found: the largest errors, and whether it failed, could not run here, or passed with
 * something worth noting.
 *
 * @param maxAbsError the largest absolute error over finite expected values
 * @param maxRelError the largest relative error where it is meaningful
 * @param errorToScale the largest absolute error of an output divided by that output's scale (its largest finite
 *     {@code |expected|}), so that a case of values near 1e23 and one of values near 1 read alike
 * @param toleranceUsed the largest {@code |actual − expected| / (abs + rel·|expected|)}: 1 is the edge of the
 *     tolerance
 * @param failure null when everything was within tolerance, else a message naming op, case, index, expected,
 *     actual, abs and rel error
 * @param skipped null when the case ran, else why it could not run here (a resource missing from the class path)
 * @param note null, or something a passing case found worth telling the backend's author
 */
record Measurement(double maxAbsError, double maxRelError, double errorToScale, double toleranceUsed,
                   String failure, String skipped, String note) {

    static final Measurement EXACT = new Measurement(0, 0, 0, 0, null, null, null);

    static Measurement failed(String message) {
        return new Measurement(0, 0, 0, 0, message, null, null);
    }

    static Measurement skipped(String reason) {
        return new Measurement(0, 0, 0, 0, null, reason, null);
    }

    static Measurement noted(String note) {
        return new Measurement(0, 0, 0, 0, null, null, note);
    }

    Measurement and(Measurement other) {
        return new Measurement(Math.max(maxAbsError, other.maxAbsError), Math.max(maxRelError, other.maxRelError),
                Math.max(errorToScale, other.errorToScale), Math.max(toleranceUsed, other.toleranceUsed),
                failure != null ? failure : other.failure, skipped != null ? skipped : other.skipped,
                note != null ? note : other.note);
    }
}
