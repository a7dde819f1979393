package org.attn4j.bench;

/** Rates from operation counts and times. */
public final class Flops {

    private Flops() {
    }

    /**
     * @param flops floating-point operations of one call
     * @param seconds the time of one call, above 0
     * @return {@code flops / seconds / 1e9}
     */
    public static double gflops(double flops, double seconds) {
        if (!(seconds > 0)) {
            throw new IllegalArgumentException("gflops: argument seconds is " + seconds + "; it must be above 0");
        }
        return flops / seconds / 1e9;
    }
}
