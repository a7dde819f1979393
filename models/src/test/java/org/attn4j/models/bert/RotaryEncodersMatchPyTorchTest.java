package org.attn4j.models.bert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.models.embed.EmbeddingOptions;
import org.attn4j.models.embed.SentenceEmbedder;
import org.attn4j.models.embed.SentenceEmbedding;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rotary encoders against PyTorch float64 forwards of each family written out from its modeling code
 * ({@code generate_rotary_encoder_fixtures.py}), on every backend and dtype: F64 within 1e-10, F32 within 1e-4
 * (the weights are exact in F32; the error is F32 arithmetic through two or three layers).
 */
class RotaryEncodersMatchPyTorchTest {
    private static final double F32_TOLERANCE = 1e-4;
    private static final double F64_TOLERANCE = 1e-10;
    private static final int BATCH = 3;
    private static final int LENGTH = 7;
    /** The texts whose WordPiece ids are the fixture's {@code input_ids}. */
    private static final List<String> TEXTS = List.of("mat! theing house", "cat fish moon", "");

    static Stream<Arguments> cases() {
        return BertModelTest.targets().flatMap(t -> families().map(f -> Arguments.of(f, t.get()[0], t.get()[1])));
    }

    static Stream<String> families() {
        return Stream.of("tiny-nomic", "tiny-nomic-geglu", "tiny-modernbert", "tiny-gte");
    }

    static Encoder load(String family) throws IOException {
        Path dir = BertModelTest.folder(family);
        JsonNode config = new ObjectMapper().readTree(dir.resolve("config.json").toFile());
        return Encoder.load(config, dir.resolve("config.json").toString(), SafeTensors.readCheckpoint(dir).tensors());
    }

    private static StateDict stateDict(Encoder e) {
        if (e instanceof NomicBertModel n) {
            return n.stateDict();
        }
        if (e instanceof ModernBertModel m) {
            return m.stateDict();
        }
        return ((GteModel) e).stateDict();
    }

    static StateDict reference(String family) throws IOException {
        return SafeTensors.read(BertModelTest.folder(family).resolve("reference.safetensors")).tensors();
    }

    static BertInput input(StateDict reference) {
        return new BertInput(BATCH, LENGTH, ints(reference.get("input_ids")), ints(reference.get("token_type_ids")),
                ints(reference.get("attention_mask")));
    }

    private static int[] ints(HostTensor t) {
        return Arrays.stream(t.data()).mapToInt(v -> (int) v).toArray();
    }

    private static double tolerance(DType dtype) {
        return dtype == DType.F64 ? F64_TOLERANCE : F32_TOLERANCE;
    }

