package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.DecoderGoldens;
import org.attn4j.models.generate.GenerationOptions;
import org.attn4j.models.generate.Generator;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.io.GgufWriter;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.QuantMix;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.parameters.WeightCensus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decoders read from GGUF files written as llama.cpp's converter writes them ({@link GgufCheckpoints}): the PyTorch
 * goldens of every architecture (llama with Llama 3.x's {@code rope_freqs}, qwen2 with yarn, qwen3, gemma, gemma2,
 * gemma3, phi3 with LongRoPE, gpt2) give the torch logits and greedy ids; random decoders of each family in every storage
 * type give the logits and greedy ids of their Hugging Face folders holding the dequantized values; each kind of RoPE
 * scaling a file carries becomes the family's; keys and tensors attn4j does not honour are refused by name.
 */
class GgufDecoderTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int[] PROMPT = {5, 17, 3, 42, 8, 1, 60, 33};
    private static final String[] ARCHITECTURES = {"llama", "qwen2", "qwen3", "gemma", "gemma2", "gemma3", "phi3",
        "gpt2"};

    @TempDir
    Path dir;

    static Stream<Arguments> goldens() {
        return DecoderGoldens.across().filter(a -> GgufCheckpoints.lost(
                ((DecoderGoldens.Decoder) a.get()[1]).config()).isEmpty());
    }

    @Test
    void everyArchitectureHasGoldensAGgufFileHoldsWhole() {
        Set<String> held = new TreeSet<>();
        for (DecoderGoldens.Decoder d : DecoderGoldens.all()) {
            if (GgufCheckpoints.lost(d.config()).isEmpty()) {
                held.add(arch(d.config()));
            }
        }
        assertEquals(new TreeSet<>(Arrays.asList(ARCHITECTURES)), held);
    }

    private static String arch(Map<String, ?> config) {
        Object type = config.get("model_type");
        return type.equals("mistral") ? "llama" : type.toString().startsWith("gemma3") ? "gemma3" : type.toString();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("goldens")
    void goldenDecodersFromGgufGiveTheTorchLogitsAndGreedyIds(DecoderGoldens.Target t, DecoderGoldens.Decoder d)
            throws IOException {
        Path file = dir.resolve(d.name() + ".gguf");
        GgufCheckpoints.fromHuggingFace(d.config(), d.parameters(), t.dtype() == DType.F64 ? WeightType.F64
                : WeightType.F32).write(file);
        try (CausalLM model = CausalLM.load(file, t.backend(), t.dtype());
             KvCache cache = model.newCache(1, d.prompt().length);
             Scope scope = t.backend().newScope()) {
            assertEquals(DecoderConfig.of(d.config(), d.name()).type(), model.config().type());
            t.assertClose(d.name() + " logits from GGUF", d.logits().data(),
                    model.forward(scope, new int[][] {d.prompt()}, cache).toDoubleArray());
        }
        try (CausalLM model = CausalLM.load(file, t.backend(), t.dtype())) {
            int[] greedy = Generator.generate(model, d.prompt(), GenerationOptions.defaults()
                    .withMaxNewTokens(d.generated().length), id -> { });
            assertArrayEquals(d.generated(), greedy, d.name() + " greedy ids from GGUF");
        }
    }

    /** Tiny configs of each family, the shapes of their checkpoints' keys, every matrix's input a multiple of 32. */
    private static final Map<String, String> TINY = Map.ofEntries(
            Map.entry("llama", "{\"model_type\":\"llama\",\"vocab_size\":96,\"hidden_size\":64,\"num_hidden_layers\":2,"
                    + "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"intermediate_size\":96,"
                    + "\"rms_norm_eps\":1e-5,\"max_position_embeddings\":64,\"rope_theta\":10000.0}"),
            Map.entry("llama_biases", "{\"model_type\":\"llama\",\"vocab_size\":96,\"hidden_size\":64,"
                    + "\"num_hidden_layers\":2,\"num_attention_heads\":4,\"num_key_value_heads\":2,"
                    + "\"intermediate_size\":96,\"rms_norm_eps\":1e-5,\"max_position_embeddings\":64,"
                    + "\"rope_theta\":500000.0,\"attention_bias\":true,\"mlp_bias\":true,\"tie_word_embeddings\":true}"),
            Map.entry("qwen2", "{\"model_type\":\"qwen2\",\"vocab_size\":96,\"hidden_size\":64,\"num_hidden_layers\":2,"
                    + "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"intermediate_size\":96,"
                    + "\"rms_norm_eps\":1e-6,\"max_position_embeddings\":64,\"rope_theta\":1000000.0,"
                    + "\"rope_scaling\":{\"type\":\"yarn\",\"factor\":4.0,\"original_max_position_embeddings\":16},"
                    + "\"use_sliding_window\":false,\"tie_word_embeddings\":true}"),
            Map.entry("qwen3", "{\"model_type\":\"qwen3\",\"vocab_size\":96,\"hidden_size\":64,\"num_hidden_layers\":2,"
                    + "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"head_dim\":32,\"intermediate_size\":96,"
                    + "\"rms_norm_eps\":1e-6,\"max_position_embeddings\":64,\"rope_theta\":1000000.0,"
                    + "\"attention_bias\":false,\"tie_word_embeddings\":false}"),
            Map.entry("gemma", "{\"model_type\":\"gemma\",\"vocab_size\":96,\"hidden_size\":64,\"num_hidden_layers\":2,"
                    + "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"head_dim\":32,\"intermediate_size\":96,"
                    + "\"rms_norm_eps\":1e-6,\"max_position_embeddings\":64,\"rope_theta\":10000.0,"
                    + "\"hidden_activation\":\"gelu_pytorch_tanh\"}"),
            Map.entry("gemma2", "{\"model_type\":\"gemma2\",\"vocab_size\":96,\"hidden_size\":64,"
                    + "\"num_hidden_layers\":2,\"num_attention_heads\":4,\"num_key_value_heads\":2,\"head_dim\":32,"
                    + "\"intermediate_size\":96,\"rms_norm_eps\":1e-6,\"max_position_embeddings\":64,"
                    + "\"query_pre_attn_scalar\":32,\"sliding_window\":4,\"attn_logit_softcapping\":5.0,"
                    + "\"final_logit_softcapping\":3.0,\"hidden_activation\":\"gelu_pytorch_tanh\"}"),
            Map.entry("gemma3", "{\"model_type\":\"gemma3_text\",\"vocab_size\":96,\"hidden_size\":64,"
                    + "\"num_hidden_layers\":7,\"num_attention_heads\":4,\"num_key_value_heads\":1,\"head_dim\":32,"
                    + "\"intermediate_size\":96,\"rms_norm_eps\":1e-6,\"max_position_embeddings\":64,"
                    + "\"query_pre_attn_scalar\":32,\"sliding_window\":3,\"sliding_window_pattern\":6,"
                    + "\"rope_theta\":1000000.0,\"rope_local_base_freq\":10000.0,"
                    + "\"rope_scaling\":{\"rope_type\":\"linear\",\"factor\":8.0},"
                    + "\"hidden_activation\":\"gelu_pytorch_tanh\"}"),
            Map.entry("phi3", "{\"model_type\":\"phi3\",\"vocab_size\":96,\"hidden_size\":64,\"num_hidden_layers\":2,"
                    + "\"num_attention_heads\":4,\"num_key_value_heads\":4,\"intermediate_size\":96,"
                    + "\"rms_norm_eps\":1e-5,\"max_position_embeddings\":64,\"original_max_position_embeddings\":8,"
                    + "\"partial_rotary_factor\":0.5,\"rope_theta\":10000.0,\"rope_scaling\":{\"type\":\"longrope\","
                    + "\"long_factor\":[1.0,2.0,4.0,8.0],\"short_factor\":[1.0,1.1,1.2,1.5]},\"sliding_window\":6}"),
            Map.entry("gpt2", "{\"model_type\":\"gpt2\",\"vocab_size\":96,\"n_embd\":64,\"n_layer\":2,\"n_head\":4,"
                    + "\"n_positions\":32,\"layer_norm_epsilon\":1e-5}"));

    static Stream<Arguments> storage() {
        Stream<Arguments> all = Stream.of(WeightType.F32, WeightType.F16, WeightType.BF16, WeightType.Q8_0,
                WeightType.Q4_0).flatMap(w -> Stream.of(Arguments.of("llama", w), Arguments.of("gpt2", w)));
        return Stream.concat(all, Stream.of(Arguments.of("llama_biases", WeightType.Q8_0),
                Arguments.of("qwen2", WeightType.BF16), Arguments.of("qwen3", WeightType.Q4_0),
                Arguments.of("gemma", WeightType.F16), Arguments.of("gemma2", WeightType.Q8_0),
                Arguments.of("gemma3", WeightType.Q4_0),
                Arguments.of("phi3", WeightType.Q8_0)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storage")
    void eachStorageTypeDecodesAsItsHuggingFaceFolderOfDequantizedValues(String name, WeightType type)
            throws IOException {
        String json = TINY.get(name);
        DecoderConfig config = config(json);
        StateDict hf = name.equals("gpt2") ? GgufCheckpoints.randomGpt2(config, type, 12)
                : GgufCheckpoints.randomDecoder(config, type, 11);
        Path folder = Files.createDirectories(dir.resolve(name + "-" + type));
        SafeTensors.write(folder.resolve("model.safetensors"), hf, DType.F32, Map.of());
        Files.writeString(folder.resolve("config.json"), json);
        Path file = dir.resolve(name + "-" + type + ".gguf");
        GgufCheckpoints.fromHuggingFace(map(json), hf, type).write(file);
        Gguf.Contents gguf = Gguf.read(file);
        assertEquals(type, gguf.tensors().get("token_embd.weight").type(), "matrices keep the file's type");
        Backend backend = Backends.load("ejml");
        try (CausalLM fromFolder = CausalLM.load(folder, backend, DType.F32);
             CausalLM fromGguf = CausalLM.load(gguf, backend, DType.F32, null);
             KvCache a = fromFolder.newCache(1, PROMPT.length);
             KvCache b = fromGguf.newCache(1, PROMPT.length);
             Scope scope = backend.newScope()) {
            assertEquals(fromFolder.config().toString(), fromGguf.config().toString());
            double[] expected = fromFolder.forward(scope, new int[][] {PROMPT}, a).toDoubleArray();
            double[] actual = fromGguf.forward(scope, new int[][] {PROMPT}, b).toDoubleArray();
            assertClose(name + " " + type, expected, actual, type == WeightType.F32 ? 1e-5 : 2e-4);
            GenerationOptions greedy = GenerationOptions.defaults().withMaxNewTokens(16);
            assertArrayEquals(Generator.generate(fromFolder, PROMPT, greedy, id -> { }),
                    Generator.generate(fromGguf, PROMPT, greedy, id -> { }), name + " " + type + " greedy ids");
        }
    }

    private static void assertClose(String what, double[] expected, double[] actual, double tol) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            double abs = Math.abs(actual[i] - expected[i]);
            if (!(abs <= tol + tol * Math.abs(expected[i]))) {
                throw new AssertionError(what + ": index " + i + " expected " + expected[i] + " actual " + actual[i]
                        + " abs error " + abs + " rel error " + abs / Math.abs(expected[i]));
            }
        }
    }

    @Test
    void theConvertersPermutationIsUndoneRowForRow() {
        float[] v = new float[8 * 3];
        for (int i = 0; i < v.length; i++) {
            v[i] = i;
        }
        HostTensor w = HostTensor.of(v, 8, 3);
        HostTensor permuted = GgufCheckpoints.permute(w, 2);
        assertArrayEquals(new float[] {0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11}, Arrays.copyOf(
                permuted.toFloatArray(), 12), "head 0: rows 0, 2, 1, 3");
        assertEquals(w, GgufDecoder.unpermute("q", permuted, 2, 4));
        HostTensor bias = HostTensor.of(new float[] {0, 1, 2, 3, 4, 5, 6, 7}, 8);
        assertArrayEquals(new float[] {0, 2, 1, 3, 4, 6, 5, 7}, GgufCheckpoints.permute(bias, 2).toFloatArray(),
                "a bias moves as the rows do");
        assertEquals(bias, GgufDecoder.unpermute("q bias", GgufCheckpoints.permute(bias, 2), 2, 4));
        float[] wide = new float[8 * 32];
        for (int i = 0; i < wide.length; i++) {
            wide[i] = (float) Math.sin(i);
        }
        HostTensor q8 = GgufCheckpoints.convert(HostTensor.of(wide, 8, 32), WeightType.Q8_0);
        HostTensor back = GgufDecoder.unpermute("k", GgufCheckpoints.convert(GgufCheckpoints.permute(q8, 2),
                WeightType.Q8_0), 2, 4);
        assertEquals(WeightType.Q8_0, back.type(), "rows move whole, in their storage type");
        assertEquals(q8, back);
    }

    /** @return the tiny {@code name} written as llama.cpp's converter writes it */
    private GgufWriter tiny(String name) {
        String json = TINY.get(name);
        DecoderConfig config = config(json);
        return GgufCheckpoints.fromHuggingFace(map(json), name.equals("gpt2")
                ? GgufCheckpoints.randomGpt2(config, WeightType.F32, 3)
                : GgufCheckpoints.randomDecoder(config, WeightType.F32, 3), WeightType.F32);
    }

    private static String refusal(GgufWriter w) throws IOException {
        Gguf.Contents g = Gguf.read(w.toBytes());
        return assertThrows(IllegalArgumentException.class,
                () -> CausalLM.load(g, Backends.load("ejml"), DType.F32, null)).getMessage();
    }

    private static DecoderConfig read(GgufWriter w) throws IOException {
        return GgufDecoder.read(Gguf.read(w.toBytes())).config();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({"llama, llama.attention.logit_softcapping", "llama, llama.rope.scaling.yarn_log_multiplier",
        "llama, custom.key", "llama, llama.attention.layer_norm_epsilon", "qwen2, qwen2.attention.sliding_window",
        "qwen2, qwen2.pooling_type", "qwen3, qwen3.attention.scale", "gemma, gemma.attn_logit_softcapping",
        "gemma2, gemma2.attention.scale", "gemma2, gemma2.rope.dimension_count_swa",
        "gemma3, gemma3.attention.sliding_window_pattern", "gemma3, gemma3.rope.freq_base_swa",
        "gemma3, gemma3.attn_logit_softcapping",
        "phi3, phi3.rope.scaling.alpha", "phi3, phi3.attention.key_length_swa", "gpt2, gpt2.rope.freq_base"})
    void aKeyThatIsNotHonouredIsRefusedByName(String arch, String key) throws IOException {
        String message = refusal(tiny(arch).uint32(key, 2));
        assertTrue(message.contains(key) && message.contains("refused"), message);
    }

    @Test
    void aMalformedBlockIsRefusedWithTheTensorsName() throws IOException {
        String json = TINY.get("llama");
        DecoderConfig config = config(json);
        Map<String, HostTensor> state = new LinkedHashMap<>(
                GgufCheckpoints.randomDecoder(config, WeightType.Q4_1, 3).asMap());
        String name = "model.layers.1.mlp.down_proj.weight";
        HostTensor down = state.get(name);
        ByteBuffer bytes = WeightType.Q4_1.encode(down.toFloatArray(), down.shape())
                .order(ByteOrder.LITTLE_ENDIAN);
        bytes.putShort(20 + 2, (short) 0x7e00);
        state.put(name, HostTensor.wrap(down.shape(), WeightType.Q4_1, bytes));
        String message = refusal(GgufCheckpoints.fromHuggingFace(map(json), StateDict.of(state), WeightType.Q4_1));
        assertTrue(message.contains(name) && message.contains("Q4_1")
                && message.contains("block 1 of row 0") && message.contains("NaN"), message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama", "qwen2", "qwen3", "gemma", "gemma2", "gemma3", "phi3"})
    void anUnknownTensorIsRefusedByName(String arch) throws IOException {
        String message = refusal(tiny(arch).tensor("blk.0.attn_gate.weight", HostTensor.of(new float[64 * 64], 64,
                64)));
        assertTrue(message.contains("blk.0.attn_gate.weight") && message.contains("refused"), message);
    }

    @ParameterizedTest
    @CsvSource({"qwen2, rope_freqs.weight", "gemma, output.weight", "gemma2, blk.0.attn_q_norm.weight",
        "qwen2, blk.1.attn_output.bias", "phi3, blk.0.attn_qkv.bias", "phi3, blk.1.ffn_gate.weight",
        "qwen3, blk.0.ffn_up.bias", "gemma, blk.0.post_ffw_norm.weight", "llama, blk.0.attn_norm.bias",
        "gemma3, output.weight", "gemma3, blk.0.attn_q_norm.bias"})
    void aTensorTheArchitectureDoesNotHaveIsRefusedByName(String arch, String tensor) throws IOException {
        HostTensor t = tensor.endsWith(".weight") && !tensor.contains("norm") && !tensor.startsWith("rope")
                ? HostTensor.of(new float[96 * 64], 96, 64) : HostTensor.of(new float[64], 64);
        String message = refusal(tiny(arch).tensor(tensor, t));
        assertTrue(message.contains(tensor), message);
    }

    @Test
    void aPartialRotaryOrOtherHeadSizeIsRefusedOutsidePhi3() throws IOException {
        String message = refusal(tiny("llama").uint32("llama.rope.dimension_count", 8));
        assertTrue(message.contains("llama.rope.dimension_count is 8"), message);
        message = refusal(tiny("qwen3").uint32("qwen3.rope.dimension_count", 16));
        assertTrue(message.contains("qwen3.rope.dimension_count is 16"), message);
        message = refusal(tiny("gemma").uint32("gemma.attention.value_length", 16));
        assertTrue(message.contains("gemma.attention.value_length 16 differs"), message);
    }

    /** A family config's rotary embedding at a sequence length, as frequencies and the attention scaling. */
    private static double[] rotary(DecoderConfig c, int layer, int length) {
        RotaryEmbedding r = c.rope(layer).at(length);
        double[] f = r.inverseFrequencies();
        double[] out = Arrays.copyOf(f, f.length + 1);
        out[f.length] = r.attentionScaling();
        return out;
    }

    private static Map<String, Object> with(String json, String key, Object value) {
        Map<String, Object> m = new LinkedHashMap<>(map(json));
        m.put(key, value);
        return m;
    }

    @Test
    void ropeScalingOfEveryKindLlamaCppWritesBecomesTheFamilysOwn() throws IOException {
        Map<String, Object> linear = with(TINY.get("llama"), "rope_scaling", Map.of("type", "linear", "factor", 4.0));
        Map<String, Object> yarn = with(TINY.get("qwen2"), "rope_scaling", Map.of("rope_type", "yarn", "factor", 8.0,
                "original_max_position_embeddings", 8, "beta_fast", 16.0, "beta_slow", 2.0, "attention_factor", 1.25));
        Map<String, Object> llama3 = with(TINY.get("llama"), "rope_scaling", Map.of("rope_type", "llama3", "factor",
                8.0, "low_freq_factor", 1.0, "high_freq_factor", 4.0, "original_max_position_embeddings", 16));
        for (Map<String, Object> hf : java.util.List.of(linear, yarn, llama3, map(TINY.get("phi3")))) {
            DecoderConfig expected = DecoderConfig.of(hf, "hf");
            DecoderConfig c = read(GgufCheckpoints.fromHuggingFace(hf, GgufCheckpoints.randomDecoder(expected,
                    WeightType.F32, 5), WeightType.F64));
            for (int length : new int[] {4, 8, 9, 64}) {
                assertClose(hf.get("model_type") + " " + hf.get("rope_scaling") + " at " + length,
                        rotary(expected, 0, length), rotary(c, 0, length), 1e-14);
            }
            assertEquals(expected.recomputeBeyond(), c.recomputeBeyond());
        }
        Gguf.Contents file = Gguf.read(GgufCheckpoints.fromHuggingFace(yarn, GgufCheckpoints.randomDecoder(
                DecoderConfig.of(yarn, "hf"), WeightType.F32, 5), WeightType.F32).toBytes());
        assertEquals("yarn", file.string("qwen2.rope.scaling.type"));
        assertEquals(16.0, file.number("qwen2.rope.scaling.yarn_beta_fast"));
        GgufWriter oldKey = tiny("llama").float32("llama.rope.scale_linear", 4f);
        assertClose("rope.scale_linear", rotary(DecoderConfig.of(linear, "hf"), 0, 8), rotary(read(oldKey), 0, 8),
                1e-14);
    }

    @Test
    void ropeScalingThatCannotBeHonouredIsRefused() throws IOException {
        assertTrue(refusal(tiny("llama").string("llama.rope.scaling.type", "dynamic"))
                .contains("llama.rope.scaling.type dynamic is not supported"));
        assertTrue(refusal(tiny("qwen2").float32("qwen2.rope.scaling.yarn_ext_factor", 0.5f))
                .contains("qwen2.rope.scaling.yarn_ext_factor is 0.5"));
        assertTrue(refusal(tiny("llama").string("llama.rope.scaling.type", "longrope"))
                .contains("rope_factors_long.weight"));
        assertTrue(refusal(tiny("llama").float32("llama.rope.scaling.attn_factor", 1.5f))
                .contains("llama.rope.scaling.attn_factor is 1.5"));
        assertTrue(refusal(tiny("llama").float32("llama.rope.scaling.yarn_beta_fast", 16f))
                .contains("not yarn"));
        assertTrue(refusal(tiny("llama").tensor("rope_freqs.weight", HostTensor.of(new float[] {1, 2, 3, 4,
            5, 6, 7, 8}, 8)).string("llama.rope.scaling.type", "yarn").float32("llama.rope.scaling.factor", 2f))
                .contains("rope_freqs.weight"));
        assertTrue(refusal(tiny("llama").tensor("rope_freqs.weight", HostTensor.of(new float[4], 4)))
                .contains("rope_freqs.weight has shape [4], expected [8]"));
        GgufWriter badFactors = new GgufWriter();
        Gguf.Contents phi = Gguf.read(tiny("phi3").toBytes());
        phi.metadata().forEach(badFactors::put);
        for (String name : phi.tensors().names()) {
            badFactors.tensor(name, name.equals("rope_factors_long.weight") ? HostTensor.of(new float[] {1, 2, 0, 4},
                    4) : phi.tensors().get(name));
        }
        assertTrue(refusal(badFactors).contains("rope_factors_long.weight holds 0.0 at 2"));
    }

    @Test
    void gemmaNormsLoseTheConvertersPlusOneAndGemma2DerivesItsLayersAsLlamaCppDoes() throws IOException {
        Gguf.Contents g = Gguf.read(tiny("gemma").toBytes());
        StateDict state = GgufDecoder.read(g).state();
        assertEquals(g.tensors().get("blk.0.attn_norm.weight").get(3) - 1.0,
                state.get("model.layers.0.input_layernorm.weight").get(3), 0.0);
        assertEquals(g.tensors().get("output_norm.weight").get(5) - 1.0, state.get("model.norm.weight").get(5), 0.0);
        DecoderConfig gemma2 = read(tiny("gemma2"));
        assertEquals(4, gemma2.window(0));
        assertEquals(0, gemma2.window(1));
        assertEquals(Math.pow(32, -0.5), gemma2.attentionScale(0), 0.0);
        DecoderConfig pattern = read(tiny("gemma2").uint32("gemma2.attention.sliding_window_pattern", 0)
                .uint32("gemma2.attention.sliding_window", 7).float32("gemma2.rope.freq_base_swa", 100f));
        assertEquals(7, pattern.window(0));
        assertEquals(7, pattern.window(1), "a pattern of 0 makes every layer local");
        assertEquals(100.0, pattern.rope(0).base());
        assertEquals(10000.0, read(tiny("gemma2").float32("gemma2.rope.freq_base_swa", 100f)).rope(1).base());
        assertTrue(refusal(tiny("gemma2").float32("gemma2.final_logit_softcapping", 0f))
                .contains("gemma2.final_logit_softcapping is 0.0"));
    }

    @Test
    void gemma3DerivesFiveLocalLayersToOneGlobalAndTheirRotaryBasesAsLlamaCppDoes() throws IOException {
        Gguf.Contents g = Gguf.read(tiny("gemma3").toBytes());
        StateDict state = GgufDecoder.read(g).state();
        assertEquals(g.tensors().get("blk.1.attn_q_norm.weight").get(3) - 1.0,
                state.get("model.layers.1.self_attn.q_norm.weight").get(3), 0.0, "per-head norms lose the + 1 too");
        assertEquals(g.tensors().get("blk.1.post_ffw_norm.weight").get(2) - 1.0,
                state.get("model.layers.1.post_feedforward_layernorm.weight").get(2), 0.0);
        DecoderConfig c = read(tiny("gemma3"));
        assertEquals(DecoderConfig.Type.GEMMA3, c.type());
        for (int layer = 0; layer < c.layers(); layer++) {
            boolean global = layer == 5;
            assertEquals(global ? 0 : 3, c.window(layer), "window of layer " + layer);
            assertEquals(global ? 1e6 : 1e4, c.rope(layer).base(), 1e-9, "rotary base of layer " + layer);
            assertEquals(global ? "linear" : "default", c.rope(layer).kind(), "rope of layer " + layer);
        }
        assertEquals(Math.pow(32, -0.5), c.attentionScale(0), 0.0);
        assertEquals(0.0, c.finalSoftcap());
        assertEquals(0.0, c.attentionSoftcap());
        assertEquals(7.5, read(tiny("gemma3").float32("gemma3.final_logit_softcapping", 7.5f)).finalSoftcap());
        DecoderConfig noWindow = read(tiny("gemma3").uint32("gemma3.attention.sliding_window", 0));
        for (int layer = 0; layer < noWindow.layers(); layer++) {
            assertEquals(0, noWindow.window(layer));
            assertEquals("linear", noWindow.rope(layer).kind(), "without a window every layer is global");
        }
        assertTrue(refusal(tiny("gemma3").float32("gemma3.final_logit_softcapping", -1f))
                .contains("gemma3.final_logit_softcapping is -1.0"));
    }

    @Test
    void gemma3Of62BlocksScalesQueriesByHiddenOverHeadsAsLlamaCppDoes() throws IOException {
        Map<String, Object> hf = new LinkedHashMap<>(map(TINY.get("gemma3")));
        hf.put("num_hidden_layers", 62);
        hf.put("hidden_size", 32);
        hf.put("intermediate_size", 32);
        hf.put("head_dim", 16);
        hf.put("num_attention_heads", 4);
        hf.put("query_pre_attn_scalar", 8);
        DecoderConfig c = DecoderConfig.of(hf, "hf");
        assertTrue(GgufCheckpoints.lost(hf).isEmpty(), GgufCheckpoints.lost(hf).toString());
        DecoderConfig fromGguf = read(GgufCheckpoints.fromHuggingFace(hf, GgufCheckpoints.randomDecoder(c,
                WeightType.F32, 5), WeightType.F32));
        assertEquals(c.attentionScale(0), fromGguf.attentionScale(0), 0.0);
        assertEquals(Math.pow(8, -0.5), fromGguf.attentionScale(0), 0.0);
    }

    @Test
    void gemma2Of46BlocksScalesQueriesByHiddenOverHeadsAsTheConverterLeavesToLlamaCpp() throws IOException {
        Map<String, Object> hf = new LinkedHashMap<>(map(TINY.get("gemma2")));
        hf.put("num_hidden_layers", 46);
        hf.put("hidden_size", 32);
        hf.put("intermediate_size", 32);
        hf.put("head_dim", 16);
        hf.put("num_attention_heads", 4);
        hf.put("query_pre_attn_scalar", 8);
        DecoderConfig c = DecoderConfig.of(hf, "hf");
        assertTrue(GgufCheckpoints.lost(hf).isEmpty(), GgufCheckpoints.lost(hf).toString());
        DecoderConfig fromGguf = read(GgufCheckpoints.fromHuggingFace(hf, GgufCheckpoints.randomDecoder(c,
                WeightType.F32, 1), WeightType.F32));
        assertEquals(Math.pow(8, -0.5), fromGguf.attentionScale(0), 1e-15);
        assertEquals(46, fromGguf.layers());
    }

    @Test
    void aWindowedLlamaIsMistralAndPhi3KeepsItsWindow() throws IOException {
        DecoderConfig mistral = read(tiny("llama").uint32("llama.attention.sliding_window", 5));
        assertEquals(DecoderConfig.Type.MISTRAL, mistral.type());
        assertEquals(5, mistral.window(1));
        assertEquals(DecoderConfig.Type.LLAMA, read(tiny("llama").uint32("llama.attention.sliding_window", 0))
                .type());
        DecoderConfig phi3 = read(tiny("phi3"));
        assertEquals(6, phi3.window(0));
        assertEquals(8, phi3.rope(0).dimension());
        assertEquals(8, phi3.recomputeBeyond());
    }

    @Test
    void phi3WithSeparateProjectionsStacksThem() throws IOException {
        Gguf.Contents fused = Gguf.read(tiny("phi3").toBytes());
        GgufWriter split = new GgufWriter();
        fused.metadata().forEach(split::put);
        for (String name : fused.tensors().names()) {
            HostTensor t = fused.tensors().get(name);
            if (name.endsWith("attn_qkv.weight")) {
                String b = name.substring(0, name.length() - "qkv.weight".length());
                split.tensor(b + "q.weight", t.rows(0, 64)).tensor(b + "k.weight", t.rows(64, 128))
                        .tensor(b + "v.weight", t.rows(128, 192));
            } else {
                split.tensor(name, t);
            }
        }
        assertEquals(GgufDecoder.read(fused).state(), GgufDecoder.read(Gguf.read(split.toBytes())).state());
    }

    /**
     * Every {@code <arch>.*} key of each tiny file removed, or replaced by hostile values of every kind, and every
     * tensor removed: the mapping either reads a decoder or refuses with a message; nothing else escapes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"llama", "qwen2", "qwen3", "gemma", "gemma2", "phi3", "gpt2"})
    void mutatedMetadataAndTensorsAreReadOrRefusedWithAMessage(String arch) throws IOException {
        Gguf.Contents file = Gguf.read(tiny(arch).toBytes());
        java.util.List<Gguf.Value> hostile = java.util.List.of(new Gguf.Value(Gguf.ValueType.UINT32, null, 0L),
                new Gguf.Value(Gguf.ValueType.INT32, null, -1L), new Gguf.Value(Gguf.ValueType.UINT64, null,
                        Long.MAX_VALUE), new Gguf.Value(Gguf.ValueType.FLOAT32, null, Float.NaN),
                new Gguf.Value(Gguf.ValueType.FLOAT32, null, -3.5f), new Gguf.Value(Gguf.ValueType.STRING, null, "x"),
                new Gguf.Value(Gguf.ValueType.BOOL, null, true), new Gguf.Value(Gguf.ValueType.ARRAY,
                        Gguf.ValueType.INT32, new long[] {1, 2}));
        int read = 0;
        int refused = 0;
        for (String key : file.metadata().keySet()) {
            if (!key.startsWith(arch + ".")) {
                continue;
            }
            java.util.List<Gguf.Value> values = new java.util.ArrayList<>(hostile);
            values.add(null);
            for (Gguf.Value v : values) {
                Map<String, Gguf.Value> metadata = new LinkedHashMap<>(file.metadata());
                if (v == null) {
                    metadata.remove(key);
                } else {
                    metadata.put(key, v);
                }
                if (outcome(key + " = " + v, new Gguf.Contents(file.version(), file.alignment(), metadata,
                        file.infos(), file.tensors()))) {
                    read++;
                } else {
                    refused++;
                }
            }
        }
        for (String name : file.tensors().names()) {
            Map<String, HostTensor> fewer = new LinkedHashMap<>(file.tensors().asMap());
            fewer.remove(name);
            if (outcome("without " + name, new Gguf.Contents(file.version(), file.alignment(), file.metadata(),
                    file.infos(), StateDict.of(fewer)))) {
                read++;
            } else {
                refused++;
            }
        }
        assertTrue(refused > read, read + " read, " + refused + " refused");
    }

    /** @return true if the file maps to a decoder whose parameters bind, false if refused with a message */
    private static boolean outcome(String what, Gguf.Contents g) {
        try {
            CausalLM.load(g, Backends.load("ejml"), DType.F32, null).close();
            return true;
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), what);
            return false;
        } catch (RuntimeException e) {
            throw new AssertionError(what + ": " + e, e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"gemma3n", "falcon", "mistral3", "qwen2moe"})
    void otherArchitecturesAreRefusedByName(String arch) throws IOException {
        String message = refusal(new GgufWriter().string("general.architecture", arch));
        assertTrue(message.contains("general.architecture " + arch) && message.contains("supported: llama, qwen2,"
                + " qwen3, gemma, gemma2, gemma3, phi3, gpt2"), message);
    }

    @Test
    void aSplitModelIsRefused() throws IOException {
        String message = refusal(tiny("llama").put("split.count", new Gguf.Value(Gguf.ValueType.UINT16, null, 2L)));
        assertTrue(message.contains("split.count = 2"), message);
    }

    @Test
    void storageCanBeChosenAtLoad() throws IOException {
        Gguf.Contents g = Gguf.read(tiny("qwen3").toBytes());
        try (CausalLM model = CausalLM.load(g, Backends.load("ejml"), DType.F32, WeightType.Q8_0);
             KvCache cache = model.newCache(1, 4); Scope scope = model.backend().newScope()) {
            assertEquals(Shape.of(1, 3, 96), model.forward(scope, new int[][] {{1, 2, 3}}, cache).shape());
        }
    }

    @Test
    void aMixQuantizesEachMatrixToTheTypeLlamaCppChoosesAndTheCensusCountsThem() throws IOException {
        // hidden 64 and intermediate 96 divide into no K-type block: Q4_K falls back to Q5_0, Q6_K to Q8_0; the
        // output takes Q8_0; of 2 layers only the last gets more bits (its attn_v and ffn_down)
        Path file = dir.resolve("llama.gguf");
        tiny("llama").write(file);
        Gguf.Contents g = Gguf.read(file);
        try (CausalLM model = CausalLM.loadReleasing(g, Backends.load("ejml"), DType.F32, null, QuantMix.Q4_K_M);
             KvCache cache = model.newCache(1, 4); Scope scope = model.backend().newScope()) {
            WeightCensus census = model.census();
            assertEquals("Q4_K_M", census.name());
            assertEquals(Map.of(WeightType.Q5_0, 13, WeightType.Q8_0, 3, WeightType.F32, 5), census.counts());
            long matrices = WeightType.Q5_0.byteSize(Shape.of(96, 64)) + WeightType.Q8_0.byteSize(Shape.of(96, 64))
                    + 2 * (2 * WeightType.Q5_0.byteSize(Shape.of(64, 64)) + WeightType.Q5_0.byteSize(Shape.of(32, 64))
                    + WeightType.Q5_0.byteSize(Shape.of(192, 64)))
                    + WeightType.Q5_0.byteSize(Shape.of(32, 64)) + WeightType.Q8_0.byteSize(Shape.of(32, 64))
                    + WeightType.Q5_0.byteSize(Shape.of(64, 96)) + WeightType.Q8_0.byteSize(Shape.of(64, 96));
            assertTrue(census.bytes() >= matrices + 5 * 64 * 4, census.toString());
            assertEquals(Shape.of(1, 3, 96), model.forward(scope, new int[][] {{1, 2, 3}}, cache).shape());
        }
        assertTrue(g.tensors().asMap().values().stream().allMatch(HostTensor::isReleased));
    }

    @Test
    void theUndoneRowsViewTheFilesMapUntilBoundInsteadOfCopyingIt() throws IOException {
        Path file = dir.resolve("views.gguf");
        tiny("llama").write(file);
        Gguf.Contents g = Gguf.read(file);
        HostTensor q = GgufDecoder.read(g).state().get("model.layers.0.self_attn.q_proj.weight");
        float[] before = q.toFloatArray();
        try (Scope scope = Backends.load("ejml").newScope()) {
            assertArrayEquals(before, q.toWeight(scope, WeightType.F32).toFloatArray(),
                    "bound in its own type, the rows are gathered in their new order");
        }
        g.tensors().get("blk.0.attn_q.weight").release();
        assertThrows(IllegalStateException.class, q::toFloatArray, "a view of the released map");
    }

    @Test
    void aFilesMixIsNamedByItsFileTypeAndCountedByType() throws IOException {
        Gguf.Contents g = Gguf.read(tiny("llama").put("general.file_type",
                new Gguf.Value(Gguf.ValueType.UINT32, null, 15L)).toBytes());
        long matrices = 2 * 96 * 64 + 2 * (64 * 64 + 32 * 64 + 32 * 64 + 64 * 64 + 192 * 64 + 64 * 96);
        try (CausalLM model = CausalLM.load(g, Backends.load("ejml"), DType.F32, null)) {
            assertEquals("Q4_K_M", model.census().name());
            assertEquals(Map.of(WeightType.F32, 21), model.census().counts());
            assertTrue(model.census().bytes() >= (matrices + 5 * 64) * 4, model.census().toString());
        }
        try (CausalLM model = CausalLM.load(g, Backends.load("ejml"), DType.F32, WeightType.Q8_0)) {
            assertEquals("Q8_0", model.census().name());
            assertEquals(Map.of(WeightType.Q8_0, 16, WeightType.F32, 5), model.census().counts());
            assertTrue(model.census().bytes() >= matrices / 32 * 34 + 5 * 64 * 4, model.census().toString());
        }
    }

    @Test
    void aMixIsRefusedWhereItCannotBeProduced() throws IOException {
        Gguf.Contents g = Gguf.read(tiny("llama").toBytes());
        String message = assertThrows(IllegalArgumentException.class,
                () -> CausalLM.loadReleasing(g, Backends.load("ejml"), DType.F32, null, QuantMix.Q3_K_M))
                .getMessage();
        assertTrue(message.contains("Q3_K_M") && message.contains("q4_k_m"), message);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(String json) {
        try {
            return JSON.readValue(json, Map.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static DecoderConfig config(String json) {
        return DecoderConfig.of(map(json), "the test's config");
    }
}
