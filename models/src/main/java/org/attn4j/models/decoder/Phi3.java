package org.attn4j.models.decoder;

import java.util.Arrays;
import java.util.List;
import org.attn4j.models.decoder.DecoderConfig.Builder;
import org.attn4j.models.decoder.DecoderConfig.LineageDefaults;

/**
 * Phi-3 ({@code model_type} {@code phi3}: Phi-3 and Phi-3.5 mini and medium, Phi-4 and Phi-4-mini): {@link Llama}'s
 * blocks with one fused {@code self_attn.qkv_proj} (rows q, then k, then v) and one fused {@code mlp.gate_up_proj}
 * (rows gate, then up), no biases, a sliding window on every layer when {@code sliding_window} is set, and LongRoPE
 * ({@code rope_scaling} type {@code longrope}, or its old name {@code su}) over the first
 * {@code partial_rotary_factor} of each head. As transformers' {@code Phi3ForCausalLM} does, the first forward
 * whose sequence passes {@code original_max_position_embeddings} while the cache holds no more than that runs the
 * whole sequence again, so that every cached key switches to the long factors ({@link CausalLM}).
 *
 * <p>Keys honoured (transformers' {@code Phi3Config} defaults where absent): {@code vocab_size} (32064),
 * {@code hidden_size} (3072), {@code intermediate_size} (8192), {@code num_hidden_layers} (32),
 * {@code num_attention_heads} (32), {@code num_key_value_heads} (the heads), {@code head_dim}
 * ({@code hidden_size / num_attention_heads}), {@code hidden_act} ({@code silu}), {@code max_position_embeddings}
 * (4096), {@code original_max_position_embeddings} (4096), {@code rms_norm_eps} (1e-5), {@code rope_theta} (10000),
 * {@code rope_scaling} / {@code rope_parameters}, {@code partial_rotary_factor} (1), {@code sliding_window} (null),
 * {@code tie_word_embeddings} (false).
 *
 * <p>Ignored: {@code attention_bias}, {@code mlp_bias} and {@code lm_head_bias} (transformers' Phi-3 modules read
 * none of them and have no biases; a bias tensor in the file is refused as unexpected), {@code attention_dropout},
 * {@code embd_pdrop} and {@code resid_pdrop} (training only), and the metadata of {@link ConfigJson#METADATA}.
 * Accepted only with the value that changes nothing: Phi-4-mini's remote-code keys {@code full_attn_mod} (1) and
 * {@code interpolate_factor} (1). Refused: every other key.
 */
final class Phi3 {

    private Phi3() {
    }

    static DecoderConfig read(ConfigJson c) {
        Builder b = new Builder(DecoderConfig.Type.PHI3, c);
        int original = c.integer("original_max_position_embeddings", 4096);
        LineageDefaults d = LineageDefaults.of(x -> {
            x.vocabSize = 32064;
            x.hidden = 3072;
            x.intermediate = 8192;
            x.eps = 1e-5;
            x.maxPositions = 4096;
            x.original = original;
            x.partialAllowed = true;
        });
        DecoderConfig.readLlamaLineage(b, c, d);
        DecoderConfig.readRope(b, c, d, DecoderConfig.fullAttention(b.layers));
        b.activation = DecoderConfig.activation(c, "hidden_act", "silu",
                List.of("silu", "swish", "gelu", "gelu_new", "gelu_pytorch_tanh", "relu"));
        Arrays.fill(b.windows, Mistral.window(c, "sliding_window"));
        if (b.rope.length > 0 && b.rope[0] != null && b.rope[0].changesWithLength()) {
            b.recomputeBeyond = original;
        }
        c.neutral("full_attn_mod", 1);
        c.neutral("interpolate_factor", 1);
        c.ignore("attention_bias", "mlp_bias", "lm_head_bias", "attention_dropout", "embd_pdrop", "resid_pdrop");
        c.finish();
        return b.build();
    }
}