    /** Compares the rows {@code r} (of {@code width} values each) where {@code real[r % LENGTH... ]} holds. */
    private static void assertRowsClose(String what, double tolerance, double[] expected, double[] actual,
                                        boolean[] compared, int width) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (!compared[i / width]) {
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

    /** @return for each row of {@code [B, groups, L, width]}, whether its token {@code [b, l]} is real */
    private static boolean[] realRows(int[] mask, int groups) {
        boolean[] out = new boolean[BATCH * groups * LENGTH];
        for (int b = 0; b < BATCH; b++) {
            for (int g = 0; g < groups; g++) {
                for (int l = 0; l < LENGTH; l++) {
                    out[(b * groups + g) * LENGTH + l] = mask[b * LENGTH + l] == 1;
                }
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void lastHiddenStateAndAttentionWeightsMatchPyTorch(String family, Backend backend, DType dtype)
            throws IOException {
        StateDict ref = reference(family);
        BertInput in = input(ref);
        Encoder host = load(family);
        try (Parameters p = Parameters.on(backend, dtype); Scope s = backend.newScope()) {
            Encoder model = host.bind(p);
            String where = family + " on " + backend.name() + "/" + dtype;
            assertRowsClose("last_hidden_state of " + where, tolerance(dtype),
                    ref.get("last_hidden_state").data(), model.forward(s, in, dtype).toDoubleArray(),
                    realRows(in.attentionMask(), 1), host.hiddenSize());
            assertRowsClose("attentions[1] of " + where, tolerance(dtype), ref.get("attentions.1").data(),
                    model.attentionWeights(s, in, dtype, 1).toDoubleArray(),
                    realRows(in.attentionMask(), host.heads()), LENGTH);
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void eachPaddedRowEqualsTheSequenceRunAlone(String family, Backend backend, DType dtype) throws IOException {
        BertInput batch = input(reference(family));
        Encoder host = load(family);
        int d = host.hiddenSize();
        try (Parameters p = Parameters.on(backend, dtype); Scope s = backend.newScope()) {
            Encoder model = host.bind(p);
            double[] all = model.forward(s, batch, dtype).toDoubleArray();
            int[] ids = batch.inputIds();
            int[] mask = batch.attentionMask();
            for (int b = 0; b < BATCH; b++) {
                int n = (int) Arrays.stream(mask, b * LENGTH, (b + 1) * LENGTH).filter(m -> m == 1).count();
                double[] alone = model.forward(s, BertInput.pad(List.of(Arrays.copyOfRange(ids, b * LENGTH,
                        b * LENGTH + n))), dtype).toDoubleArray();
                boolean[] every = new boolean[n];
                Arrays.fill(every, true);
                assertRowsClose(family + " row " + b + " alone on " + backend.name() + "/" + dtype,
                        tolerance(dtype) / 10, Arrays.copyOfRange(all, b * LENGTH * d, (b * LENGTH + n) * d), alone,
                        every, d);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void theSentenceEmbedderMeanPoolsAndNormalisesTheHiddenStates(String family, Backend backend, DType dtype)
            throws IOException {
        StateDict ref = reference(family);
        BertInput in = input(ref);
        double[] hidden = ref.get("last_hidden_state").data();
        int[] ids = in.inputIds();
        int[] mask = in.attentionMask();
        try (SentenceEmbedder e = SentenceEmbedder.load(BertModelTest.folder(family), backend,
                EmbeddingOptions.defaults().withDType(dtype))) {
            int d = e.dimension();
            List<SentenceEmbedding> embeddings = e.embed(TEXTS);
            for (int b = 0; b < BATCH; b++) {
                int n = (int) Arrays.stream(mask, b * LENGTH, (b + 1) * LENGTH).filter(m -> m == 1).count();
                double[] mean = new double[d];
                for (int l = 0; l < n; l++) {
                    for (int j = 0; j < d; j++) {
                        mean[j] += hidden[(b * LENGTH + l) * d + j] / n;
                    }
                }
                double norm = Math.sqrt(Arrays.stream(mean).map(v -> v * v).sum());
                double[] expected = Arrays.stream(mean).map(v -> v / norm).toArray();
                SentenceEmbedding v = embeddings.get(b);
                assertEquals(Arrays.toString(Arrays.copyOfRange(ids, b * LENGTH, b * LENGTH + n)),
                        Arrays.toString(v.ids()), "the tokenizer's ids of " + TEXTS.get(b));
                double[] actual = new double[d];
                for (int j = 0; j < d; j++) {
                    actual[j] = v.vector()[j];
                }
                boolean[] all = {true};
                assertRowsClose(family + " sentence " + b + " on " + backend.name() + "/" + dtype,
                        Math.max(tolerance(dtype), 1e-6), expected, actual, all, d);
            }
        }
    }

    static Stream<Arguments> refusedKeys() {
        return Stream.of(
                Arguments.of("tiny-nomic", "prenorm", "true"),
                Arguments.of("tiny-nomic", "causal", "true"),
                Arguments.of("tiny-nomic", "use_rms_norm", "true"),
                Arguments.of("tiny-nomic", "rotary_emb_scale_base", "512"),
                Arguments.of("tiny-nomic", "rotary_scaling_factor", "2.0"),
                Arguments.of("tiny-nomic", "rotary_emb_fraction", "0.0"),
                Arguments.of("tiny-nomic", "activation_function", "\"glu\""),
                Arguments.of("tiny-nomic", "num_heads_kv", "2"),
                Arguments.of("tiny-nomic", "a_key_no_family_has", "1"),
                Arguments.of("tiny-modernbert", "hidden_activation", "\"gelu_fast\""),
                Arguments.of("tiny-modernbert", "layer_types", "[\"full_attention\"]"),
                Arguments.of("tiny-modernbert", "rope_parameters", "{\"rope_theta\": 10000}"),
                Arguments.of("tiny-modernbert", "rope_parameters",
                        "{\"full_attention\": {\"rope_type\": \"yarn\", \"rope_theta\": 160000.0}}"),
                Arguments.of("tiny-modernbert", "rope_parameters",
                        "{\"sliding_attention\": {\"rope_type\": \"default\", \"rope_theta\": 500.0}}"),
                Arguments.of("tiny-modernbert", "layer_types",
                        "[\"full_attention\", \"full_attention\", \"sliding_attention\"]"),
                Arguments.of("tiny-modernbert", "rope_scaling", "{\"rope_type\": \"linear\", \"factor\": 2.0}"),
                Arguments.of("tiny-modernbert", "norm_eps", "\"small\""),
                Arguments.of("tiny-modernbert", "a_key_no_family_has", "1"),
                Arguments.of("tiny-gte", "position_embedding_type", "\"absolute\""),
                Arguments.of("tiny-gte", "rope_scaling", "{\"type\": \"dynamic\", \"factor\": 2.0}"),
                Arguments.of("tiny-gte", "rope_scaling", "{\"type\": \"ntk\", \"factor\": 2.0, \"mixed_b\": 0.8}"),
                Arguments.of("tiny-gte", "layer_norm_type", "\"rms_norm\""),
                Arguments.of("tiny-gte", "logn_attention_scale", "true"),
                Arguments.of("tiny-gte", "pack_qkv", "false"),
                Arguments.of("tiny-gte", "hidden_act", "\"quick_gelu\""),
                Arguments.of("tiny-gte", "a_key_no_family_has", "1"),
                Arguments.of("tiny-gte", "hidden_size", "null"),
                Arguments.of("tiny-nomic", "n_embd", "\"wide\""));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("refusedKeys")
    void aKeyOrValueTheFamilyDoesNotImplementIsRefusedByName(String family, String key, String value)
            throws IOException {
        Path dir = BertModelTest.folder(family);
        ObjectMapper json = new ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode config =
                (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(dir.resolve("config.json").toFile());
        config.set(key, json.readTree(value));
        StateDict weights = SafeTensors.readCheckpoint(dir).tensors();
        IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                () -> Encoder.load(config, "config.json", weights));
        assertTrue(e.getMessage().startsWith("config.json: ")
                && java.util.regex.Pattern.compile("\\b" + key + "[ .]").matcher(e.getMessage()).find(),
                e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("families")
    void theStateDictGivesBackTheCheckpointsNamesAndValues(String family) throws IOException {
        StateDict file = SafeTensors.readCheckpoint(BertModelTest.folder(family)).tensors();
        StateDict back = stateDict(load(family));
        assertEquals(new java.util.TreeSet<>(file.names()), new java.util.TreeSet<>(back.names()));
        for (String name : file.names()) {
            assertTrue(Arrays.equals(file.get(name).data(), back.get(name).data()), name);
        }
    }

    @org.junit.jupiter.api.Test
    void modernBertReadsTheLayerTypesAndRopeParametersOfTransformers5AsTheOlderKeys() throws IOException {
        Path file = BertModelTest.folder("tiny-modernbert").resolve("config.json");
        ObjectMapper json = new ObjectMapper();
        JsonNode older = json.readTree(file.toFile());
        com.fasterxml.jackson.databind.node.ObjectNode newer =
                (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(file.toFile());
        newer.remove(List.of("global_attn_every_n_layers", "global_rope_theta", "local_rope_theta"));
        newer.set("layer_types", json.readTree("[\"full_attention\", \"sliding_attention\", \"sliding_attention\"]"));
        newer.set("rope_parameters", json.readTree("{\"full_attention\": {\"rope_type\": \"default\", "
                + "\"rope_theta\": 160000.0}, \"sliding_attention\": {\"rope_type\": \"default\", "
                + "\"rope_theta\": 10000.0}}"));
        ModernBertConfig expected = ModernBertConfig.of(older, "older");
        assertEquals(expected, ModernBertConfig.of(newer, "newer"));
        assertEquals(List.of(false, true, true), List.of(expected.isLocal(0), expected.isLocal(1),
                expected.isLocal(2)));
    }

    @org.junit.jupiter.api.Test
    void modernBertLoadsAMaskedLanguageCheckpointUnderModelAndNamesAStrayName() throws IOException {
        Path dir = BertModelTest.folder("tiny-modernbert");
        ModernBertConfig config = ModernBertConfig.of(new ObjectMapper().readTree(dir.resolve("config.json").toFile()),
                "config.json");
        StateDict plain = SafeTensors.readCheckpoint(dir).tensors();
        StateDict masked = plain.prefixed("model.").with("head.dense.weight", HostTensor.of(new float[32 * 32], 32, 32))
                .with("decoder.bias", HostTensor.of(new float[40], 40));
        assertEquals(new java.util.TreeSet<>(plain.names()),
                new java.util.TreeSet<>(ModernBertModel.load(masked, config).stateDict().names()));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ModernBertModel.load(masked.with("classifier.weight", HostTensor.of(new float[32], 1, 32)),
                        config));
        assertTrue(e.getMessage().contains("classifier.weight"), e.getMessage());
        org.attn4j.models.parameters.StateDictException missing = org.junit.jupiter.api.Assertions.assertThrows(
                org.attn4j.models.parameters.StateDictException.class, () -> ModernBertModel.load(
                        plain.with("layers.0.attn_norm.weight", HostTensor.of(new float[32], 32)), config));
        assertEquals(List.of("layers.0.attn_norm.weight"), missing.unexpected());
    }
}
