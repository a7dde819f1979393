package org.attn4j.api.spi;

/**
 * The dropout mask every backend draws, so that the same seed drops the same elements everywhere. Element
 * {@code i} (flat row-major, 0-based) gets the uniform number
 * <pre>
 *   z = seed + (i + 1) · 0x9E3779B97F4A7C15        (arithmetic mod 2^64)
 *   z = (z ^ (z &gt;&gt;&gt; 30)) · 0xBF58476D1CE4E5B9
 *   z = (z ^ (z &gt;&gt;&gt; 27)) · 0x94D049BB133111EB
 *   z =  z ^ (z &gt;&gt;&gt; 31)
 *   u = (z &gt;&gt;&gt; 11) · 2^-53                           in [0, 1)
 * </pre>
 * (the SplitMix64 finaliser) and is kept iff {@code u >= p}. Kept elements are scaled by {@code 1/(1-p)}.
 */
public final class Dropout {

    private Dropout() {
    }

    /**
     * @param seed the mask's seed
     * @param index the flat row-major element index
     * @return the element's uniform number in {@code [0, 1)}
     */
    public static double uniform(long seed, long index) {
        long z = seed + (index + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (z >>> 11) * 0x1.0p-53;
    }

    /**
     * @param seed the mask's seed
     * @param index the flat row-major element index
     * @param p the drop probability in {@code [0, 1]}
     * @return whether the element survives
     */
    public static boolean keep(long seed, long index, double p) {
        return uniform(seed, index) >= p;
    }

    /**
     * @param p the drop probability in {@code [0, 1]}
     * @return the factor applied to survivors: {@code 1/(1-p)}, or 0 when {@code p = 1}
     */
    public static double survivorScale(double p) {
        return p >= 1.0 ? 0.0 : 1.0 / (1.0 - p);
    }

    /**
     * @param op the op name for the message
     * @param p the drop probability
     * @throws IllegalArgumentException unless {@code p} lies in {@code [0, 1]}
     */
    public static void checkProbability(String op, double p) {
        if (!(p >= 0.0 && p <= 1.0)) {
            throw new IllegalArgumentException(op + ": argument p is " + p + "; it must lie in [0, 1]");
        }
    }
}
