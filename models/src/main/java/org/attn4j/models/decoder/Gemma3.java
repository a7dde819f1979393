package org.attn4j.models.decoder;

import java.util.List;
import java.util.Map;
import org.attn4j.models.decoder.DecoderConfig.Builder;
import org.attn4j.models.decoder.DecoderConfig.LineageDefaults;

/**
 * Gemma 3 ({@code model_type} {@code gemma3_text}, and the text decoder of the image-text checkpoints,
 * {@code gemma3}): {@link Gemma2}'s sandwich blocks, scaled embeddings, {@code 1 + w} norms and tanh-GELU gate, with
 * an RMS norm over each head of the queries and keys before the rotary embedding ({@code self_attn.q_norm},
 * {@code self_attn.k_norm}, {@code [head_dim]}, also {@code 1 + w}), no soft-capping unless the config sets it,
 * five local layers (a sliding window) to every global one, and a rotary embedding per kind of layer:
 * <pre>
 *   x  = embed(ids) · sqrt(E)                                                   (rounded to the dtype)
 *   x += postAttentionNorm(o(attention(rope(qNorm(q(n))), rope(kNorm(k(n))), v(n))))   n = inputNorm(x)
 *   x += postFeedforwardNorm(down(gelu(gate(n)) ⊙ up(n)))                       n = preFeedforwardNorm(x)
 *   logits = head(norm(x))                                                      head tied to the embedding
 * </pre>
 * with queries scaled by {@code query_pre_attn_scalar^-1/2}; layer {@code i} local when
 * {@code (i + 1) % sliding_window_pattern != 0}, attending to its last {@code sliding_window} keys (itself included)
 * and rotated with base {@code rope_local_base_freq}, unscaled; the global layers attend to every key and rotate with
 * {@code rope_theta} and {@code rope_scaling} (Gemma 3 4B and larger: {@code linear}, factor 8), as transformers'
 * {@code Gemma3TextModel} does with its two rotary embeddings.
 *
 * <p>Keys honoured (transformers' {@code Gemma3TextConfig} defaults where absent): {@code vocab_size} (262208),
 * {@code hidden_size} (2304), {@code intermediate_size} (9216), {@code num_hidden_layers} (26),
 * {@code num_attention_heads} (8), {@code num_key_value_heads} (4), {@code head_dim} (256),
 * {@code hidden_activation} ({@code gelu_pytorch_tanh}), {@code max_position_embeddings} (131072),
 * {@code rms_norm_eps} (1e-6, also the per-head norms'), {@code rope_theta} (1e6), {@code rope_local_base_freq}
 * (10000), {@code rope_scaling} / {@code rope_parameters} (the global layers'; or one object per layer type, whose
 * {@code sliding_attention} entry then holds the local base, which {@code rope_local_base_freq} must not contradict),
 * {@code attention_bias} (false), {@code query_pre_attn_scalar} (256), {@code sliding_window} (4096; null for none),
 * {@code layer_types} (else derived from {@code sliding_window_pattern}, 6), {@code attn_logit_softcapping} and
 * {@code final_logit_softcapping} (null: none), {@code use_bidirectional_attention} (false only: attn4j's decoders
 * are causal), {@code tie_word_embeddings} (true).
 *
 * <p>Ignored: {@code hidden_act} when it names a GELU (as for {@link Gemma}), {@code _sliding_window_pattern} beside
 * {@code layer_types} (transformers derives nothing from it then; without {@code layer_types} it must equal the
 * pattern in use), {@code attention_dropout} (training only), and the metadata of {@link ConfigJson#METADATA}.
 * Refused: {@code partial_rotary_factor} other than 1 and every other key.
 *
 * <p>The image-text checkpoints ({@code gemma3}, {@code Gemma3ForConditionalGeneration}: Gemma 3 4B, 12B and 27B)
 * are run as text-only decoders, as llama.cpp runs them: {@code text_config} is read strictly as above (its
 * {@code model_type}, if given, must be {@code gemma3_text}); the wrapper's image keys ({@link #IMAGE_KEYS}) are
 * ignored by name; the decoder's weights are read under {@code language_model.model.} (or
 * {@code model.language_model.}, as newer transformers saves them) and the vision tower's and projector's
 * ({@link #IMAGE_MODULES}) are not loaded. Any other key of the wrapper is refused.
 */
final class Gemma3 {
    /** The keys of the image-text wrapper that only the image side reads. */
    static final List<String> IMAGE_KEYS = List.of("vision_config", "mm_tokens_per_image", "boi_token_index",
            "eoi_token_index", "image_token_index", "boi_token_id", "eoi_token_id", "image_token_id");
    /** The modules of the image-text checkpoints that a text-only run does not load. */
    static final List<String> IMAGE_MODULES = List.of("vision_tower.", "multi_modal_projector.",
            "model.vision_tower.", "model.multi_modal_projector.");

    private Gemma3() {
    }

    static DecoderConfig read(ConfigJson c) {
        DecoderConfig config = text(c, DecoderConfig.Type.GEMMA3);
        c.finish();
        return config;
    }

