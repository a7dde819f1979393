package org.attn4j.bench.run;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.attn4j.bench.OnnxModels;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * ONNX Runtime Java's fused {@code com.microsoft.MultiHeadAttention} (the committed one-node model, see {@link
 * OnnxModels}) on {@code [1, length, heads·headDim]} inputs already in native tensors, with {@link
 * BenchData#threads()} intra-op threads. A call runs the session and closes its result, freeing the output.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class OnnxAttentionBench extends AttentionShape {

    private OnnxSession onnx;

    /**
     * Opens a session on the model and copies the seeded inputs into native tensors.
     *
     * @throws OrtException if ONNX Runtime rejects the model or the inputs
     */
    @Setup(Level.Trial)
    public void setUp() throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        long[] shape = {1, length, (long) heads * headDim};
        long size = (long) length * heads * headDim;
        onnx = OnnxSession.of(env, model(heads, causal), Map.of(
                "query", OnnxTensor.createTensor(env, FloatBuffer.wrap(BenchData.uniform(size, 1)), shape),
                "key", OnnxTensor.createTensor(env, FloatBuffer.wrap(BenchData.uniform(size, 2)), shape),
                "value", OnnxTensor.createTensor(env, FloatBuffer.wrap(BenchData.uniform(size, 3)), shape)));
    }

    /**
     * @param sink keeps the output alive until the result closes
     * @throws OrtException if the run fails
     */
    @Benchmark
    public void attention(Blackhole sink) throws OrtException {
        onnx.run(sink);
    }

    /**
     * Frees the inputs and the session.
     *
     * @throws OrtException if the session cannot be closed
     */
    @TearDown(Level.Trial)
    public void tearDown() throws OrtException {
        onnx.close();
    }

    /**
     * @param heads the model's {@code num_heads}
     * @param causal whether to take the {@code unidirectional} model
     * @return the committed model's bytes
     */
    static byte[] model(int heads, boolean causal) {
        String resource = "/onnx/" + OnnxModels.fileName(heads, causal);
        try (InputStream in = OnnxAttentionBench.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("The ONNX model " + resource + " is not on the class path;"
                        + " regenerate it with org.attn4j.bench.OnnxModels (see bench/README.md)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + resource, e);
        }
    }
}
