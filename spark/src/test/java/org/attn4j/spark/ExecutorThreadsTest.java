package org.attn4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Function;
import org.attn4j.api.BackendOptions;
import org.junit.jupiter.api.Test;

class ExecutorThreadsTest {

    private static final List<String> STANDALONE_EXECUTOR = List.of("--driver-url",
            "spark://CoarseGrainedScheduler@127.0.0.1:40000", "--executor-id", "3", "--hostname", "127.0.0.1",
            "--cores", "2", "--app-id", "app-1", "--worker-url", "spark://Worker@127.0.0.1:40001");

    @Test
    void aClusterExecutorUsesTheCoresItWasStartedWith() {
        ExecutorThreads t = ExecutorThreads.of("3", conf(Map.of("spark.executor.cores", "4")), STANDALONE_EXECUTOR);
        assertEquals(OptionalInt.of(2), t.count());
        assertEquals("the executor's --cores", t.source());
        assertEquals(BackendOptions.defaults().withThreads(2), t.options());
    }

    @Test
    void withoutTheArgumentSparkExecutorCoresDecides() {
        ExecutorThreads t = ExecutorThreads.of("1", conf(Map.of("spark.executor.cores", "3")), List.of());
        assertEquals(OptionalInt.of(3), t.count());
        assertEquals("spark.executor.cores", t.source());
    }

    @Test
    void anExecutorWhoseCoresAreUnknownLeavesTheCountToTheBackend() {
        ExecutorThreads t = ExecutorThreads.of("1", conf(Map.of("spark.executor.cores", "many")),
                List.of("--cores"));
        assertEquals(OptionalInt.empty(), t.count());
        assertEquals(BackendOptions.defaults(), t.options());
    }

    @Test
    void theDriverInLocalModeUsesTheMastersThreads() {
        assertEquals(OptionalInt.of(2), local("local[2]").count());
        assertEquals("spark.master local[2]", local("local[2]").source());
        assertEquals(OptionalInt.of(3), local("local[3, 4]").count());
        assertEquals(OptionalInt.of(1), local("local").count());
        assertEquals(OptionalInt.of(Runtime.getRuntime().availableProcessors()), local("local[*]").count());
        assertEquals(OptionalInt.empty(), local("spark://127.0.0.1:7077").count());
        assertEquals(OptionalInt.empty(), ExecutorThreads.of("driver", k -> null, List.of()).count());
    }

    @Test
    void theDescriptionNamesTheCountAndWhereItCameFrom() {
        ExecutorThreads t = ExecutorThreads.of("3", conf(Map.of()), STANDALONE_EXECUTOR);
        if (System.getProperty(BackendOptions.THREADS_PROPERTY) == null
                && System.getenv(BackendOptions.THREADS_ENVIRONMENT) == null) {
            assertEquals("2 threads (the executor's --cores)", t.describe(2));
            assertEquals("1 thread (the executor's --cores)", t.describe(1));
        }
    }

    private static ExecutorThreads local(String master) {
        return ExecutorThreads.of("driver", conf(Map.of("spark.master", master)), List.of());
    }

    private static Function<String, String> conf(Map<String, String> values) {
        return values::get;
    }
}
