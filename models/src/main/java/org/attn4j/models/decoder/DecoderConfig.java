package org.attn4j.models.decoder;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.attn4j.api.RopeLayout;

/**
 * The hyper-parameters of a decoder, read from a Hugging Face {@code config.json}. GPT-2 keys: {@code vocab_size},
 * {@code n_positions}, {@code n_embd}, {@code n_layer}, {@code n_head}, {@code layer_norm_epsilon}. Llama keys:
 * {@code vocab_size}, {@code hidden_size}, {@code intermediate_size}, {@code num_hidden_layers},
 * {@code num_attention_heads}, {@code num_key_value_heads} (default: the attention heads), {@code rms_norm_eps},
 * {@code rope_theta} (default 10000), {@code max_position_embeddings}, {@code tie_word_embeddings} (default false),
 * {@code sliding_window} (Mistral; absent or null for none), and attn4j's {@code rope_interleaved} (default false:
 * Llama's half-split layout; true: GPT-J's interleaved pairs).
 *
 * @param type the architecture
 * @param vocabSize {@code V}
 * @param hidden {@code E}
 * @param layers the number of blocks
 * @param heads query heads
 * @param kvHeads key/value heads, dividing {@code heads}
 * @param intermediate the MLP width
 * @param eps the norm epsilon
 * @param maxPositions the longest sequence (GPT-2's learned positions; Llama's trained context)
 * @param ropeBase the rotary frequency base (Llama)
 * @param ropeLayout the rotary pair layout (Llama)
 * @param window the sliding window, 0 for none
 * @param tiedEmbeddings whether the LM head is the token embedding
 */
public record DecoderConfig(Type type, int vocabSize, int hidden, int layers, int heads, int kvHeads,
                            int intermediate, double eps, int maxPositions, double ropeBase, RopeLayout ropeLayout,
                            int window, boolean tiedEmbeddings) {
    private static final ObjectMapper JSON = new ObjectMapper();


    /** The architectures this package loads. */
    public enum Type {
        /** GPT-2: learned positions, LayerNorm, GELU (tanh) MLP, Conv1D weights, LM head tied to {@code wte}. */
        GPT2,
        /** Llama: rotary positions, RMSNorm, SwiGLU MLP, grouped-query attention, an untied {@code lm_head}. */
        LLAMA
    }

    /** Checks that the sizes fit together. */
    public DecoderConfig {
        if (vocabSize < 1 || hidden < 1 || layers < 1 || heads < 1 || kvHeads < 1 || maxPositions < 1) {
            throw new IllegalArgumentException("DecoderConfig: sizes must be positive: vocab " + vocabSize
                    + ", hidden " + hidden + ", layers " + layers + ", heads " + heads + ", kv heads " + kvHeads
                    + ", positions " + maxPositions);
        }
        if (hidden % heads != 0 || heads % kvHeads != 0) {
            throw new IllegalArgumentException("DecoderConfig: hidden " + hidden + " must be a multiple of heads "
                    + heads + ", and heads a multiple of kv heads " + kvHeads);
        }
    }

    /** @return the size of one head, {@code hidden / heads} */
    public int headDim() {
        return hidden / heads;
    }

    /**
     * @param folder a Hugging Face model folder
     * @return its {@code config.json}
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException if it is not a gpt2 or llama config
     */
    public static DecoderConfig read(Path folder) throws IOException {
        Path file = folder.resolve("config.json");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("decoder: " + folder + " has no config.json");
        }
        Object parsed;
        try {
            parsed = JSON.readValue(file.toFile(), Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("decoder: " + file + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (!(parsed instanceof Map<?, ?> json)) {
            throw new IllegalArgumentException("decoder: " + file + " is not a JSON object");
        }
        return of(json, file.toString());
    }

    /**
     * @param json a parsed {@code config.json}
     * @param where where it came from, for messages
     * @return the config
     */
    static DecoderConfig of(Map<?, ?> json, String where) {
        Object type = json.get("model_type");
        if ("gpt2".equals(type)) {
            int hidden = integer(json, "n_embd", where, null);
            return new DecoderConfig(Type.GPT2, integer(json, "vocab_size", where, null), hidden,
                    integer(json, "n_layer", where, null), integer(json, "n_head", where, null),
                    integer(json, "n_head", where, null), 4 * hidden,
                    number(json, "layer_norm_epsilon", where, 1e-5), integer(json, "n_positions", where, null),
                    0, RopeLayout.HALF_SPLIT, 0, true);
        }
        if ("llama".equals(type) || "mistral".equals(type)) {
            int heads = integer(json, "num_attention_heads", where, null);
            Object window = json.get("sliding_window");
            return new DecoderConfig(Type.LLAMA, integer(json, "vocab_size", where, null),
                    integer(json, "hidden_size", where, null), integer(json, "num_hidden_layers", where, null),
                    heads, integer(json, "num_key_value_heads", where, heads),
                    integer(json, "intermediate_size", where, null), number(json, "rms_norm_eps", where, 1e-6),
                    integer(json, "max_position_embeddings", where, 2048), number(json, "rope_theta", where, 1e4),
                    Boolean.TRUE.equals(json.get("rope_interleaved")) ? RopeLayout.INTERLEAVED : RopeLayout.HALF_SPLIT,
                    window == null ? 0 : integer(json, "sliding_window", where, null),
                    Boolean.TRUE.equals(json.get("tie_word_embeddings")));
        }
        throw new IllegalArgumentException("decoder: " + where + " has model_type " + type
                + "; supported are gpt2 and llama (and mistral)");
    }

    private static int integer(Map<?, ?> json, String key, String where, Integer fallback) {
        Object v = json.get(key);
        if (v == null && fallback != null) {
            return fallback;
        }
        if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
            throw new IllegalArgumentException("decoder: " + where + " needs an integer " + key + ", found " + v);
        }
        return Math.toIntExact(n.longValue());
    }

    private static double number(Map<?, ?> json, String key, String where, double fallback) {
        Object v = json.get(key);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof Number n)) {
            throw new IllegalArgumentException("decoder: " + where + " needs a number " + key + ", found " + v);
        }
        return n.doubleValue();
    }
}
