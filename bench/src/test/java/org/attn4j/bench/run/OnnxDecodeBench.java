package org.attn4j.bench.run;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.attn4j.bench.OnnxModels;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One decoding step on ONNX Runtime's {@code com.microsoft.GroupQueryAttention} ({@link
 * OnnxModels#groupQueryAttention}): the new token's query {@code [1, 1, heads·headDim]}, key and value against a
 * past of {@code cache - 1} positions, {@code total_sequence_length = cache}, with {@link BenchData#threads()}
 * intra-op threads. A call runs the session (which writes {@code present_key/value}) and closes the result.
 */
@State(org.openjdk.jmh.annotations.Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class OnnxDecodeBench extends DecodeShape {

    private OnnxSession onnx;

    /**
     * Opens a session on the model and copies the seeded inputs into native tensors.
     *
     * @throws OrtException if ONNX Runtime rejects the model or the inputs
     */
    @Setup(Level.Trial)
    public void setUp() throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        int past = cache - 1;
        long[] pastShape = {1, kvHeads(), past, headDim()};
        long pastSize = (long) kvHeads() * past * headDim();
        long hidden = (long) heads() * headDim();
        long kvHidden = (long) kvHeads() * headDim();
        onnx = OnnxSession.of(env, OnnxModels.groupQueryAttention(heads(), kvHeads()), Map.of(
                "query", OnnxTensor.createTensor(env, FloatBuffer.wrap(BenchData.uniform(hidden, 1)),
                        new long[] {1, 1, hidden}),
                "key", OnnxTensor.createTensor(env, FloatBuffer.wrap(BenchData.uniform(kvHidden, 4)),
                        new long[] {1, 1, kvHidden}),
                "value", OnnxTensor.createTensor(env, FloatBuffer.wrap(BenchData.uniform(kvHidden, 5)),
                        new long[] {1, 1, kvHidden}),
                "past_key", OnnxTensor.createTensor(env, FloatBuffer.wrap(BenchData.uniform(pastSize, 2)), pastShape),
                "past_value", OnnxTensor.createTensor(env, FloatBuffer.wrap(BenchData.uniform(pastSize, 3)),
                        pastShape),
                "seqlens_k", OnnxTensor.createTensor(env, IntBuffer.wrap(new int[] {cache - 1}), new long[] {1}),
                "total_sequence_length", OnnxTensor.createTensor(env, IntBuffer.wrap(new int[] {cache}),
                        new long[] {})));
    }

    /**
     * @param sink keeps the output alive until the result closes
     * @throws OrtException if the run fails
     */
    @Benchmark
    public void step(Blackhole sink) throws OrtException {
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
}
