package org.attn4j.models.embed;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.models.checkpoint.Checkpoint;
import org.attn4j.models.decoder.CausalLM;
import org.attn4j.models.decoder.DecoderConfig;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;
import org.attn4j.models.tokenize.Tokenizer;

/**
 * A Qwen3 decoder folder read for {@link SentenceEmbedder} or {@link CrossEncoder} from the {@link Checkpoint} that
 * opened it as an encoder: {@code config.json} ({@code model_type} {@code qwen3}, every key as strictly as
 * {@link CausalLM} reads it), {@code model.safetensors} or its shards, and {@code tokenizer.json} (or the tokenizer
 * named at open). The
 * weights may carry {@code Qwen3ForCausalLM}'s names ({@code model.layers.…}, {@code lm_head.weight}) or
 * {@code Qwen3Model}'s (no {@code model.} prefix, no head), as Qwen3-Embedding saves them; a model whose head is
 * never read may lack it.
 *
 * @param folder the folder
 * @param model the decoder, its weights bound
 * @param tokenizer the tokenizer, read as its {@code tokenizer.json} says (post-processor included)
 * @param weightBytes the bytes of the weight files' tensors
 * @param notes facts about the loading worth telling a user
 */
record Qwen3Checkpoint(Path folder, CausalLM model, Tokenizer tokenizer, long weightBytes, List<String> notes) {
    static final String MODEL_TYPE = "qwen3";

    /**
     * @param checkpoint a {@code qwen3} folder opened as an encoder ({@link Checkpoint#open})
     * @param backend where the weights go
     * @param dtype the activations' dtype (F64 makes every weight F64)
     * @param head whether the LM head is read (a reranker's); without it a missing {@code lm_head.weight} is
     *     allowed, the head then tied to the embeddings and never used
     * @return the checkpoint; close its model to free the weights
     * @throws java.nio.file.NoSuchFileException if the checkpoint has no tokenizer
     * @throws IOException if its {@code config.json} cannot be read
     * @throws IllegalArgumentException if the configuration or the weights are refused (every unknown key, every
     *     missing, mis-shaped and unexpected tensor named)
     */
    static Qwen3Checkpoint of(Checkpoint checkpoint, Backend backend, DType dtype, boolean head) throws IOException {
        String configFile = checkpoint.configSource().orElseThrow();
        Map<String, Object> config;
        try {
            config = new ObjectMapper().readValue(checkpoint.configJson().orElseThrow(),
                    new com.fasterxml.jackson.core.type.TypeReference<LinkedHashMap<String, Object>>() { });
        } catch (JacksonException e) {
            throw new IOException(configFile + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        Tokenizer tokenizer = checkpoint.requireTokenizer();
        StateDict state = checkpoint.parameters();
        List<String> notes = new java.util.ArrayList<>(checkpoint.notes());
        try {
            if (!state.contains("model.embed_tokens.weight") && state.contains("embed_tokens.weight")) {
                Map<String, HostTensor> prefixed = new HashMap<>();
                state.asMap().forEach((k, v) -> prefixed.put(k.equals("lm_head.weight") ? k : "model." + k, v));
                state = StateDict.of(prefixed);
                notes.add("weights under Qwen3Model's names (no model. prefix), read as Qwen3ForCausalLM's");
            }
            if (!head && !state.contains("lm_head.weight") && !Boolean.TRUE.equals(config.get("tie_word_embeddings"))) {
                config.put("tie_word_embeddings", true);
                notes.add("no lm_head.weight: the embedder reads the final norm's hidden states only");
            }
            DecoderConfig decoder = DecoderConfig.of(config, configFile);
            long bytes = state.asMap().values().stream().mapToLong(HostTensor::byteSize).sum();
            CausalLM model = CausalLM.of(decoder, state, backend, dtype);
            return new Qwen3Checkpoint(checkpoint.path(), model, tokenizer, bytes, List.copyOf(notes));
        } finally {
            state.asMap().values().forEach(HostTensor::release);
        }
    }
}
