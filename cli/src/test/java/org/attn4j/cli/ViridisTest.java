package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ViridisTest {

    @Test
    void endsAreDarkPurpleAndYellowAndOutOfRangeValuesClamp() {
        assertEquals(0x440154, Viridis.rgb(0.0));
        assertEquals(0xFDE725, Viridis.rgb(1.0));
        assertEquals(0x440154, Viridis.rgb(-3.0));
        assertEquals(0xFDE725, Viridis.rgb(7.0));
        assertEquals(Viridis.NAN_RGB, Viridis.rgb(Double.NaN));
    }

    @Test
    void halfwayBetweenTwoAnchorsIsTheirRoundedMean() {
        int mid = Viridis.rgb(0.5);
        int expected = (38 + 31 + 1) / 2 << 16 | (130 + 158) / 2 << 8 | (142 + 137 + 1) / 2;
        assertEquals(expected, mid, () -> "expected " + Integer.toHexString(expected) + ", actual "
                + Integer.toHexString(mid));
    }

    @Test
    void brightnessGrowsMonotonicallySoTheScaleReadsInGrey() {
        double previous = -1;
        for (int k = 0; k <= 100; k++) {
            int c = Viridis.rgb(k / 100.0);
            double luminance = 0.2126 * (c >> 16 & 0xFF) + 0.7152 * (c >> 8 & 0xFF) + 0.0722 * (c & 0xFF);
            assertTrue(luminance > previous, "luminance at t=" + k / 100.0 + " is " + luminance
                    + ", not above " + previous);
            previous = luminance;
        }
    }

    @Test
    void textColourFollowsTheBackground() {
        assertFalse(Viridis.isLight(Viridis.rgb(0.0)));
        assertTrue(Viridis.isLight(Viridis.rgb(1.0)));
    }
}
