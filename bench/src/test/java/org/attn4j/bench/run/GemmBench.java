package org.attn4j.bench.run;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A GEMM peer's call: a square product of size {@code length} when {@code heads} is 0, otherwise the
 * attention-shaped products of {@code heads} heads of {@code [length, headDim]}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class GemmBench {
    /** {@code ejml}, {@code ejml-mt} or {@code nd4j}; see {@link GemmPeer#named}. */
    @Param("ejml-mt")
    public String impl;
    /** 0 for a square product, else the number of heads. */
    @Param("0")
    public int heads;
    @Param("512")
    public int length;
    @Param("64")
    public int headDim;

    private Runnable call;

    /** Allocates the seeded operands. */
    @Setup(Level.Trial)
    public void setUp() {
        GemmPeer peer = GemmPeer.named(impl);
        call = heads == 0 ? peer.square(length) : peer.attentionShaped(heads, length, headDim);
    }

    /** One product (or one set of attention-shaped products); the results stay in preallocated outputs. */
    @Benchmark
    public void gemm() {
        call.run();
    }
}