    /** Reads the image-text wrapper {@code gemma3}: its {@code text_config}, strictly. */
    static DecoderConfig readImageText(ConfigJson c) {
        c.ignore(IMAGE_KEYS.toArray(new String[0]));
        ConfigJson text = c.section("text_config");
        if (text == null) {
            text = ConfigJson.of(Map.of(), c.where(), c.family());
            c.problem("text_config", null, "is required: it describes the text decoder");
        } else {
            text.ignore(ConfigJson.METADATA.toArray(new String[0]));
            Object type = text.raw("model_type");
            if (type != null && !type.equals("gemma3_text")) {
                text.problem("model_type", type, "is not gemma3_text");
            }
        }
        DecoderConfig config = text(text, DecoderConfig.Type.GEMMA3_IMAGE_TEXT);
        text.unknownKeys();
        c.finish();
        return config;
    }

    private static DecoderConfig text(ConfigJson c, DecoderConfig.Type type) {
        Builder b = new Builder(type, c);
        LineageDefaults d = LineageDefaults.of(x -> {
            x.vocabSize = 262208;
            x.hidden = 2304;
            x.intermediate = 9216;
            x.layers = 26;
            x.heads = 8;
            x.kvHeads = 4;
            x.headDim = 256;
            x.maxPositions = 131072;
            x.tied = true;
            x.theta = 1e6;
        });
        DecoderConfig.readLlamaLineage(b, c, d);
        int window = Gemma2.readAttention(b, c);
        String[] types = layerTypes(c, b.windows.length);
        Gemma2.windows(b, types, window);
        readRope(b, c, d, types);
        b.attentionSoftcap = softcap(c, "attn_logit_softcapping");
        b.finalSoftcap = softcap(c, "final_logit_softcapping");
        c.neutral("use_bidirectional_attention", false);
        c.ignore("attention_dropout");
        return b.build();
    }

    /** {@code layer_types}, else layer {@code i} local when {@code (i + 1) % sliding_window_pattern != 0}. */
    private static String[] layerTypes(ConfigJson c, int layers) {
        int pattern = c.integer("sliding_window_pattern", 6);
        if (pattern < 1) {
            c.problem("sliding_window_pattern", pattern, "must be at least 1");
            pattern = 6;
        }
        String[] derived = new String[layers];
        for (int i = 0; i < layers; i++) {
            derived[i] = (i + 1) % pattern != 0 ? "sliding_attention" : "full_attention";
        }
        if (c.has("layer_types")) {
            c.ignore("_sliding_window_pattern");
        } else {
            c.neutral("_sliding_window_pattern", pattern);
        }
        return DecoderConfig.layerTypes(c, layers, derived);
    }

    /**
     * The global layers' rotary embedding from {@code rope_theta} and {@code rope_scaling}, the local layers' from
     * {@code rope_local_base_freq} alone; or, when the parameters are given per layer type, those.
     */
    private static void readRope(Builder b, ConfigJson c, LineageDefaults d, String[] types) {
        if (perLayerType(c, "rope_scaling") || perLayerType(c, "rope_parameters")) {
            DecoderConfig.readRope(b, c, d, types);
            Double local = c.optionalNumber("rope_local_base_freq");
            for (int i = 0; i < types.length && local != null; i++) {
                if (types[i].equals("sliding_attention") && b.rope[i] != null && b.rope[i].base() != local) {
                    c.problem("rope_local_base_freq", local, "contradicts the sliding_attention rope_theta "
                            + b.rope[i].base());
                    break;
                }
            }
            return;
        }
        DecoderConfig.readRope(b, c, d, DecoderConfig.fullAttention(b.layers));
        double local = c.number("rope_local_base_freq", 10000.0);
        if (!(local > 0)) {
            c.problem("rope_local_base_freq", local, "must be positive");
            return;
        }
        RopeScaling localRope = RopeScaling.unscaled(d.layout, local, Math.max(2, b.headDim - b.headDim % 2),
                Math.max(1, b.maxPositions));
        for (int i = 0; i < types.length; i++) {
            if (types[i].equals("sliding_attention")) {
                b.rope[i] = localRope;
            }
        }
    }

    private static boolean perLayerType(ConfigJson c, String key) {
        return c.has(key) && c.raw(key) instanceof Map<?, ?> m && !m.isEmpty()
                && RopeScaling.LAYER_TYPES.containsAll(m.keySet());
    }

    /** @return the soft-cap of {@code key}; 0 when absent or null, as Gemma 3 ships */
    private static double softcap(ConfigJson c, String key) {
        Double cap = c.optionalNumber(key);
        if (cap == null) {
            return 0;
        }
        if (!(cap > 0)) {
            c.problem(key, cap, "must be positive, or null for none");
            return 0;
        }
        return cap;
    }

    /**
     * {@link Gemma2}'s blocks with the per-head {@code self_attn.q_norm} and {@code self_attn.k_norm}.
     *
     * @param c the config
     * @param w the state_dict
     * @return the decoder
     */
    static DecoderStack bind(DecoderConfig c, Weights w) {
        return Gemma2.bind(c, w, true);
    }

    /**
     * The text decoder of an image-text checkpoint: {@code language_model.model.*} (or {@code model.language_model.*})
     * read as {@code model.*}, {@code language_model.lm_head.weight} as {@code lm_head.weight}, and the modules of
     * {@link #IMAGE_MODULES} left unloaded.
     *
     * @param c the config
     * @param w the state_dict
     * @return the decoder
     */
    static DecoderStack bindTextOfImageText(DecoderConfig c, Weights w) {
        for (String module : IMAGE_MODULES) {
            w.ignoreUnder(module);
        }
        w.rename("language_model.model.", "model.");
        w.rename("model.language_model.", "model.");
        w.rename("language_model.lm_head.", "lm_head.");
        return bind(c, w);
    }
}
