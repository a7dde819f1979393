package org.attn4j.bench.run;

import java.util.concurrent.TimeUnit;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.CausalAlignment;
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
 * One decoding step's attention on an attn4j backend: the new token's key and value written into a preallocated
 * cache {@code [1, kvHeads, cache, headDim]} at its last slot ({@code writeSlice}), then its query
 * {@code [1, heads, 1, headDim]} attending to all {@code cache} positions (causal, bottom-right, key length
 * {@code cache}). A call opens a scope and closes it, freeing the output.
 */
@State(org.openjdk.jmh.annotations.Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DecodeBench extends DecodeShape {
    /** The provider name. */
    @Param("ejml")
    public String backend;

    private Scope state;
    private Tensor q;
    private Tensor newK;
    private Tensor newV;
    private Tensor keys;
    private Tensor values;
    private AttentionOptions options;

    /** Loads the backend and fills the cache and the new token's tensors with seeded values. */
    @Setup(Level.Trial)
    public void setUp() {
        Backend b = Backends.load(backend);
        state = b.newScope();
        Shape cacheShape = Shape.of(1, kvHeads(), cache, headDim());
        Shape token = Shape.of(1, kvHeads(), 1, headDim());
        Shape query = Shape.of(1, heads(), 1, headDim());
        q = state.tensor(BenchData.uniform(query.size(), 1), query);
        keys = state.tensor(BenchData.uniform(cacheShape.size(), 2), cacheShape);
        values = state.tensor(BenchData.uniform(cacheShape.size(), 3), cacheShape);
        newK = state.tensor(BenchData.uniform(token.size(), 4), token);
        newV = state.tensor(BenchData.uniform(token.size(), 5), token);
        options = AttentionOptions.defaults().withCausal(true).withCausalAlignment(CausalAlignment.BOTTOM_RIGHT)
                .withKeyLength(cache);
    }

    /**
     * @param sink keeps the output alive until the scope closes
     */
    @Benchmark
    public void step(Blackhole sink) {
        try (Scope call = state.backend().newScope()) {
            keys = call.ops().writeSlice(keys, newK, 2, cache - 1);
            values = call.ops().writeSlice(values, newV, 2, cache - 1);
            sink.consume(call.ops().attention(q, keys, values, options).output());
        }
    }

    /** Frees the cache. */
    @TearDown(Level.Trial)
    public void tearDown() {
        state.close();
    }
}
