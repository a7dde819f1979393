package org.attn4j.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/** Number formats shared by the Markdown report and the target details. */
final class Format {

    private Format() {
    }

    /**
     * @param x a finite value
     * @return {@code x} with three significant digits and no exponent, for example {@code 0.0123}, {@code 1.23},
     *     {@code 123}, {@code 12300}
     */
    static String significant(double x) {
        if (Double.isNaN(x)) {
            return "–";
        }
        if (x == 0) {
            return "0";
        }
        int magnitude = (int) Math.floor(Math.log10(Math.abs(x)));
        int decimals = Math.max(0, 2 - magnitude);
        double rounded = new BigDecimal(x).round(new MathContext(3)).doubleValue();
        return String.format(Locale.ROOT, "%." + decimals + "f", rounded);
    }

    /**
     * @param seconds a time
     * @return the time in µs, ms or s, whichever keeps the number between 1 and 1000
     */
    static String duration(double seconds) {
        if (seconds < 1e-3) {
            return significant(seconds * 1e6) + " µs";
        }
        if (seconds < 1) {
            return significant(seconds * 1e3) + " ms";
        }
        return significant(seconds) + " s";
    }

    /**
     * @param m a finished measurement
     * @return for example {@code "108 GFLOP/s"}
     */
    static String gflops(Measurement m) {
        return significant(m.gflops()) + " GFLOP/s";
    }

    /**
     * @param ratio a ratio, or NaN
     * @return for example {@code "1.23×"}, or {@code "–"}
     */
    static String ratio(double ratio) {
        return Double.isNaN(ratio) ? "–" : String.format(Locale.ROOT, "%.2f×", ratio);
    }
}
