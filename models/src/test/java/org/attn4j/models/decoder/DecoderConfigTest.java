package org.attn4j.models.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.attn4j.api.RopeLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The family readers against configs shaped like checkpoints' (src/test/resources/.../decoder/configs, every key
 * those files carry) and against keys and values they must refuse.
 */
class DecoderConfigTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a checkpoint's config must give: type, head size, layers, kv heads, tying, rope type, windows. */
    private record Expected(String file, DecoderConfig.Type type, int headDim, int layers, int kvHeads,
                            boolean tied, String rope, int firstWindow, int lastWindow) {
        @Override
        public String toString() {
            return file;
        }
    }

    static Stream<Expected> checkpoints() {
        DecoderConfig.Type llama = DecoderConfig.Type.LLAMA;
        return Stream.of(
                new Expected("llama-3.1-8b-instruct", llama, 128, 32, 8, false, "llama3", 0, 0),
                new Expected("llama-3.2-1b", llama, 64, 16, 8, true, "llama3", 0, 0),
                new Expected("llama-3.2-1b-rope-parameters", llama, 64, 16, 8, true, "llama3", 0, 0),
                new Expected("tinyllama-1.1b-chat", llama, 64, 22, 4, false, "default", 0, 0),
                new Expected("smollm2-135m", llama, 64, 30, 3, true, "default", 0, 0),
                new Expected("mistral-7b-v0.1", DecoderConfig.Type.MISTRAL, 128, 32, 8, false, "default", 4096, 4096),
                new Expected("mistral-7b-instruct-v0.3", DecoderConfig.Type.MISTRAL, 128, 32, 8, false, "default", 0,
                        0),
                new Expected("mistral-nemo-instruct", DecoderConfig.Type.MISTRAL, 128, 40, 8, false, "default", 0, 0),
                new Expected("qwen2.5-7b-instruct", DecoderConfig.Type.QWEN2, 128, 28, 4, false, "default", 0, 0),
                new Expected("qwen2.5-7b-instruct-yarn", DecoderConfig.Type.QWEN2, 128, 28, 4, false, "yarn", 0, 0),
                new Expected("qwen2.5-0.5b-instruct", DecoderConfig.Type.QWEN2, 64, 24, 2, true, "default", 0, 0),
                new Expected("qwen2-1.5b-sliding", DecoderConfig.Type.QWEN2, 64, 24, 2, true, "default", 0, 4096),
                new Expected("qwen3-0.6b", DecoderConfig.Type.QWEN3, 128, 28, 8, true, "default", 0, 0),
                new Expected("qwen3-4b-layer-types", DecoderConfig.Type.QWEN3, 128, 36, 8, true, "default", 0, 0),
                new Expected("gemma-7b", DecoderConfig.Type.GEMMA, 256, 28, 16, true, "default", 0, 0),
                new Expected("gemma-2b", DecoderConfig.Type.GEMMA, 256, 18, 1, true, "default", 0, 0),
                new Expected("gemma-2-2b-it", DecoderConfig.Type.GEMMA2, 256, 26, 4, true, "default", 4096, 0),
                new Expected("gemma-2-9b", DecoderConfig.Type.GEMMA2, 256, 42, 8, true, "default", 4096, 0),
                new Expected("gemma-2-27b", DecoderConfig.Type.GEMMA2, 128, 46, 16, true, "default", 4096, 0),
                new Expected("gemma-3-1b-it", DecoderConfig.Type.GEMMA3, 256, 26, 1, true, "default", 512, 512),
                new Expected("gemma-3-270m", DecoderConfig.Type.GEMMA3, 256, 18, 1, true, "default", 512, 0),
                new Expected("gemma-3-4b-it", DecoderConfig.Type.GEMMA3_IMAGE_TEXT, 256, 34, 4, true, "default",
                        1024, 1024),
                new Expected("gemma-3-27b-it", DecoderConfig.Type.GEMMA3_IMAGE_TEXT, 128, 62, 16, true, "default",
                        1024, 1024),
                new Expected("phi-3-mini-4k-instruct", DecoderConfig.Type.PHI3, 96, 32, 32, false, "default", 2047,
                        2047),
                new Expected("phi-3-mini-128k-instruct-su", DecoderConfig.Type.PHI3, 96, 32, 32, false, "longrope",
                        262144, 262144),
                new Expected("phi-3.5-mini-instruct", DecoderConfig.Type.PHI3, 96, 32, 32, false, "longrope", 262144,
                        262144),
                new Expected("phi-4-mini-instruct", DecoderConfig.Type.PHI3, 128, 32, 8, true, "longrope", 262144,
                        262144),
                new Expected("gpt2", DecoderConfig.Type.GPT2, 64, 12, 12, true, null, 0, 0),
                new Expected("gpt2-medium", DecoderConfig.Type.GPT2, 64, 24, 16, true, null, 0, 0),
                new Expected("distilgpt2", DecoderConfig.Type.GPT2, 64, 6, 12, true, null, 0, 0));
    }

    private static Path config(String name) throws URISyntaxException {
        return Path.of(DecoderConfigTest.class.getResource("/org/attn4j/models/decoder/configs/" + name + ".json")
                .toURI());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("checkpoints")
    void everyKeyOfACheckpointsConfigIsHonouredOrKnownToChangeNothing(Expected e, @TempDir Path folder)
            throws Exception {
        Files.copy(config(e.file()), folder.resolve("config.json"));
        DecoderConfig c = DecoderConfig.read(folder);
        assertEquals(e.type(), c.type());
        assertEquals(e.headDim(), c.headDim(), "head size");
        assertEquals(e.layers(), c.layers());
        assertEquals(e.kvHeads(), c.kvHeads());
        assertEquals(e.tied(), c.tiedEmbeddings());
        assertEquals(e.rope(), c.rope(0) == null ? null : c.rope(0).kind());
        assertEquals(e.firstWindow(), c.window(0), "window of layer 0");
        assertEquals(e.lastWindow(), c.window(c.layers() - 1), "window of the last layer");
    }

    @Test
    void checkpointsConfigsSetWhatTheirFamiliesTakeFromThem() throws Exception {
        DecoderConfig gemma2 = DecoderConfig.read(folderOf("gemma-2-9b"));
        assertEquals(50.0, gemma2.attentionSoftcap());
        assertEquals(30.0, gemma2.finalSoftcap());
        assertEquals(1 / Math.sqrt(256), gemma2.attentionScale(0), 1e-15);
        assertEquals(4096, gemma2.window(40));
        assertEquals(0, gemma2.window(41));
        DecoderConfig phi4 = DecoderConfig.read(folderOf("phi-4-mini-instruct"));
        assertEquals(96, phi4.rope(0).dimension(), "0.75 of a head of 128");
        assertEquals(4096, phi4.recomputeBeyond());
        assertEquals(0, DecoderConfig.read(folderOf("phi-3-mini-4k-instruct")).recomputeBeyond());
        DecoderConfig qwen = DecoderConfig.read(folderOf("qwen2-1.5b-sliding"));
        assertEquals(0, qwen.window(19));
        assertEquals(4096, qwen.window(20), "layers from max_window_layers on are windowed");
        assertTrue(qwen.qkvBias() && !qwen.outputBias());
        DecoderConfig gpt2 = DecoderConfig.read(folderOf("gpt2"));
        assertEquals(3072, gpt2.intermediate());
        assertEquals(1024, gpt2.maxPositions());
    }

    private static Path folderOf(String name) throws Exception {
        Path folder = Files.createTempDirectory("config");
        folder.toFile().deleteOnExit();
        Files.copy(config(name), folder.resolve("config.json"));
        folder.resolve("config.json").toFile().deleteOnExit();
        return folder;
    }

    /** A minimal config of each family, an unknown key, and a value that family cannot honour. */
    static Stream<Arguments> refusals() {
        Map<String, Object> lineage = Map.of("vocab_size", 64, "hidden_size", 32, "intermediate_size", 48,
                "num_hidden_layers", 2, "num_attention_heads", 4);
        return Stream.of(
                Arguments.of(with(lineage, "model_type", "llama"), "hidden_act", "gelu_fast"),
                Arguments.of(with(lineage, "model_type", "llama"), "sliding_window", 4096),
                Arguments.of(with(lineage, "model_type", "mistral"), "attention_bias", true),
                Arguments.of(with(lineage, "model_type", "qwen2"), "use_mrope", true),
                Arguments.of(with(lineage, "model_type", "qwen3"), "rope_scaling", Map.of("rope_type", "mrope")),
                Arguments.of(with(lineage, "model_type", "gemma"), "hidden_activation", "silu"),
                Arguments.of(with(lineage, "model_type", "gemma2"), "attn_logit_softcapping", -1),
                Arguments.of(with(lineage, "model_type", "gemma3_text"), "use_bidirectional_attention", true),
                Arguments.of(with(lineage, "model_type", "gemma3_text"), "sliding_window_pattern", 0),
                Arguments.of(Map.of("model_type", "gemma3", "text_config", lineage), "vision_use_head", false),
                Arguments.of(with(lineage, "model_type", "phi3"), "full_attn_mod", 2),
                Arguments.of(with(lineage, "model_type", "phi3"), "partial_rotary_factor", 0.1),
                Arguments.of(with(lineage, "model_type", "llama"), "quantization_config",
                        Map.of("quant_method", "awq")),
                Arguments.of(with(lineage, "model_type", "mistral"), "rope_scaling",
                        Map.of("rope_type", "llama3", "factor", 8.0)),
                Arguments.of(Map.of("model_type", "gpt2", "n_embd", 32, "n_head", 4, "n_layer", 2),
                        "add_cross_attention", true));
    }

    private static Map<String, Object> with(Map<String, Object> base, String key, Object value) {
        Map<String, Object> m = new LinkedHashMap<>(base);
        m.put(key, value);
        return m;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("refusals")
    void aFamilyRefusesAnUnknownKeyAndAValueItCannotHonourInOneMessageNamingKeyValueAndFile(
            Map<String, Object> base, String key, Object value, @TempDir Path folder) throws IOException {
        Map<String, Object> json = new HashMap<>(base);
        json.put(key, value);
        json.put("attn_temperature_tuning", 4);
        Files.writeString(folder.resolve("config.json"), JSON.writeValueAsString(json));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DecoderConfig.read(folder));
        String m = e.getMessage();
        assertTrue(m.contains(folder.resolve("config.json").toString()), m);
        assertTrue(m.contains("\"attn_temperature_tuning\" = 4"), m);
        assertTrue(m.contains(key), m);
        assertTrue(m.contains(String.valueOf(value instanceof String s ? "\"" + s + "\"" : value))
                || value instanceof Map, m);
    }

    @Test
    void absentKeysTakeTheFamilysTransformersDefaultsAndNullTurnsAFeatureOff() {
        DecoderConfig mistral = DecoderConfig.of(Map.of("model_type", "mistral", "num_hidden_layers", 2,
                "hidden_size", 64, "num_attention_heads", 8, "intermediate_size", 96), "mistral");
        assertEquals(4096, mistral.window(0), "MistralConfig's sliding_window");
        assertEquals(8, mistral.kvHeads(), "MistralConfig's num_key_value_heads");
        DecoderConfig gemma2 = DecoderConfig.of(Map.of("model_type", "gemma2", "num_hidden_layers", 2), "gemma2");
        assertEquals(50.0, gemma2.attentionSoftcap());
        assertEquals(30.0, gemma2.finalSoftcap());
        assertEquals(256, gemma2.headDim());
        assertTrue(gemma2.tiedEmbeddings());
        Map<String, Object> off = new HashMap<>(Map.of("model_type", "gemma2", "num_hidden_layers", 2));
        off.put("attn_logit_softcapping", null);
        off.put("final_logit_softcapping", null);
        off.put("sliding_window", null);
        DecoderConfig none = DecoderConfig.of(off, "gemma2 without caps");
        assertEquals(0.0, none.attentionSoftcap());
        assertEquals(0.0, none.finalSoftcap());
        assertEquals(0, none.window(0));
        Map<String, Object> qwen = new HashMap<>(Map.of("model_type", "qwen2", "num_hidden_layers", 30,
                "use_sliding_window", true));
        DecoderConfig windowed = DecoderConfig.of(qwen, "qwen2");
        assertEquals(0, windowed.window(27));
        assertEquals(4096, windowed.window(28), "Qwen2Config's sliding_window 4096 from max_window_layers 28 on");
    }

    @Test
    void rotaryParametersMayBeGivenPerLayerType() {
        Map<String, Object> json = new HashMap<>(Map.of("model_type", "gemma2", "num_hidden_layers", 4,
                "head_dim", 16, "rope_parameters", Map.of(
                        "sliding_attention", Map.of("rope_type", "default", "rope_theta", 10000.0),
                        "full_attention", Map.of("rope_type", "linear", "factor", 8.0, "rope_theta", 1e6))));
        DecoderConfig c = DecoderConfig.of(json, "per layer type");
        assertEquals("default", c.rope(0).kind());
        assertEquals("linear", c.rope(1).kind());
        assertEquals(Math.pow(1e6, -2.0 * 3 / 16) / 8, c.rope(1).at(1).inverseFrequency(3), 1e-18);
        assertEquals(RopeLayout.HALF_SPLIT, c.rope(2).at(1).layout());
    }

    @Test
    void gemma3AlternatesFiveLocalLayersWithOneGlobalLayerEachWithItsOwnRotaryBase() throws Exception {
        DecoderConfig c = DecoderConfig.read(folderOf("gemma-3-1b-it"));
        for (int layer = 0; layer < c.layers(); layer++) {
            boolean global = (layer + 1) % 6 == 0;
            assertEquals(global ? 0 : 512, c.window(layer), "window of layer " + layer);
            assertEquals(global ? 1e6 : 1e4, c.rope(layer).base(), "rotary base of layer " + layer);
            assertEquals("default", c.rope(layer).kind());
        }
        assertEquals(1 / Math.sqrt(256), c.attentionScale(0), 1e-15);
        assertEquals(0.0, c.attentionSoftcap());
        assertEquals(0.0, c.finalSoftcap());
        assertEquals(262144, c.vocabSize());
    }

    @Test
    void gemma3ImageTextCheckpointsScaleOnlyTheGlobalLayersRotaryEmbedding() throws Exception {
        DecoderConfig c = DecoderConfig.read(folderOf("gemma-3-4b-it"));
        assertEquals("default", c.rope(4).kind());
        assertEquals(1e4, c.rope(4).base());
        assertEquals("linear", c.rope(5).kind());
        assertEquals(1e6, c.rope(5).base());
        assertEquals(Math.pow(1e6, -2.0 * 7 / 256) / 8, c.rope(5).at(1).inverseFrequency(7), 1e-18);
        assertEquals(Math.pow(1e4, -2.0 * 7 / 256), c.rope(4).at(1).inverseFrequency(7), 1e-18);
        assertEquals(262208, c.vocabSize(), "Gemma3TextConfig's vocab_size, which the text_config leaves out");
        assertEquals(8, c.heads());
        DecoderConfig big = DecoderConfig.read(folderOf("gemma-3-27b-it"));
        assertEquals(Math.pow(168, -0.5), big.attentionScale(0), 1e-15);
    }

    @Test
    void gemma3TakesItsTransformersDefaultsAndPerLayerTypeRotaryParameters() {
        DecoderConfig c = DecoderConfig.of(Map.of("model_type", "gemma3_text", "num_hidden_layers", 12), "defaults");
        assertEquals(4096, c.window(0));
        assertEquals(0, c.window(11));
        assertEquals(1e6, c.rope(11).base());
        assertEquals(1e4, c.rope(10).base());
        assertEquals(131072, c.maxPositions());
        Map<String, Object> perType = new HashMap<>(Map.of("model_type", "gemma3_text", "num_hidden_layers", 6,
                "head_dim", 16, "rope_parameters", Map.of(
                        "sliding_attention", Map.of("rope_type", "default", "rope_theta", 10000.0),
                        "full_attention", Map.of("rope_type", "linear", "factor", 8.0, "rope_theta", 1e6))));
        DecoderConfig v5 = DecoderConfig.of(perType, "per layer type");
        assertEquals(1e4, v5.rope(0).base());
        assertEquals("linear", v5.rope(5).kind());
        perType.put("rope_local_base_freq", 20000.0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DecoderConfig.of(perType, "contradiction.json"));
        assertTrue(e.getMessage().contains("\"rope_local_base_freq\" = 20000.0"), e.getMessage());
        Map<String, Object> legacy = new HashMap<>(Map.of("model_type", "gemma3_text", "num_hidden_layers", 6,
                "sliding_window_pattern", 3, "_sliding_window_pattern", 6));
        e = assertThrows(IllegalArgumentException.class, () -> DecoderConfig.of(legacy, "pattern.json"));
        assertTrue(e.getMessage().contains("_sliding_window_pattern"), e.getMessage());
    }

    @Test
    void gemma3ImageTextWrapperNeedsATextConfigOfGemma3Text() {
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> DecoderConfig.of(Map.of("model_type", "gemma3"), "wrapper.json"));
        assertTrue(none.getMessage().contains("text_config") && none.getMessage().contains("wrapper.json"),
                none.getMessage());
        IllegalArgumentException other = assertThrows(IllegalArgumentException.class, () -> DecoderConfig.of(
                Map.of("model_type", "gemma3", "text_config", Map.of("model_type", "gemma2", "head_dim", 8,
                        "rope_typo", 1)), "wrapper.json"));
        assertTrue(other.getMessage().contains("\"text_config.model_type\" = \"gemma2\""), other.getMessage());
        assertTrue(other.getMessage().contains("\"text_config.rope_typo\" = 1"), other.getMessage());
    }

    @Test
    void ropeScalingBesideRopeParametersIsRefused() {
        Map<String, Object> json = new HashMap<>(Map.of("model_type", "llama", "num_hidden_layers", 1,
                "rope_scaling", Map.of("rope_type", "linear", "factor", 2.0),
                "rope_parameters", Map.of("rope_type", "linear", "factor", 4.0)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DecoderConfig.of(json, "both.json"));
        assertTrue(e.getMessage().contains("rope_parameters") && e.getMessage().contains("both.json"), e.getMessage());
    }

    @Test
    void anUnknownModelTypeNamesEveryFamily() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DecoderConfig.of(Map.of("model_type", "mixtral"), "x.json"));
        for (String family : List.of("gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text",
                "gemma3", "phi3")) {
            assertTrue(e.getMessage().contains(family), e.getMessage());
        }
    }
}
