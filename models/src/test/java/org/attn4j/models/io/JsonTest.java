package org.attn4j.models.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void parsesEveryValueKind() {
        Object v = Json.parse(" {\"a\": [1, -2.5e1, true, false, null, \"x\\u00e9\\n\"], \"b\": {}} ");
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
        assertEquals(-9223372036854775807L, Json.parse("-9223372036854775807"));
        assertEquals(1e20, Json.parse("100000000000000000000"));
    }

    @Test
    void rejectsSyntaxErrorsWithTheirOffset() {
        assertEquals("JSON: unexpected data after the JSON value at offset 2",
                assertThrows(IllegalArgumentException.class, () -> Json.parse("1 2")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1,]"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("01"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\" 1}"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("\"\t\""));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("NaN"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse(""));
    }

    @Test
    void quoteRoundTripsThroughParse() {
        String s = "a\"b\\c\n\u0001é";
        assertEquals(s, Json.parse(Json.quote(s)));
    }
}
