package org.attn4j.bench.run;

import java.util.concurrent.TimeUnit;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One attn4j backend's {@code ops.attention(q, k, v)} on {@code [1, heads, length, headDim]} inputs that already
 * live in the backend. A call opens a scope, computes the output there and closes the scope, freeing it.
 */
@State(org.openjdk.jmh.annotations.Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AttentionBench extends AttentionShape {
    /** The provider name, as {@code -Dattn4j.backend} takes it. */
    @Param("ejml")
    public String backend;

    private Scope inputs;
    private Tensor q;
    private Tensor k;
    private Tensor v;
    private AttentionOptions options;

    /** Loads the backend and copies the seeded inputs into it. */
    @Setup(Level.Trial)
    public void setUp() {
        Backend b = Backends.load(backend);
        inputs = b.newScope();
        Shape shape = Shape.of(1, heads, length, headDim);
        q = inputs.tensor(BenchData.uniform(shape.size(), 1), shape);
        k = inputs.tensor(BenchData.uniform(shape.size(), 2), shape);
        v = inputs.tensor(BenchData.uniform(shape.size(), 3), shape);
        options = AttentionOptions.defaults().withCausal(causal);
    }

    /**
     * @param sink keeps the output alive until the scope closes
     */
    @Benchmark
    public void attention(Blackhole sink) {
        try (Scope call = inputs.backend().newScope()) {
            sink.consume(call.ops().attention(q, k, v, options).output());
        }
    }

    /** Frees the inputs. */
    @TearDown(Level.Trial)
    public void tearDown() {
        inputs.close();
    }
}
