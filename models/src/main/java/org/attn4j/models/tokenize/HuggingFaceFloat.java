package org.attn4j.models.tokenize;

import java.math.BigDecimal;

/**
 * The {@code double} that Hugging Face's tokenizers reads for a JSON number. Its JSON reader (serde_json without
 * its {@code float_roundtrip} feature) does not round correctly: it gathers the decimal digits into an unsigned
 * 64-bit significand {@code s} (digits past its range are dropped, each dropped integer digit raising the exponent)
 * and returns {@code (double) s * 10^e} or {@code (double) s / 10^-e}, two roundings, so that a Unigram score can be
 * one ulp away from Java's {@link Double#parseDouble}. Scores read that way are what Hugging Face's Viterbi compares,
 * and where two segmentations of a word tie in exact arithmetic that ulp decides which one it returns.
 */
final class HuggingFaceFloat {
    private static final double[] POW10 = new double[309];

    static {
        for (int i = 0; i < POW10.length; i++) {
            POW10[i] = Double.parseDouble("1e" + i);
        }
    }

    private HuggingFaceFloat() {
    }

    /**
     * @param number a JSON number exactly as written (its digits and scale, as {@link BigDecimal#BigDecimal(String)}
     *     keeps them)
     * @return the value Hugging Face's reader gives it
     */
    static double of(BigDecimal number) {
        String digits = number.unscaledValue().abs().toString();
        long significand = 0;
        int used = 0;
        while (used < digits.length()) {
            int digit = digits.charAt(used) - '0';
            if (Long.compareUnsigned(significand, Long.divideUnsigned(-1L - digit, 10)) > 0) {
                break;
            }
            significand = significand * 10 + digit;
            used++;
        }
        long exponent = (long) digits.length() - used - number.scale();
        double f = significand >= 0 ? (double) significand
                : (double) ((significand >>> 1) | (significand & 1)) * 2.0;
        while (true) {
            if (Math.abs(exponent) < POW10.length) {
                f = exponent >= 0 ? f * POW10[(int) exponent] : f / POW10[(int) -exponent];
                break;
            }
            if (f == 0.0) {
                break;
            }
            if (exponent >= 0) {
                throw new IllegalArgumentException("number " + number + " is out of the range of a double");
            }
            f /= 1e308;
            exponent += 308;
        }
        return number.signum() < 0 ? -f : f;
    }
}
