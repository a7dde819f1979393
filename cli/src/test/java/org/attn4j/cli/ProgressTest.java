package org.attn4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aKnownSizeGivesABarAPercentageAndTheTimeLeft() {
        AtomicLong now = new AtomicLong(0);
        Progress p = new Progress(new PrintWriter(new StringWriter()), true, 1000, now::get);
        assertEquals("2,500 texts  1,250 texts/s  [######                  ]  25%  ETA 0:06",
                p.line(2500, 250, 2 * SECOND, false));
        assertEquals("10,000 texts  2,000 texts/s  [########################] 100%  in 0:05",
                p.line(10_000, 1000, 5 * SECOND, true));
        assertEquals("1,000 texts  1 texts/s  [####################    ]  83%  ETA 3:20",
                p.line(1000, 833, 1000 * SECOND, false));
    }

    @Test
    void anUnknownSizeGivesTheCountAndTheRate() {
        Progress p = new Progress(new PrintWriter(new StringWriter()), true, -1, () -> 0);
        assertEquals("12 texts  4 texts/s", p.line(12, 0, 3 * SECOND, false));
        assertEquals("12 texts  4 texts/s  in 0:03", p.line(12, 0, 3 * SECOND, true));
    }

    @Test
    void redrawsInPlaceAtMostFourTimesASecondAndEndsTheLine() {
        AtomicLong now = new AtomicLong(0);
        StringWriter err = new StringWriter();
        Progress p = new Progress(new PrintWriter(err), true, -1, now::get);
        now.set(SECOND / 2);
        p.update(1, 0);
        now.set(SECOND / 2 + SECOND / 10);
        p.update(2, 0);
        now.set(SECOND);
        p.update(3, 0);
        p.finish(3, 0);
        assertEquals("\r1 texts  2 texts/s" + "\r3 texts  3 texts/s" + "\r3 texts  3 texts/s  in 0:01\n",
                err.toString());
    }

    @Test
    void drawsNothingWhenDisabled() {
        StringWriter err = new StringWriter();
        Progress p = new Progress(new PrintWriter(err), false, 10, () -> 0);
        p.update(1, 1);
        p.finish(1, 1);
        assertEquals("", err.toString());
    }
}
