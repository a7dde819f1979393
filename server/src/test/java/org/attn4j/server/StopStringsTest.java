package org.attn4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The law of stop strings: however the text is cut into pieces, what is passed on is the text before the stop string
 * completed first.
 */
class StopStringsTest {

    private static String expected(String text, List<String> stops) {
        int first = text.length();
        int firstEnd = Integer.MAX_VALUE;
        for (String s : stops) {
            int at = text.indexOf(s);
            if (at >= 0 && (at + s.length() < firstEnd || (at + s.length() == firstEnd && at < first))) {
                first = at;
                firstEnd = at + s.length();
            }
        }
        return text.substring(0, first);
    }

    @Test
    void whatPassesIsTheTextBeforeTheFirstStopStringForEveryCut() {
        SplittableRandom random = new SplittableRandom(11);
        String alphabet = "ab\n\u00e9\u4e2d";
        for (int trial = 0; trial < 20_000; trial++) {
            StringBuilder text = new StringBuilder();
            int length = random.nextInt(30);
            for (int i = 0; i < length; i++) {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            List<String> stops = new ArrayList<>();
            int count = random.nextInt(4);
            for (int s = 0; s < count; s++) {
                StringBuilder stop = new StringBuilder();
                int n = 1 + random.nextInt(3);
                for (int i = 0; i < n; i++) {
                    stop.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
                stops.add(stop.toString());
            }
            StopStrings filter = new StopStrings(stops);
            StringBuilder passed = new StringBuilder();
            int at = 0;
            while (at < text.length()) {
                int piece = Math.min(text.length() - at, random.nextInt(5));
                passed.append(filter.next(text.substring(at, at + piece)));
                at += piece;
            }
            passed.append(filter.finish());
            String want = expected(text.toString(), stops);
            assertEquals(want, passed.toString(), "text " + text + " stops " + stops);
            assertEquals(want, filter.text());
            assertEquals(want.length() < text.length(), filter.stopped(), "text " + text + " stops " + stops);
        }
    }

    @Test
    void textIsHeldOnlyWhileItCouldStillBecomeAStopString() {
        StopStrings filter = new StopStrings(List.of("END"));
        assertEquals("Hello ", filter.next("Hello E"));
        assertEquals("", filter.next("N"));
        assertEquals("ENx", filter.next("x"));
        assertEquals("", filter.next("END and more"));
        assertEquals("", filter.finish());
        assertEquals("Hello ENx", filter.text());
    }
}
