package org.attn4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class AttentionOptionsTest {

    @Test
    void defaultsAreUnmaskedUnscaledByChoiceAndWithoutDropout() {
        AttentionOptions o = AttentionOptions.defaults();
        assertFalse(o.causal());
        assertNull(o.mask());
        assertNull(o.additiveMask());
        assertEquals(0.0, o.dropoutP());
        assertFalse(o.returnWeights());
        assertEquals(0.125, o.scaleFor(64), 0.0);
    }

    @Test
    void explicitScaleOfOneIsKept() {
        assertEquals(1.0, AttentionOptions.defaults().withScale(1.0).scaleFor(64), 0.0);
    }

    @Test
    void withersChangeOnlyTheirField() {
        Mask mask = Mask.causal(2, 2);
        AttentionOptions o = AttentionOptions.defaults().withCausal(true).withMask(mask).withDropout(0.25, 7)
                .withWeights(true);
        assertTrue(o.causal());
        assertEquals(mask, o.mask());
        assertEquals(0.25, o.dropoutP());
        assertEquals(7, o.dropoutSeed());
        assertTrue(o.returnWeights());
        assertFalse(AttentionOptions.defaults().causal());
    }

    @Test
    void eachWitherChangesItsOwnOptionAndKeepsEveryOther() {
        AttentionOptions full = AttentionOptions.defaults().withCausal(true).withMask(Mask.causal(2, 2))
                .withScale(0.5).withDropout(0.25, 7).withWeights(true)
                .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT).withWindow(3).withKeyLength(5)
                .withLogitSoftcap(30.0);
        Map<String, UnaryOperator<AttentionOptions>> withers = new LinkedHashMap<>();
        withers.put("causal", o -> o.withCausal(false));
        withers.put("mask", o -> o.withMask(null));
        withers.put("scale", o -> o.withScale(2.0));
        withers.put("dropout", o -> o.withDropout(0.5, 8));
        withers.put("weights", o -> o.withWeights(false));
        withers.put("causalAlignment", o -> o.withCausalAlignment(CausalAlignment.TOP_LEFT));
        withers.put("window", o -> o.withWindow(4));
        withers.put("keyLength", o -> o.withKeyLength(6));
        withers.put("logitSoftcap", o -> o.withLogitSoftcap(40.0));
        Map<String, Object> before = values(full);
        withers.forEach((name, wither) -> {
            Map<String, Object> after = values(wither.apply(full));
            for (String option : before.keySet()) {
                boolean own = option.equals(name) || name.equals("dropout") && option.startsWith("dropout");
                assertEquals(!own, Objects.equals(before.get(option), after.get(option)),
                        () -> "with " + name + ": option " + option + " was " + before.get(option) + ", is "
                                + after.get(option));
            }
        });
        assertEquals(before, values(full.withCausal(full.causal())), "a wither that sets the same value");
    }

    private static Map<String, Object> values(AttentionOptions o) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("causal", o.causal());
        v.put("mask", o.mask());
        v.put("scale", o.scale());
        v.put("dropoutP", o.dropoutP());
        v.put("dropoutSeed", o.dropoutSeed());
        v.put("weights", o.returnWeights());
        v.put("causalAlignment", o.causalAlignment());
        v.put("window", o.window());
        v.put("keyLength", o.keyLength());
        v.put("logitSoftcap", o.logitSoftcap());
        return v;
    }

    @Test
    void equalOptionsAreEqualValues() {
        Mask mask = Mask.causal(3, 3);
        AttentionOptions a = AttentionOptions.defaults().withMask(mask).withScale(0.5).withDropout(0.1, 3);
        AttentionOptions b = AttentionOptions.defaults().withDropout(0.1, 3).withScale(0.5).withMask(mask);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertFalse(a.equals(b.withCausal(true)));
        assertEquals(AttentionOptions.defaults(), AttentionOptions.defaults().withCausal(true).withCausal(false));
    }

    @Test
    void logitSoftcapIsAValueOfItsOwnAndMustBeFiniteAndNotNegative() {
        AttentionOptions capped = AttentionOptions.defaults().withCausal(true).withLogitSoftcap(50.0);
        assertEquals(50.0, capped.logitSoftcap());
        assertEquals(0.0, AttentionOptions.defaults().logitSoftcap());
        assertTrue(capped.causal());
        assertFalse(capped.equals(capped.withLogitSoftcap(30.0)));
        assertEquals(capped, AttentionOptions.defaults().withLogitSoftcap(50.0).withCausal(true));
        assertEquals(AttentionOptions.defaults(), capped.withLogitSoftcap(0).withCausal(false));
        assertTrue(capped.toString().contains("logitSoftcap=50.0"), capped.toString());
        for (double bad : new double[] {-1.0, Double.NaN, Double.POSITIVE_INFINITY}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> AttentionOptions.defaults().withLogitSoftcap(bad));
            assertTrue(e.getMessage().contains("logitSoftcap is " + bad), e.getMessage());
        }
    }

    @Test
    void dropoutOutsideZeroToOneIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AttentionOptions.defaults().withDropout(1.5, 1));
        assertTrue(e.getMessage().contains("dropoutP is 1.5"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> AttentionOptions.defaults().withDropout(Double.NaN, 1));
    }

    @Test
    void nonFiniteScaleIsRejected() {
        assertThrows(IllegalArgumentException.class,
                () -> AttentionOptions.defaults().withScale(Double.POSITIVE_INFINITY));
    }
}
