package org.attn4j.bench.run;

import java.util.SplittableRandom;

/** Seeded random inputs, the same for every implementation. */
final class BenchData {

    private BenchData() {
    }

    /**
     * @param n how many values
     * @param seed the seed
     * @return {@code n} floats uniform in {@code [-1, 1)}
     */
    static float[] uniform(long n, long seed) {
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("BenchData.uniform: " + n + " values do not fit in one array");
        }
        SplittableRandom random = new SplittableRandom(seed);
        float[] data = new float[(int) n];
        for (int i = 0; i < data.length; i++) {
            data[i] = (float) (2 * random.nextDouble() - 1);
        }
        return data;
    }

    /** @return the number of threads every implementation is given: all the processors the JVM sees */
    static int threads() {
        return Runtime.getRuntime().availableProcessors();
    }
}
