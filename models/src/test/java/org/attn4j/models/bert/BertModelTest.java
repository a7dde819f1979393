package org.attn4j.models.bert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.attn4j.api.Activation;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.parameters.StateDictException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The BERT encoder against PyTorch float64 outputs of the same weights ({@code generate_bert_fixture.py}), on every
 * backend: F64 within 1e-10, F32 within 1e-4 absolute (the weights are exact in F32; the error is F32 arithmetic
 * through two layers and three layer norms, measured below 1e-5 on EJML).
 */
class BertModelTest {
    private static final double F32_TOLERANCE = 1e-4;
    private static final double F64_TOLERANCE = 1e-10;

    static Path folder(String name) {
        try {
            return Path.of(BertModelTest.class.getResource("/org/attn4j/models/bert/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static StateDict reference() throws IOException {
        return SafeTensors.read(folder("reference.safetensors")).tensors();
    }

    static BertInput input(StateDict reference) {
        return new BertInput(3, 7, ints(reference.get("input_ids")), ints(reference.get("token_type_ids")),
                ints(reference.get("attention_mask")));
    }

    private static int[] ints(HostTensor t) {
        return Arrays.stream(t.data()).mapToInt(v -> (int) v).toArray();
    }

    static Stream<Arguments> targets() {
        return Backends.describe().stream().filter(r -> r.availability().available())
                .flatMap(r -> {
                    Backend b = Backends.load(r.name());
                    return r.capabilities().supports(DType.F64) ? Stream.of(Arguments.of(b, DType.F32),
                            Arguments.of(b, DType.F64)) : Stream.of(Arguments.of(b, DType.F32));
                });
    }

    static void assertClose(String what, double tolerance, double[] expected, double[] actual, int[] mask,
                            int width) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (mask != null && mask[i / width] == 0) {
                continue;
            }
            double abs = Math.abs(expected[i] - actual[i]);
            if (!(abs <= tolerance)) {
                fail(String.format("%s: index %d expected %.10g actual %.10g abs error %.3g rel error %.3g"
                        + " (tolerance %.1g abs)", what, i, expected[i], actual[i], abs,
                        abs / Math.abs(expected[i]), tolerance));
            }
        }
    }

    private static double tolerance(DType dtype) {
        return dtype == DType.F64 ? F64_TOLERANCE : F32_TOLERANCE;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("folders")
    void hiddenStatesMatchPyTorchForEveryCheckpointLayout(String name, Backend backend, DType dtype)
            throws IOException {
        StateDict ref = reference();
        BertInput in = input(ref);
        Path dir = folder(name);
        BertModel host = BertModel.load(SafeTensors.readCheckpoint(dir).tensors(),
                BertConfig.read(dir.resolve("config.json")));
        String refName = name.equals("tiny-sharded") ? "tiny" : name;
        double tol = tolerance(dtype) * (name.equals("tiny") || name.equals("tiny-sharded") ? 1 : 10);
        try (Parameters p = Parameters.on(backend, dtype); Scope s = backend.newScope()) {
            BertModel model = host.bind(p);
            Tensor hidden = model.forward(s, in, dtype);
            assertClose(name + " last_hidden_state on " + backend.name() + "/" + dtype, tol,
                    ref.get(refName + ".last_hidden_state").data(), hidden.toDoubleArray(), in.attentionMask(), 16);
            if (name.equals("tiny")) {
                assertClose("pooler_output on " + backend.name() + "/" + dtype, tol,
                        ref.get("tiny.pooler_output").data(), model.pool(s, hidden).toDoubleArray(), null, 16);
                assertClose("attentions[1] on " + backend.name() + "/" + dtype, tol,
                        ref.get("tiny.attentions.1").data(), model.attentionWeights(s, in, dtype, 1).toDoubleArray(),
                        null, 7);
            }
        }
    }

    static Stream<Arguments> folders() {
        return targets().flatMap(t -> Stream.of("tiny", "tiny-sharded", "tiny-f16", "tiny-bf16")
                .map(n -> Arguments.of(n, t.get()[0], t.get()[1])));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("targets")
    void eachPaddedRowEqualsTheSequenceRunAlone(Backend backend, DType dtype) throws IOException {
        StateDict ref = reference();
        BertInput batch = input(ref);
        Path dir = folder("tiny");
        BertModel host = BertModel.load(SafeTensors.readCheckpoint(dir).tensors(),
                BertConfig.read(dir.resolve("config.json")));
        try (Parameters p = Parameters.on(backend, dtype); Scope s = backend.newScope()) {
            BertModel model = host.bind(p);
            double[] all = model.forward(s, batch, dtype).toDoubleArray();
            int[] ids = batch.inputIds();
            int[] types = batch.tokenTypeIds();
            int[] mask = batch.attentionMask();
            for (int b = 0; b < 3; b++) {
                int n = 0;
                while (n < 7 && mask[b * 7 + n] == 1) {
                    n++;
                }
                int[] one = Arrays.copyOfRange(ids, b * 7, b * 7 + n);
                int[] oneTypes = Arrays.copyOfRange(types, b * 7, b * 7 + n);
                int[] ones = new int[n];
                Arrays.fill(ones, 1);
                double[] alone = model.forward(s, new BertInput(1, n, one, oneTypes, ones), dtype).toDoubleArray();
                assertClose("row " + b + " alone on " + backend.name() + "/" + dtype, tolerance(dtype) / 10,
                        Arrays.copyOfRange(all, b * 7 * 16, (b * 7 + n) * 16), alone, null, 16);
            }
        }
    }

    @Test
    void halfPrecisionWeightsStayHalfPrecisionOnTheHost() throws IOException {
        SafeTensors.Contents c = SafeTensors.readCheckpoint(folder("tiny-bf16"));
        assertEquals(WeightType.BF16, c.dtypes().get("encoder.layer.1.output.dense.weight"));
        BertModel model = BertModel.load(c.tensors(), BertConfig.read(folder("tiny-bf16").resolve("config.json")));
        assertEquals(WeightType.BF16,
                model.stateDict().get("embeddings.word_embeddings.weight").type());
        assertFalse(model.hasPooler());
    }

    @Test
    void theBertPrefixIsOptionalAndAStrayNameIsNamedInFull() throws IOException {
        StateDict plain = SafeTensors.readCheckpoint(folder("tiny")).tensors();
        BertConfig config = BertConfig.read(folder("tiny").resolve("config.json"));
        StateDict broken = plain.prefixed("bert.").with("bert.encoder.layer.2.output.dense.bias",
                HostTensor.of(new float[16], 16));
        StateDictException e = assertThrows(StateDictException.class, () -> BertModel.load(broken, config));
        assertEquals(List.of("bert.encoder.layer.2.output.dense.bias"), e.unexpected());
        assertEquals(plain.names(), BertModel.load(plain.prefixed("bert."), config).stateDict().names());
    }

    @Test
    void configsThatCannotWorkAreRefused(@TempDir Path dir) throws IOException {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new BertConfig(10, 16, 1, 3, 8, Activation.GELU, 1e-12, 8, 2));
        assertTrue(e.getMessage().contains("num_attention_heads 3 does not divide hidden_size 16"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new BertConfig(10, 16, 1, 4, 8, null, 1e-12, 8, 2));
        Path config = dir.resolve("config.json");
        Files.writeString(config, "{\"model_type\": \"gpt2\"}");
        IOException io = assertThrows(IOException.class, () -> BertConfig.read(config));
        assertTrue(io.getMessage().contains("model_type 'gpt2' is not supported"), io.getMessage());
        Files.writeString(config, Files.readString(folder("tiny").resolve("config.json"))
                .replace("\"gelu\"", "\"swish\""));
        io = assertThrows(IOException.class, () -> BertConfig.read(config));
        assertTrue(io.getMessage().contains("hidden_act 'swish'"), io.getMessage());
    }

    @Test
    void inputLongerThanThePositionTableIsRefused() throws IOException {
        BertModel model = BertModel.load(SafeTensors.readCheckpoint(folder("tiny")).tensors(),
                BertConfig.read(folder("tiny").resolve("config.json")));
        Backend backend = Backends.load("ejml");
        try (Scope s = backend.newScope()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> model.forward(s, BertInput.pad(List.of(new int[13])), DType.F32));
            assertTrue(e.getMessage().contains("max_position_embeddings 12"), e.getMessage());
        }
    }

}
