package org.attn4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DropoutTest {
    private static final BigInteger MOD = BigInteger.ONE.shiftLeft(64);

    /** The documented formula in unbounded integers, reduced mod 2^64 at every step. */
    private static double oracle(long seed, long index) {
        BigInteger z = BigInteger.valueOf(seed).add(BigInteger.valueOf(index + 1)
                .multiply(new BigInteger("9E3779B97F4A7C15", 16))).mod(MOD);
        z = z.xor(z.shiftRight(30)).multiply(new BigInteger("BF58476D1CE4E5B9", 16)).mod(MOD);
        z = z.xor(z.shiftRight(27)).multiply(new BigInteger("94D049BB133111EB", 16)).mod(MOD);
        z = z.xor(z.shiftRight(31));
        return z.shiftRight(11).doubleValue() / Math.pow(2, 53);
    }

    @Test
    void uniformMatchesTheDocumentedFormulaForSignedAndLargeSeeds() {
        SplittableRandom random = new SplittableRandom(11);
        long[] seeds = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, (1L << 53) - 1, random.nextLong()};
        for (long seed : seeds) {
            for (long index = 0; index < 200; index++) {
                assertEquals(oracle(seed, index), Dropout.uniform(seed, index), 0.0,
                        "seed " + seed + " index " + index);
            }
        }
    }

    @Test
    void uniformLiesInTheHalfOpenUnitInterval() {
        for (long i = 0; i < 100_000; i++) {
            double u = Dropout.uniform(42, i);
            assertTrue(u >= 0.0 && u < 1.0, "index " + i + " gave " + u);
        }
    }

    @Test
    void keptFractionIsCloseToOneMinusP() {
        int n = 200_000;
        int kept = 0;
        for (long i = 0; i < n; i++) {
            if (Dropout.keep(7, i, 0.3)) {
                kept++;
            }
        }
        double fraction = kept / (double) n;
        assertEquals(0.7, fraction, 0.005, "kept fraction");
    }

    @Test
    void probabilityZeroKeepsEverythingAndOneDropsEverything() {
        for (long i = 0; i < 1000; i++) {
            assertTrue(Dropout.keep(3, i, 0.0));
            assertFalse(Dropout.keep(3, i, 1.0));
        }
        assertEquals(0.0, Dropout.survivorScale(1.0));
        assertEquals(2.0, Dropout.survivorScale(0.5));
    }

    @Test
    void probabilityOutsideTheUnitIntervalIsRejectedNamingTheOp() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Dropout.checkProbability("dropout", -0.1));
        assertTrue(e.getMessage().startsWith("dropout: argument p is -0.1"), e.getMessage());
    }
}
