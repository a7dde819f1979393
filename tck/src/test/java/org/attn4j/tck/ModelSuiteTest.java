package org.attn4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.attn4j.api.DType;
import org.attn4j.backend.ejml.EjmlBackendProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelSuiteTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static TckOptions models() {
        return TestBackends.only(Kind.MODEL);
    }

    @Test
    void theRealMiniLmAndEveryDecoderRunOnABackendAsAUserLoadsThem() {
        TckReport report = TckRunner.run(new EjmlBackendProvider(), models().withSettings(
                new TckSettings(TckSettings.defaults().seed(), java.util.EnumSet.of(Kind.MODEL)).withCases("\\[F32\\]$")));

        assertEquals(0, report.count(Status.FAILED), report.toTable());
        assertEquals(0, report.count(Status.SKIPPED), report.toTable());
        List<String> names = report.results().stream().map(CaseResult::testName).toList();
        assertTrue(names.contains("optional_model_all_minilm_l6_v2_sentence_embeddings[F32]"), names.toString());
        for (String decoder : List.of("gpt2_tiny", "llama_gqa_tiny", "llama_mha_interleaved_tiny",
                "llama_mqa_window_tiny")) {
            for (String check : List.of("prompt_logits", "logits_token_by_token", "greedy_continuation")) {
                assertTrue(names.contains("required_model_" + decoder + "_" + check + "[F32]"), names.toString());
            }
        }
        assertTrue(report.results().stream().filter(r -> r.op().equals(ModelSuite.MINILM_OP))
                .allMatch(r -> r.maxAbsError() > 0), "the embeddings were compared");
    }

    /** Writes a family folder holding the kit's gpt2_tiny case, with {@code config} changes applied. */
    @SuppressWarnings("unchecked")
    private static void family(Path root, String name, Map<String, Object> config) throws Exception {
        Path family = Files.createDirectories(root.resolve("families/" + name));
        List<Map<String, Object>> manifest;
        try (InputStream in = GoldenFixtures.class.getResourceAsStream(GoldenFixtures.RESOURCE_FOLDER
                + "manifest.json")) {
            manifest = JSON.readValue(in, List.class);
        }
        Map<String, Object> gpt2 = manifest.stream().filter(c -> c.get("name").equals("gpt2_tiny")).findFirst()
                .orElseThrow();
        ((Map<String, Object>) ((Map<String, Object>) gpt2.get("params")).get("config")).putAll(config);
        Files.writeString(family.resolve("manifest.json"), JSON.writeValueAsString(List.of(gpt2)));
        try (InputStream in = GoldenFixtures.class.getResourceAsStream(GoldenFixtures.RESOURCE_FOLDER
                + "models.safetensors")) {
            Files.copy(in, family.resolve("models.safetensors"));
        }
    }

    @Test
    void aFamilyPlugsInByAddingItsGoldenFolderAndItsNumbersAreHeldToIt() throws Exception {
        Path root = Files.createDirectories(dir.resolve("org/attn4j/tck/golden"));
        Files.writeString(root.resolve("manifest.json"), "[]");
        family(root, "gpt2-again", Map.of());
        family(root, "gpt2-wrong-eps", Map.of("layer_norm_epsilon", 0.5));

        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            List<GoldenFixtures> families = GoldenFixtures.families(loader);
            assertEquals(List.of("class path /org/attn4j/tck/golden/families/gpt2-again/",
                    "class path /org/attn4j/tck/golden/families/gpt2-wrong-eps/"),
                    families.stream().map(GoldenFixtures::description).toList());
            List<TckCase> cases = ModelSuite.plan(List.copyOf(families), ToleranceTable.defaults()).stream()
                    .filter(c -> c.dtype() == DType.F32 && c.op().equals(ModelSuite.DECODER_OP)).toList();
            assertEquals(6, cases.size());
            assertEquals(List.of("model_gpt2_tiny_prompt_logits", "model_gpt2_tiny_logits_token_by_token",
                    "model_gpt2_tiny_greedy_continuation"), cases.subList(0, 3).stream().map(TckCase::id).toList());
            for (TckCase c : cases.subList(0, 3)) {
                assertNull(c.body().run(TestBackends.EJML).failure(), c.id());
            }
            String wrong = cases.get(3).body().run(TestBackends.EJML).failure();
            assertTrue(wrong != null && wrong.startsWith("CausalLM case model_gpt2_tiny_prompt_logits [F32] on ejml,"
                    + " logits of the prompt "), wrong);
        }
    }
}
