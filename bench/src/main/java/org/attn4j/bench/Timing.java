package org.attn4j.bench;

/**
 * The distribution of one benchmark's call times.
 *
 * @param samples how many calls were timed
 * @param medianSeconds the median call time
 * @param minSeconds the fastest call
 * @param maxSeconds the slowest call
 */
public record Timing(long samples, double medianSeconds, double minSeconds, double maxSeconds) {

    /** Rejects an empty or inconsistent distribution. */
    public Timing {
        if (samples < 1) {
            throw new IllegalArgumentException("Timing: samples is " + samples + "; it must be at least 1");
        }
        if (!(minSeconds > 0 && minSeconds <= medianSeconds && medianSeconds <= maxSeconds)) {
            throw new IllegalArgumentException("Timing: need 0 < min <= median <= max, got min " + minSeconds
                    + ", median " + medianSeconds + ", max " + maxSeconds);
        }
    }

    /** @return {@code (max - min) / median}: how far apart the fastest and slowest calls were */
    public double spread() {
        return (maxSeconds - minSeconds) / medianSeconds;
    }
}
