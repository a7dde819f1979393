package org.attn4j.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A progress line on standard error, redrawn in place ({@code \r}) at most every {@value #INTERVAL_MS} ms while a
 * command works through its input: texts so far, texts per second, and, when the input's size is known, a bar, the
 * percentage and the time left ({@code ETA}), extrapolated from the bytes read so far. Drawn only when standard error
 * is a terminal ({@link Terminal}); otherwise every call does nothing.
 */
final class Progress {
    /** The least time between two redraws. */
    static final long INTERVAL_MS = 250;
    private static final int BAR = 24;

    private final PrintWriter err;
    private final boolean enabled;
    private final long totalBytes;
    private final LongSupplier clock;
    private final long start;
    private long lastDraw = Long.MIN_VALUE;
    private int lastWidth;

    /**
     * @param err where the line goes
     * @param enabled whether to draw at all
     * @param totalBytes the input's size, or a negative number when unknown (standard input)
     * @param clock nanoseconds, {@link System#nanoTime} outside tests
     */
    Progress(PrintWriter err, boolean enabled, long totalBytes, LongSupplier clock) {
        this.err = err;
        this.enabled = enabled;
        this.totalBytes = totalBytes;
        this.clock = clock;
        this.start = clock.getAsLong();
    }

    /**
     * @param texts texts done
     * @param bytesRead input bytes consumed by those texts
     */
    void update(long texts, long bytesRead) {
        if (!enabled) {
            return;
        }
        long now = clock.getAsLong();
        if (lastDraw != Long.MIN_VALUE && now - lastDraw < INTERVAL_MS * 1_000_000) {
            return;
        }
        lastDraw = now;
        draw(line(texts, bytesRead, now, false));
    }

    /**
     * Draws the final line and ends it.
     *
     * @param texts texts done
     * @param bytesRead input bytes consumed
     */
    void finish(long texts, long bytesRead) {
        if (!enabled) {
            return;
        }
        draw(line(texts, bytesRead, clock.getAsLong(), true));
        err.print('\n');
        err.flush();
    }

    /** @return the line for these counts, for the tests */
    String line(long texts, long bytesRead, long now, boolean done) {
        double seconds = Math.max(1e-9, (now - start) / 1e9);
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%,d texts  %,.0f texts/s", texts,
                texts / seconds));
        if (totalBytes > 0) {
            double fraction = Math.min(1, done ? 1 : (double) bytesRead / totalBytes);
            int filled = (int) Math.round(fraction * BAR);
            s.append("  [").append("#".repeat(filled)).append(" ".repeat(BAR - filled)).append("] ")
                    .append(String.format(Locale.ROOT, "%3.0f%%", fraction * 100));
            if (!done && fraction > 0) {
                s.append("  ETA ").append(clockTime(seconds * (1 - fraction) / fraction));
            }
        }
        if (done) {
            s.append("  in ").append(clockTime(seconds));
        }
        return s.toString();
    }

    private void draw(String line) {
        String padded = line.length() < lastWidth ? line + " ".repeat(lastWidth - line.length()) : line;
        lastWidth = line.length();
        err.print("\r" + padded);
        err.flush();
    }

    private static String clockTime(double seconds) {
        long s = Math.round(seconds);
        return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
