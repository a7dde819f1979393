package org.attn4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;
import org.junit.jupiter.api.Test;

class VisibleKeysTest {
    private static final AttentionOptions CAUSAL = AttentionOptions.defaults().withCausal(true);

    private static String rows(VisibleKeys visible, int queries, int keys) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < queries; i++) {
            for (int j = 0; j < keys; j++) {
                b.append(j >= visible.first(i) && j < visible.end(i) ? '1' : '.');
            }
            b.append('/');
        }
        return b.toString();
    }

    @Test
    void topLeftCausalSeesKeysUpToItsOwnIndex() {
        assertEquals("1..../11.../", rows(new VisibleKeys(CAUSAL, 2, 5), 2, 5));
    }

    @Test
    void bottomRightCausalPutsTheLastQueryOnTheLastKey() {
        AttentionOptions o = CAUSAL.withCausalAlignment(CausalAlignment.BOTTOM_RIGHT);
        assertEquals("1111./11111/", rows(new VisibleKeys(o, 2, 5), 2, 5));
        assertEquals("../1./11/", rows(new VisibleKeys(o, 3, 2), 3, 2));
    }

    @Test
    void aKeyLengthHidesTheCapacityAndMovesTheBottomRightDiagonal() {
        AttentionOptions o = CAUSAL.withCausalAlignment(CausalAlignment.BOTTOM_RIGHT).withKeyLength(3);
        assertEquals("111../", rows(new VisibleKeys(o, 1, 5), 1, 5));
        assertEquals("111../", rows(new VisibleKeys(AttentionOptions.defaults().withKeyLength(3), 1, 5), 1, 5));
    }

    @Test
    void aWindowKeepsTheMostRecentKeysItselfIncluded() {
        assertEquals("1...../11..../.11.../..11../...11./....11/",
                rows(new VisibleKeys(CAUSAL.withWindow(2), 6, 6), 6, 6));
    }

    @Test
    void theMaskIsNullWhenNothingIsHidden() {
        assertNull(new VisibleKeys(AttentionOptions.defaults(), 3, 4).mask(3, 4));
        Mask m = new VisibleKeys(CAUSAL, 2, 2).mask(2, 2);
        assertEquals(false, m.allowed(1));
    }

    @Test
    void simplifiedOptionsSeeTheSameKeys() {
        AttentionOptions step = CAUSAL.withCausalAlignment(CausalAlignment.BOTTOM_RIGHT).withKeyLength(7);
        ShapeChecks.AttentionShape decode = new ShapeChecks.AttentionShape(Shape.of(1, 2), 1, 7, 4, 4);
        AttentionOptions plain = VisibleKeys.simplified(step, decode);
        assertEquals(AttentionOptions.defaults(), plain);
        assertEquals(rows(new VisibleKeys(step, 1, 7), 1, 7), rows(new VisibleKeys(plain, 1, 7), 1, 7));
        ShapeChecks.AttentionShape square = new ShapeChecks.AttentionShape(Shape.of(1, 2), 5, 5, 4, 4);
        assertEquals(CAUSAL, VisibleKeys.simplified(CAUSAL.withCausalAlignment(CausalAlignment.BOTTOM_RIGHT), square));
        ShapeChecks.AttentionShape chunk = new ShapeChecks.AttentionShape(Shape.of(1, 2), 2, 7, 4, 4);
        assertEquals(step.withKeyLength(0), VisibleKeys.simplified(step, chunk));
    }
}
