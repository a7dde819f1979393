package org.attn4j.bench.run;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.file.Path;
import java.util.Map;
import org.openjdk.jmh.infra.Blackhole;

/**
 * An ONNX Runtime session as every bench runs it, {@link BenchData#threads()} intra-op threads (or a count given),
 * one inter-op thread, sequential execution, ONNX Runtime's default graph optimizations, together with the native
 * input tensors it runs on; closing it frees both.
 */
final class OnnxSession implements AutoCloseable {
    private final OrtSession session;
    private final Map<String, OnnxTensor> inputs;

    private OnnxSession(OrtSession session, Map<String, OnnxTensor> inputs) {
        this.session = session;
        this.inputs = inputs;
    }

    /**
     * @param env the environment
     * @param model the serialised model
     * @return a session on the model with the benches' thread settings
     * @throws OrtException if ONNX Runtime rejects the model
     */
    static OrtSession open(OrtEnvironment env, byte[] model) throws OrtException {
        try (OrtSession.SessionOptions options = options(BenchData.threads())) {
            return env.createSession(model, options);
        }
    }

    /**
     * @param env the environment
     * @param model the model file; tensors it keeps in external data files are read from beside it
     * @param threads the intra-op threads
     * @return a session on the model with the benches' settings but {@code threads} intra-op threads
     * @throws OrtException if ONNX Runtime rejects the model
     */
    static OrtSession open(OrtEnvironment env, Path model, int threads) throws OrtException {
        try (OrtSession.SessionOptions options = options(threads)) {
            return env.createSession(model.toString(), options);
        }
    }

    private static OrtSession.SessionOptions options(int threads) throws OrtException {
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(threads);
        options.setInterOpNumThreads(1);
        options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
        return options;
    }

    /**
     * @param env the environment
     * @param model the serialised model
     * @param inputs the model's inputs by name, owned by the result from now on
     * @return a session on the model that runs on {@code inputs}
     * @throws OrtException if ONNX Runtime rejects the model
     */
    static OnnxSession of(OrtEnvironment env, byte[] model, Map<String, OnnxTensor> inputs) throws OrtException {
        return new OnnxSession(open(env, model), inputs);
    }

    /**
     * Runs the session once on its inputs and closes the result, freeing the outputs.
     *
     * @param sink keeps the first output alive until the result closes
     * @throws OrtException if the run fails
     */
    void run(Blackhole sink) throws OrtException {
        try (OrtSession.Result result = session.run(inputs)) {
            sink.consume(result.get(0));
        }
    }

    /** @throws OrtException if the session cannot be closed */
    @Override
    public void close() throws OrtException {
        inputs.values().forEach(OnnxTensor::close);
        session.close();
    }
}
