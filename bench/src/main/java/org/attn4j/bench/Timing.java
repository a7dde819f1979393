package org.attn4j.bench;

/**
 * The distribution of one benchmark's call times.
 *
 * @param samples how many calls were timed
 * @param medianSeconds the median call time
 * @param minSeconds the fastest call
 * @param maxSeconds the slowest call
 * @param p10Seconds the 10th percentile
 * @param p90Seconds the 90th percentile
 * @param forks how many forked JVMs timed the calls (the percentiles are over all of them)
 * @param slowestForkMedianSeconds the largest of the forks' own medians: a JVM that compiled the code worse than
 *     the others shows here
 */
public record Timing(long samples, double medianSeconds, double minSeconds, double maxSeconds, double p10Seconds,
                     double p90Seconds, int forks, double slowestForkMedianSeconds) {

    /** Rejects an empty or inconsistent distribution. */
    public Timing {
        if (samples < 1) {
            throw new IllegalArgumentException("Timing: samples is " + samples + "; it must be at least 1");
        }
        if (forks < 1 || !(slowestForkMedianSeconds > 0)) {
            throw new IllegalArgumentException("Timing: forks is " + forks + " and the slowest fork's median "
                    + slowestForkMedianSeconds + "; need at least one fork and a positive median");
        }
        if (!(minSeconds > 0 && minSeconds <= p10Seconds && p10Seconds <= medianSeconds
                && medianSeconds <= p90Seconds && p90Seconds <= maxSeconds)) {
            throw new IllegalArgumentException("Timing: need 0 < min <= p10 <= median <= p90 <= max, got min "
                    + minSeconds + ", p10 " + p10Seconds + ", median " + medianSeconds + ", p90 " + p90Seconds
                    + ", max " + maxSeconds);
        }
    }

    /**
     * The distribution of one fork.
     *
     * @param samples how many calls were timed
     * @param medianSeconds the median call time
     * @param minSeconds the fastest call
     * @param maxSeconds the slowest call
     * @param p10Seconds the 10th percentile
     * @param p90Seconds the 90th percentile
     */
    public Timing(long samples, double medianSeconds, double minSeconds, double maxSeconds, double p10Seconds,
                  double p90Seconds) {
        this(samples, medianSeconds, minSeconds, maxSeconds, p10Seconds, p90Seconds, 1, medianSeconds);
    }

    /**
     * @param seconds the time of the one call timed
     * @return the distribution of a single call
     */
    public static Timing single(double seconds) {
        return new Timing(1, seconds, seconds, seconds, seconds, seconds);
    }

    /**
     * @return {@code (p90 - p10) / median}: how far apart typical slow and fast calls were, blind to the rare
     *     outlier (a collection, a preemption) that {@code max} catches
     */
    public double spread() {
        return (p90Seconds - p10Seconds) / medianSeconds;
    }
}
