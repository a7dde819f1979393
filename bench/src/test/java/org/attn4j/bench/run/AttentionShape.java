package org.attn4j.bench.run;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The JMH parameters of an attention benchmark: {@code q}, {@code k}, {@code v} of {@code [1, heads, length,
 * headDim]} (or {@code [1, length, heads·headDim]} for ONNX Runtime), causal or not.
 */
@State(Scope.Thread)
public abstract class AttentionShape {
    @Param("12")
    public int heads;
    @Param("128")
    public int length;
    @Param("64")
    public int headDim;
    @Param("false")
    public boolean causal;
}
