package org.attn4j.bench.run;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.attn4j.api.Backends;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * all-MiniLM-L6-v2 forward passes, B sentences of exactly L tokens ({@code [CLS]}, L−2 words, {@code [SEP]}):
 * {@code attn4j} embeds them with {@link SentenceEmbedder} (the embedded ONNX file's weights bound to the backend;
 * tokenising, the encoder, mean pooling and normalisation), {@code onnxruntime} runs that same ONNX file on the same
 * token ids (the encoder alone). Both get every processor: ONNX Runtime as intra-op threads, the backends their
 * defaults. An engine {@code ejml-…} is the EJML backend in a JVM that {@code MiniLmMain} starts with other options
 * (a narrower vector width). Five warm-up iterations of two seconds let C2 finish every kernel before the five
 * measured ones; three forks show whether some JVM compiled them worse. Run with {@code MiniLmMain}, which prints
 * sentences/s, the ratios and the slowest fork.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 3, jvmArgsAppend = {"-Xmx3g", "--add-modules", "jdk.incubator.vector"})
public class MiniLmBench {
    /** {@code B×L}. */
    @Param({"1x16", "1x128", "32x128", "8x512"})
    public String shape;

    /** A backend name, a backend name and a variant label ({@code ejml-256}), or {@code onnxruntime}. */
    @Param({"ejml", "nd4j", "onnxruntime"})
    public String engine;

    private SentenceEmbedder embedder;
    private List<String> texts;
    private OrtEnvironment env;
    private OrtSession session;
    private Map<String, OnnxTensor> inputs;

    /**
     * @throws IOException if the model cannot be read
     * @throws OrtException if ONNX Runtime refuses it
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException, OrtException {
        int batch = Integer.parseInt(shape.substring(0, shape.indexOf('x')));
        int length = Integer.parseInt(shape.substring(shape.indexOf('x') + 1));
        texts = Collections.nCopies(batch, String.join(" ", Collections.nCopies(length - 2, "hello")));
        if (!engine.equals("onnxruntime")) {
            String backend = engine.contains("-") ? engine.substring(0, engine.indexOf('-')) : engine;
            embedder = SentenceEmbedder.loadDefault(Backends.load(backend),
                    EmbeddingOptions.defaults().withMaxLength(length).withBatchSize(batch));
            int tokens = embedder.embed(texts.get(0)).ids().length;
            if (tokens != length) {
                throw new IllegalStateException("the bench text has " + tokens + " tokens, not " + length);
            }
            return;
        }
        env = OrtEnvironment.getEnvironment();
        byte[] model;
        try (InputStream in = MiniLmBench.class.getResourceAsStream("/all-minilm-l6-v2.onnx")) {
            model = in.readAllBytes();
        }
        session = OnnxSession.open(env, model);
        long[][] ids = new long[batch][length];
        long[][] mask = new long[batch][length];
        for (int b = 0; b < batch; b++) {
            for (int l = 0; l < length; l++) {
                ids[b][l] = l == 0 ? 101 : l == length - 1 ? 102 : 7592;
                mask[b][l] = 1;
            }
        }
        inputs = Map.of("input_ids", OnnxTensor.createTensor(env, ids),
                "attention_mask", OnnxTensor.createTensor(env, mask),
                "token_type_ids", OnnxTensor.createTensor(env, new long[batch][length]));
    }

    /** @throws OrtException if closing fails */
    @TearDown(Level.Trial)
    public void tearDown() throws OrtException {
        if (embedder != null) {
            embedder.close();
        }
        if (session != null) {
            for (OnnxTensor t : inputs.values()) {
                t.close();
            }
            session.close();
        }
    }

    /**
     * @return the embeddings (attn4j) or the output count (ONNX Runtime), so nothing is dead code
     * @throws OrtException if ONNX Runtime fails
     */
    @Benchmark
    public Object forward() throws OrtException {
        if (embedder != null) {
            List<SentenceEmbedding> out = embedder.embed(texts);
            return new ArrayList<>(out);
        }
        try (OrtSession.Result r = session.run(inputs)) {
            return r.size();
        }
    }
}
