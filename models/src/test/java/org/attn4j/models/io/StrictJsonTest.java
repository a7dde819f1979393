package org.attn4j.models.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StrictJsonTest {

    @Test
    void parsesEveryValueKind() {
        Object v = StrictJson.parse(" {\"a\": [1, -2.5e1, true, false, null, \"x\\u00e9\\n\"], \"b\": {}} ");
        Map<?, ?> m = (Map<?, ?>) v;
        List<?> a = (List<?>) m.get("a");
        assertEquals(1L, a.get(0));
        assertEquals(-25.0, a.get(1));
        assertEquals(Boolean.TRUE, a.get(2));
        assertEquals(Boolean.FALSE, a.get(3));
        assertNull(a.get(4));
        assertEquals("xé\n", a.get(5));
        assertEquals(Map.of(), m.get("b"));
    }

    @Test
    void integersBeyondLongBecomeDoubles() {
        assertEquals(-9223372036854775807L, StrictJson.parse("-9223372036854775807"));
        assertEquals(1e20, StrictJson.parse("100000000000000000000"));
    }

    @Test
    void rejectsSyntaxErrorsWithTheirOffset() {
        assertEquals("JSON: unexpected data after the JSON value at offset 2",
                assertThrows(IllegalArgumentException.class, () -> StrictJson.parse("1 2")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> StrictJson.parse("[1,]"));
        assertThrows(IllegalArgumentException.class, () -> StrictJson.parse("01"));
        assertThrows(IllegalArgumentException.class, () -> StrictJson.parse("{\"a\" 1}"));
        assertThrows(IllegalArgumentException.class, () -> StrictJson.parse("\"\t\""));
        assertThrows(IllegalArgumentException.class, () -> StrictJson.parse("NaN"));
        assertThrows(IllegalArgumentException.class, () -> StrictJson.parse(""));
    }

    @Test
    void quoteRoundTripsThroughParse() {
        String s = "a\"b\\c\n\u0001é";
        assertEquals(s, StrictJson.parse(StrictJson.quote(s)));
    }

    @Test
    void unicodeEscapesNeedFourHexDigits() {
        for (String bad : List.of("\"\\u-001\"", "\"\\u+041\"", "\"\\u 041\"", "\"\\u04\"", "\"\\u004g\"")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StrictJson.parse(bad),
                    bad);
            assertTrue(e.getMessage().startsWith("JSON: ") && e.getMessage().contains("offset"), e.getMessage());
        }
        assertEquals("A\uFFFF", StrictJson.parse("\"\\u0041\\uffff\""));
    }

    @Test
    void loneSurrogatesAreRejectedAndPairsKept() {
        for (String bad : List.of("\"\\ud800\"", "\"\\udc00\"", "\"a\\ud800b\"", "\"\\udc00\\ud800\"",
                "{\"\\ud800\": 1}")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StrictJson.parse(bad),
                    bad);
            assertTrue(e.getMessage().contains("unpaired surrogate"), e.getMessage());
        }
        assertEquals("\uD83D\uDE00", StrictJson.parse("\"\\ud83d\\ude00\""));
    }

    @Test
    void duplicateNamesAndDeepNestingAreRejected() {
        String m = assertThrows(IllegalArgumentException.class, () -> StrictJson.parse("{\"a\": 1, \"a\": 2}"))
                .getMessage();
        assertEquals("JSON: duplicate key \"a\" at offset 9", m);
        String deep = "[".repeat(StrictJson.MAX_DEPTH) + "]".repeat(StrictJson.MAX_DEPTH);
        assertTrue(StrictJson.parse(deep) instanceof List<?>);
        assertThrows(IllegalArgumentException.class, () -> StrictJson.parse("[" + deep + "]"));
    }
}
