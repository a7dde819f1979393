package org.attn4j.bench.run;

import java.util.List;
import java.util.Map;
import org.attn4j.bench.Suite;
import org.attn4j.bench.Workload;

/**
 * One JMH benchmark with one set of parameters, run in its own forked JVM.
 *
 * @param suite the report table it belongs to
 * @param implementation the name the report gives it
 * @param benchmark the JMH benchmark class
 * @param params the JMH parameters, in the order they are set
 * @param workload what one call computes
 * @param singleShot time one cold call (no warm-up) instead of sampling warmed-up calls
 * @param jvmArgs the forked JVM's options
 * @param env environment variables set for the forked JVM
 */
record Job(Suite suite, String implementation, Class<?> benchmark, Map<String, String> params, Workload workload,
           boolean singleShot, List<String> jvmArgs, Map<String, String> env) {

    /** Copies the collections. */
    Job {
        params = Map.copyOf(params);
        jvmArgs = List.copyOf(jvmArgs);
        env = Map.copyOf(env);
    }
}
