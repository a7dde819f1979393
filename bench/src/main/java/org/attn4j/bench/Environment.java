package org.attn4j.bench;

import java.util.List;

/**
 * Where and how a run was made, so that its numbers can be judged and repeated.
 *
 * @param started when the run began, ISO-8601 UTC
 * @param finished when it ended, ISO-8601 UTC
 * @param command the command that reproduces it
 * @param threads the thread count every implementation was given
 * @param quick whether this was the short smoke-test run ({@code -Dbench.quick})
 * @param java the JVM's version and name
 * @param os the operating system and architecture
 * @param cpu the processor's model name
 * @param cores the processors the JVM sees
 * @param loadBefore {@code /proc/loadavg} when the run began (1, 5, 15 minutes): other work on the machine
 * @param loadAfter {@code /proc/loadavg} when it ended
 * @param jmh the JMH settings: forks, warm-up and measurement iterations and their times
 * @param notes anything else a reader needs: unavailable backends, which BLAS was loaded
 * @param vectorPeakGflops the 256-bit FMA peak of the threads used, {@code threads × 2 FMA units × 8 lanes × 2
 *     operations × GHz}, with the clock {@code cpu} states; NaN where the clock is unknown
 */
public record Environment(String started, String finished, String command, int threads, boolean quick,
                          String java, String os, String cpu, int cores, String loadBefore, String loadAfter,
                          String jmh, List<String> notes, double vectorPeakGflops) {

    /** Copies the notes. */
    public Environment {
        notes = List.copyOf(notes);
    }
}
