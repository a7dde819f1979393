package org.attn4j.models.tokenize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * JSON numbers read as Hugging Face's tokenizers reads them: the values its reader gives (worked out by its
 * algorithm in float64 arithmetic for these literals), at most one ulp from the correctly rounded ones.
 */
class HuggingFaceFloatTest {

    @Test
    void scoresThatTheReaderRoundsOneUlpOffKeepThatUlp() {
        assertBits(0x401d6a1ac0000001L, "7.3536176681518555");
        assertBits(0xc01d6a1ac0000001L, "-7.3536176681518555");
        assertBits(0x401e556400000001L, "7.5833892822265625");
    }

    @Test
    void integersLongSignificandsAndExtremeExponentsFollowTheReader() {
        assertBits(0x45f8ee90ff6c373eL, "123456789012345678901234567890.5");
        assertBits(0x4271f71fb04cb74fL, "12345678901234567890123e-10");
        assertBits(0x3eb0c6f7a0b5ed8dL, "0.000001");
        assertBits(0x7fefffffffffffffL, "1.7976931348623157e308");
        assertBits(0x1L, "4.9e-324");
        assertEquals(0.0, HuggingFaceFloat.of(new BigDecimal("1e-400")));
        assertEquals(-5.0, HuggingFaceFloat.of(new BigDecimal("-5")));
        assertThrows(IllegalArgumentException.class, () -> HuggingFaceFloat.of(new BigDecimal("1e400")));
    }

    @Test
    void everyValueIsWithinOneUlpOfTheCorrectlyRoundedOne() {
        Random random = new Random(42);
        for (int i = 0; i < 100_000; i++) {
            double x = -random.nextDouble() * Math.pow(10, random.nextInt(8) - 4);
            String text = Double.toString(x);
            double read = HuggingFaceFloat.of(new BigDecimal(text));
            assertTrue(Math.abs(read - x) <= Math.ulp(x), i + ": " + text + " read as " + read + ", expected within"
                    + " one ulp (" + Math.ulp(x) + ") of " + x + "; abs error " + Math.abs(read - x) + ", rel error "
                    + Math.abs(read - x) / Math.abs(x));
        }
    }

    private static void assertBits(long expected, String literal) {
        double got = HuggingFaceFloat.of(new BigDecimal(literal));
        assertEquals(Long.toHexString(expected), Long.toHexString(Double.doubleToRawLongBits(got)),
                literal + " read as " + got);
    }
}
