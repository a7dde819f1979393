package org.attn4j.spark;

import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.attn4j.api.BackendOptions;

/**
 * How many threads the backend of this executor JVM gets: the executor's cores, since all tasks of an executor
 * share one backend (one model, one pool), and an executor of {@code c} cores runs {@code c / spark.task.cpus} tasks
 * at once. In order:
 * <ol>
 *   <li>an executor of a cluster: the {@code --cores} its cluster manager started it with (standalone, YARN and
 *       Kubernetes executors all get one; it is {@code spark.executor.cores} where that is set, and in standalone
 *       mode without it the cores the worker gave), else {@code spark.executor.cores};</li>
 *   <li>the driver in local mode: {@code N} of {@code local[N]} or {@code local[N,F]}, every processor for
 *       {@code local[*]}, one for {@code local};</li>
 *   <li>else nothing: the backend's default (every processor).</li>
 * </ol>
 * {@code -Dattn4j.threads} and {@code ATTN4J_THREADS} on the executor still override the count
 * ({@link BackendOptions}).
 *
 * @param count the count, or empty for the backend's default
 * @param source where it came from, for the log line
 */
record ExecutorThreads(OptionalInt count, String source) {

    private static final Pattern LOCAL = Pattern.compile("local(?:\\[(\\*|\\d+)(?:,\\s*\\d+)?])?");

    /**
     * @param executorId the executor's id; {@code driver} for the driver in local mode
     * @param conf the executor's Spark configuration, a key to its value or null
     * @param arguments the JVM's command-line arguments (its options, main class and program arguments), empty if
     *     they cannot be read
     * @return the count and its source
     */
    static ExecutorThreads of(String executorId, Function<String, String> conf, List<String> arguments) {
        if (!"driver".equals(executorId)) {
            int at = arguments.indexOf("--cores");
            if (at >= 0 && at + 1 < arguments.size()) {
                OptionalInt cores = positive(arguments.get(at + 1));
                if (cores.isPresent()) {
                    return new ExecutorThreads(cores, "the executor's --cores");
                }
            }
            OptionalInt cores = positive(conf.apply("spark.executor.cores"));
            if (cores.isPresent()) {
                return new ExecutorThreads(cores, "spark.executor.cores");
            }
            return new ExecutorThreads(OptionalInt.empty(), "the backend's default: the executor's cores are unknown");
        }
        String master = conf.apply("spark.master");
        Matcher m = master == null ? null : LOCAL.matcher(master.trim().toLowerCase(Locale.ROOT));
        if (m != null && m.matches()) {
            String n = m.group(1);
            int count = n == null ? 1 : n.equals("*") ? Runtime.getRuntime().availableProcessors()
                    : Integer.parseInt(n);
            if (count >= 1) {
                return new ExecutorThreads(OptionalInt.of(count), "spark.master " + master.trim());
            }
        }
        return new ExecutorThreads(OptionalInt.empty(), "the backend's default: the driver is not in local mode");
    }

    /** @return the backend options with this count, if any */
    BackendOptions options() {
        return count.isPresent() ? BackendOptions.defaults().withThreads(count.getAsInt()) : BackendOptions.defaults();
    }

    /**
     * @param threads the count the backend reports
     * @return {@code "2 threads (the executor's --cores)"}, or the JVM's override when one is set
     */
    String describe(int threads) {
        String property = System.getProperty(BackendOptions.THREADS_PROPERTY);
        String why;
        if (property != null && !property.isBlank()) {
            why = "-D" + BackendOptions.THREADS_PROPERTY;
        } else if (System.getenv(BackendOptions.THREADS_ENVIRONMENT) != null
                && !System.getenv(BackendOptions.THREADS_ENVIRONMENT).isBlank()) {
            why = BackendOptions.THREADS_ENVIRONMENT;
        } else {
            why = source;
        }
        return threads + (threads == 1 ? " thread" : " threads") + " (" + why + ")";
    }

    private static OptionalInt positive(String value) {
        if (value == null) {
            return OptionalInt.empty();
        }
        try {
            int n = Integer.parseInt(value.trim());
            return n >= 1 ? OptionalInt.of(n) : OptionalInt.empty();
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
