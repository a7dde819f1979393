package org.attn4j.models.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * generation_config.json as the checkpoints write it, read into the options they intend, and every key that would
 * change the tokens refused by name unless attn4j honours it.
 */
class GenerationConfigTest {

    @Test
    void llama32SamplesWithItsTemperatureAndTopPAndStopsOnThreeIds() {
        GenerationConfig c = GenerationConfig.parse("{\"bos_token_id\": 128000, \"do_sample\": true,"
                + " \"eos_token_id\": [128001, 128008, 128009], \"temperature\": 0.6, \"top_p\": 0.9,"
                + " \"transformers_version\": \"4.45.0.dev0\"}", "llama");
        GenerationOptions o = c.options();
        assertArrayEquals(new int[] {128001, 128008, 128009}, o.stopTokens());
        assertEquals(0.6, o.temperature());
        assertEquals(0.9, o.topP());
        assertEquals(50, o.topK(), "transformers' default top_k applies when sampling");
        assertEquals(128000, c.bosTokenId());
        assertEquals(List.of(), c.unknownKeys());
    }

    @Test
    void qwen25AddsARepetitionPenaltyAndTopK() {
        GenerationOptions o = GenerationConfig.parse("{\"bos_token_id\": 151643, \"pad_token_id\": 151643,"
                + " \"do_sample\": true, \"eos_token_id\": [151645, 151643], \"repetition_penalty\": 1.1,"
                + " \"temperature\": 0.7, \"top_p\": 0.8, \"top_k\": 20, \"transformers_version\": \"4.37.0\"}",
                "qwen").options();
        assertEquals(1.1, o.repetitionPenalty());
        assertEquals(20, o.topK());
        assertEquals(0.7, o.temperature());
    }

    @Test
    void withoutDoSampleDecodingIsGreedyButASetTemperatureSamplesWithTheFilesFilters() {
        GenerationOptions o = GenerationConfig.parse("{\"eos_token_id\": 2, \"temperature\": 0.3, \"top_k\": 7,"
                + " \"max_length\": 2048, \"pad_token_id\": 0}", "tinyllama").options();
        assertEquals(0, o.temperature());
        assertArrayEquals(new int[] {2}, o.stopTokens());
        assertEquals(2048, o.maxLength());
        assertEquals(7, o.withTemperature(0.5).topK());
    }

    @Test
    void gemma2sCacheImplementationAndPhi3sBookkeepingChangeNothing() {
        GenerationConfig gemma = GenerationConfig.parse("{\"_from_model_config\": true, \"bos_token_id\": 2,"
                + " \"cache_implementation\": \"hybrid\", \"eos_token_id\": [1, 107], \"pad_token_id\": 0,"
                + " \"transformers_version\": \"4.42.4\"}", "gemma");
        assertArrayEquals(new int[] {1, 107}, gemma.eosTokenIds());
        assertEquals(0, gemma.options().temperature());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"num_beams\": 4", "\"no_repeat_ngram_size\": 3", "\"typical_p\": 0.9",
        "\"bad_words_ids\": [[5]]", "\"stop_strings\": [\"User:\"]", "\"penalty_alpha\": 0.6",
        "\"num_return_sequences\": 2", "\"suppress_tokens\": [1, 2]", "\"guidance_scale\": 1.5",
        "\"encoder_repetition_penalty\": 1.2", "\"forced_eos_token_id\": 2", "\"epsilon_cutoff\": 0.0003"})
    void aKeyThatWouldChangeTheTokensIsRefusedWithKeyValueAndFile(String entry) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GenerationConfig.parse("{\"eos_token_id\": 2, " + entry + "}", "generation_config.json"));
        String key = entry.substring(1, entry.indexOf('"', 1));
        assertTrue(e.getMessage().contains(key) && e.getMessage().contains("generation_config.json")
                && e.getMessage().contains("changes the generated tokens"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"temperature\": \"hot\"", "\"top_p\": 1.5", "\"eos_token_id\": [\"</s>\"]",
        "\"do_sample\": 1", "\"top_k\": -1", "\"repetition_penalty\": 0"})
    void aValueOfTheWrongKindIsRefused(String entry) {
        assertThrows(IllegalArgumentException.class, () -> GenerationConfig.parse("{" + entry + "}", "g.json"));
    }

    @Test
    void neutralValuesAndUnknownKeysPassTheLatterListed() {
        GenerationConfig c = GenerationConfig.parse("{\"num_beams\": 1, \"typical_p\": 1.0, \"bad_words_ids\": null,"
                + " \"length_penalty\": 2.0, \"some_future_flag\": true, \"another\": 3}", "g.json");
        assertEquals(List.of("another", "some_future_flag"), c.unknownKeys());
    }

    @Test
    void minLengthBecomesAMinimumOfNewTokensForAGivenPrompt() {
        GenerationConfig c = GenerationConfig.parse("{\"min_length\": 10, \"min_new_tokens\": 2}", "g.json");
        assertEquals(2, c.options().minNewTokens());
        assertEquals(6, c.options(4).minNewTokens());
        assertEquals(2, c.options(20).minNewTokens());
    }

    @Test
    void withoutAGenerationConfigTheModelConfigsEosIdsCount(@TempDir Path tmp) throws IOException {
        Files.writeString(tmp.resolve("config.json"), "{\"model_type\": \"llama\", \"eos_token_id\": 2,"
                + " \"bos_token_id\": 1, \"temperature\": 0.1}");
        GenerationConfig c = GenerationConfig.read(tmp);
        assertArrayEquals(new int[] {2}, c.eosTokenIds());
        assertEquals(0, c.options().temperature());
        assertEquals(0, GenerationConfig.read(tmp.resolve("nothing")).eosTokenIds().length);
    }
}
