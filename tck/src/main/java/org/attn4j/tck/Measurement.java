package org.attn4j.tck;

/**
 * What comparing one case's outputs found: the largest errors, and the first failure if any.
 *
 * @param maxAbsError the largest absolute error over finite expected values
 * @param maxRelError the largest relative error where it is meaningful
 * @param failure null when everything was within tolerance, else a message naming op, case, index, expected,
 *     actual, abs and rel error
 */
record Measurement(double maxAbsError, double maxRelError, String failure) {

    static final Measurement EXACT = new Measurement(0, 0, null);

    static Measurement failed(String message) {
        return new Measurement(0, 0, message);
    }

    Measurement and(Measurement other) {
        return new Measurement(Math.max(maxAbsError, other.maxAbsError), Math.max(maxRelError, other.maxRelError),
                failure != null ? failure : other.failure);
    }
}
