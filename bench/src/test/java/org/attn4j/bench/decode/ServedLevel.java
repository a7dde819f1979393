package org.attn4j.bench.decode;

import java.util.Arrays;
import java.util.List;

/**
 * One concurrency level of {@link ServedLatencyMain}: {@code streams} streamed completions sent together, as the
 * clients saw them.
 *
 * @param streams the requests sent together
 * @param tokens the tokens each asked for
 * @param seconds from the first request sent to the last {@code [DONE]}
 * @param made the chunks with text that arrived, all streams together
 * @param firstTokenMillis each request's time to first token, {@code [streams]}
 * @param gapsMillis every stream's inter-token gaps pooled, {@code [made - streams]}
 * @param complete whether every stream got its {@code tokens} tokens ({@link StreamedCompletion#complete})
 * @param asAlone whether every stream's text equals its prompt's text decoded alone
 */
record ServedLevel(int streams, int tokens, double seconds, int made, double[] firstTokenMillis,
                   double[] gapsMillis, boolean complete, boolean asAlone) {

    /**
     * @param tokens the tokens each request asked for
     * @param got the completions sent together, at least one
     * @param asAlone whether each one's text equals its prompt's text decoded alone
     * @return their level
     */
    static ServedLevel of(int tokens, List<StreamedCompletion> got, boolean asAlone) {
        long start = got.stream().mapToLong(StreamedCompletion::sent).min().orElseThrow();
        long end = got.stream().mapToLong(StreamedCompletion::done).max().orElseThrow();
        return new ServedLevel(got.size(), tokens, (end - start) / 1e9,
                got.stream().mapToInt(c -> c.arrivals().length).sum(),
                got.stream().mapToDouble(StreamedCompletion::firstTokenMillis).toArray(),
                got.stream().flatMapToDouble(c -> Arrays.stream(c.gapsMillis())).toArray(),
                got.stream().allMatch(c -> c.complete(tokens)), asAlone);
    }

    /** @return the tokens that arrived, all streams together, per second of the level */
    double tokensPerSecond() {
        return made / seconds;
    }

    /**
     * The nearest-rank percentile: the smallest value at least {@code p} of the values are at or below.
     *
     * @param values the sample, at least one value
     * @param p the fraction, in {@code (0, 1]}
     * @return {@code sorted[ceil(p * n) - 1]}
     * @throws IllegalArgumentException if the sample is empty or {@code p} is out of range
     */
    static double percentile(double[] values, double p) {
        if (values.length == 0 || !(p > 0 && p <= 1)) {
            throw new IllegalArgumentException("served latency: percentile " + p + " of " + values.length
                    + " values; it needs at least one value and p in (0, 1]");
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.ceil(p * sorted.length) - 1];
    }
}
