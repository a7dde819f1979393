package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.Backend;
import org.attn4j.api.Backends;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.DecoderGoldens;
import org.attn4j.models.HostTensor;
import org.attn4j.models.StateDict;
import org.attn4j.models.io.Gguf;
import org.attn4j.models.io.GgufWriter;
import org.attn4j.models.io.SafeTensors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decoders read from GGUF files written as llama.cpp's converter writes them: the PyTorch goldens' GPT-2 and
 * Llamas give the torch logits and greedy ids; random Llamas and GPT-2s in every storage type give the same greedy
 * ids and logits as their Hugging Face folders holding the dequantized values; keys and tensors attn4j does not
 * honour are refused by name.
 */
class GgufDecoderTest {
    private static final int[] PROMPT = {5, 17, 3, 42, 8, 1, 60, 33};

    @TempDir
    Path dir;

    static Stream<Arguments> goldens() {
        return DecoderGoldens.across().filter(a -> {
            DecoderGoldens.Decoder d = (DecoderGoldens.Decoder) a.get()[1];
            return llamaCppCanHold(DecoderConfig.of(d.config(), d.name()));
        });
    }

    /**
     * @return whether llama.cpp's llama or gpt2 architecture expresses the config as it is: a plain GPT-2, or a
     *     Llama/Mistral without biases whose unscaled, half-split RoPE turns whole heads of {@code hidden / heads}
     */
    private static boolean llamaCppCanHold(DecoderConfig c) {
        return switch (c.type()) {
            case GPT2 -> c.intermediate() == 4 * c.hidden() && c.activation() == org.attn4j.api.Activation.GELU_TANH
                    && c.attentionScale(c.layers() - 1) == 1.0 / Math.sqrt(c.headDim()) && c.tiedEmbeddings();
            case LLAMA, MISTRAL -> c.rope(0).kind().equals("default")
                    && c.rope(0).layout() == org.attn4j.api.RopeLayout.HALF_SPLIT && c.rope(0).dim() == c.headDim()
                    && c.headDim() * c.heads() == c.hidden() && !c.qkvBias() && !c.outputBias() && !c.mlpBias();
            default -> false;
        };
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("goldens")
    void goldenDecodersFromGgufGiveTheTorchLogitsAndGreedyIds(DecoderGoldens.Target t, DecoderGoldens.Decoder d)
            throws IOException {
        DecoderConfig config = DecoderConfig.of(d.config(), d.name());
        Path file = dir.resolve(d.name() + ".gguf");
        GgufCheckpoints.fromHuggingFace(config, d.parameters(), t.dtype() == DType.F64 ? WeightType.F64
                : WeightType.F32).write(file);
        try (CausalLM model = CausalLM.load(file, t.backend(), t.dtype());
             KvCache cache = model.newCache(1, d.prompt().length);
             Scope scope = t.backend().newScope()) {
            t.assertClose(d.name() + " logits from GGUF", d.logits().data(),
                    model.forward(scope, new int[][] {d.prompt()}, cache).toDoubleArray());
        }
        try (CausalLM model = CausalLM.load(file, t.backend(), t.dtype())) {
            int[] greedy = Generator.generate(model, d.prompt(), GenerationOptions.defaults()
                    .withMaxNewTokens(d.generated().length), id -> { });
            assertArrayEquals(d.generated(), greedy, d.name() + " greedy ids from GGUF");
        }
    }

    static Stream<Arguments> storage() {
        return Stream.of(WeightType.F32, WeightType.F16, WeightType.BF16, WeightType.Q8_0, WeightType.Q4_0)
                .flatMap(w -> Stream.of(Arguments.of("llama", w), Arguments.of("gpt2", w)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storage")
    void eachStorageTypeDecodesAsItsHuggingFaceFolderOfDequantizedValues(String arch, WeightType type)
            throws IOException {
        boolean llama = arch.equals("llama");
        String json = llama
                ? "{\"model_type\":\"llama\",\"vocab_size\":96,\"hidden_size\":64,\"num_hidden_layers\":2,"
                        + "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"intermediate_size\":96,"
                        + "\"rms_norm_eps\":1e-5,\"max_position_embeddings\":64,\"rope_theta\":10000.0}"
                : "{\"model_type\":\"gpt2\",\"vocab_size\":96,\"n_embd\":64,\"n_layer\":2,\"n_head\":4,"
                        + "\"n_positions\":32,\"layer_norm_epsilon\":1e-5}";
        DecoderConfig config = config(json);
        StateDict hf = llama ? GgufCheckpoints.randomLlama(config, type, 11) : GgufCheckpoints.randomGpt2(config, type,
                12);
        Path folder = Files.createDirectories(dir.resolve(arch + "-" + type));
        SafeTensors.write(folder.resolve("model.safetensors"), hf, DType.F32, Map.of());
        Files.writeString(folder.resolve("config.json"), json);
        Path file = dir.resolve(arch + "-" + type + ".gguf");
        GgufCheckpoints.fromHuggingFace(config, hf, type).write(file);
        Gguf.Contents gguf = Gguf.read(file);
        assertEquals(type, gguf.tensors().get("token_embd.weight").type(), "matrices keep the file's type");
        Backend backend = Backends.load("ejml");
        try (CausalLM fromFolder = CausalLM.load(folder, backend, DType.F32);
             CausalLM fromGguf = CausalLM.load(gguf, backend, DType.F32, null);
             KvCache a = fromFolder.newCache(1, PROMPT.length);
             KvCache b = fromGguf.newCache(1, PROMPT.length);
             Scope scope = backend.newScope()) {
            double[] expected = fromFolder.forward(scope, new int[][] {PROMPT}, a).toDoubleArray();
            double[] actual = fromGguf.forward(scope, new int[][] {PROMPT}, b).toDoubleArray();
            assertClose(arch + " " + type, expected, actual, type == WeightType.F32 ? 1e-5 : 2e-4);
            GenerationOptions greedy = GenerationOptions.defaults().withMaxNewTokens(16);
            assertArrayEquals(Generator.generate(fromFolder, PROMPT, greedy, id -> { }),
                    Generator.generate(fromGguf, PROMPT, greedy, id -> { }), arch + " " + type + " greedy ids");
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
        assertArrayEquals(new float[] {0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11}, java.util.Arrays.copyOf(
                permuted.toFloatArray(), 12), "head 0: rows 0, 2, 1, 3");
        assertEquals(w, GgufDecoder.unpermute("q", permuted, 2, 4));
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

    private GgufWriter tinyLlama() {
        DecoderConfig config = config("{\"model_type\":\"llama\",\"vocab_size\":96,\"hidden_size\":64,"
                + "\"num_hidden_layers\":1,\"num_attention_heads\":4,\"num_key_value_heads\":2,"
                + "\"intermediate_size\":64,\"rms_norm_eps\":1e-5,\"max_position_embeddings\":64,"
                + "\"rope_theta\":10000.0,\"tie_word_embeddings\":true}");
        return GgufCheckpoints.fromHuggingFace(config, GgufCheckpoints.randomLlama(config, WeightType.F32, 3),
                WeightType.F32);
    }

    private String refusal(GgufWriter w) throws IOException {
        Gguf.Contents g = Gguf.read(w.toBytes());
        return assertThrows(IllegalArgumentException.class,
                () -> CausalLM.load(g, Backends.load("ejml"), DType.F32, null)).getMessage();
    }

    @ParameterizedTest
    @ValueSource(strings = {"llama.attention.logit_softcapping", "llama.rope.scaling.attn_factor", "custom.key",
        "llama.attention.layer_norm_epsilon"})
    void aKeyThatIsNotHonouredIsRefusedByName(String key) throws IOException {
        String message = refusal(tinyLlama().float32(key, 2f));
        assertTrue(message.contains(key) && message.contains("refused"), message);
    }

    @Test
    void ropeScalingIsRefusedUnlessItIsNone() throws IOException {
        String message = refusal(tinyLlama().string("llama.rope.scaling.type", "yarn").float32(
                "llama.rope.scaling.factor", 4f));
        assertTrue(message.contains("rope.scaling.type yarn"), message);
        Gguf.Contents neutral = Gguf.read(tinyLlama().string("llama.rope.scaling.type", "none")
                .uint32("llama.rope.scaling.original_context_length", 64).toBytes());
        CausalLM.load(neutral, Backends.load("ejml"), DType.F32, null).close();
    }

    @Test
    void aPartialRotaryOrOtherHeadSizeIsRefused() throws IOException {
        String message = refusal(tinyLlama().uint32("llama.rope.dimension_count", 8));
        assertTrue(message.contains("llama.rope.dimension_count is 8"), message);
    }

    @Test
    void anUnknownTensorIsRefusedByName() throws IOException {
        String message = refusal(tinyLlama().tensor("rope_freqs.weight", HostTensor.of(new float[8], 8)));
        assertTrue(message.contains("rope_freqs.weight"), message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"qwen2", "gemma2", "phi3", "falcon"})
    void otherArchitecturesAreRefusedByName(String arch) throws IOException {
        String message = refusal(new GgufWriter().string("general.architecture", arch));
        assertTrue(message.contains("general.architecture " + arch) && message.contains("supported: llama, gpt2"),
                message);
    }

    @Test
    void aSplitModelIsRefused() throws IOException {
        String message = refusal(tinyLlama().put("split.count", new Gguf.Value(Gguf.ValueType.UINT16, null, 2L)));
        assertTrue(message.contains("split.count = 2"), message);
    }

    @Test
    void storageCanBeChosenAtLoad() throws IOException {
        Gguf.Contents g = Gguf.read(tinyLlama().toBytes());
        try (CausalLM model = CausalLM.load(g, Backends.load("ejml"), DType.F32, WeightType.Q8_0);
             KvCache cache = model.newCache(1, 4); Scope scope = model.backend().newScope()) {
            assertEquals(Shape.of(1, 3, 96), model.forward(scope, new int[][] {{1, 2, 3}}, cache).shape());
        }
    }

    private static DecoderConfig config(String json) {
        try {
            return DecoderConfig.of(new com.fasterxml.jackson.databind.ObjectMapper().readValue(json, Map.class),
                    "the test's config");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
