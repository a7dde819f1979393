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
 * A GEMM peer's call: the product {@code [length, inner]·[inner, columns]} when {@code heads} is 0 (a square one of
 * size {@code length} when {@code columns} and {@code inner} are 0), otherwise the attention-shaped products of
 * {@code heads} heads of {@code [length, headDim]}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class GemmBench {
    /** {@code ejml}, {@code ejml-mt}, {@code ejml-backend} or {@code nd4j}; see {@link GemmPeer#named}. */
    @Param("ejml-mt")
    public String impl;
    /** 0 for a square product, else the number of heads. */
    @Param("0")
    public int heads;
    @Param("512")
    public int length;
    @Param("64")
    public int headDim;
    /** Columns of a plain product; 0 for {@code length}. */
    @Param("0")
    public int columns;
    /** The inner dimension of a plain product; 0 for {@code length}. */
    @Param("0")
    public int inner;

    private Runnable call;

    /** Allocates the seeded operands. */
    @Setup(Level.Trial)
    public void setUp() {
        GemmPeer peer = GemmPeer.named(impl);
        call = heads == 0 ? peer.product(length, columns == 0 ? length : columns, inner == 0 ? length : inner)
                : peer.attentionShaped(heads, length, headDim);
    }

    /** One product (or one set of attention-shaped products); the results stay in preallocated outputs. */
    @Benchmark
    public void gemm() {
        call.run();
    }
}
