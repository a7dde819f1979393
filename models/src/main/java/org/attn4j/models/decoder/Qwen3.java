package org.attn4j.models.decoder;

import java.util.List;
import org.attn4j.models.decoder.DecoderConfig.Builder;
import org.attn4j.models.decoder.DecoderConfig.LineageDefaults;

/**
 * Qwen3 ({@code model_type} {@code qwen3}): {@link Llama}'s blocks and names with an RMS norm over each head of the
 * queries and keys before the rotary embedding ({@code self_attn.q_norm.weight} and {@code self_attn.k_norm.weight},
 * {@code [head_dim]}, as transformers' {@code Qwen3Attention}), an explicit {@code head_dim}, and the sliding
 * windows of {@link Qwen2#readWindows}.
 *
 * <p>Keys honoured (transformers' {@code Qwen3Config} defaults where absent): {@code vocab_size} (151936),
 * {@code hidden_size} (4096), {@code intermediate_size} (22016), {@code num_hidden_layers} (32),
 * {@code num_attention_heads} (32), {@code num_key_value_heads} (32), {@code head_dim} (128), {@code hidden_act}
 * ({@code silu}), {@code max_position_embeddings} (32768), {@code rms_norm_eps} (1e-6, also the per-head norms'),
 * {@code rope_theta} (10000), {@code rope_scaling} / {@code rope_parameters}, {@code attention_bias} (false:
 * biases on q, k, v and o), {@code use_sliding_window} (false), {@code sliding_window} (4096),
 * {@code max_window_layers} (28), {@code layer_types}, {@code tie_word_embeddings} (false).
 *
 * <p>Ignored: {@code attention_dropout} (training only) and the metadata of {@link ConfigJson#METADATA}. Refused:
 * {@code partial_rotary_factor} other than 1 and every other key.
 */
final class Qwen3 {

    private Qwen3() {
    }

    static DecoderConfig read(ConfigJson c) {
        Builder b = new Builder(DecoderConfig.Type.QWEN3, c);
        LineageDefaults d = LineageDefaults.of(x -> {
            x.vocabSize = 151936;
            x.intermediate = 22016;
            x.kvHeads = 32;
            x.headDim = 128;
            x.maxPositions = 32768;
        });
        DecoderConfig.readLlamaLineage(b, c, d);
        Qwen2.readWindows(b, c, d);
        b.activation = DecoderConfig.activation(c, "hidden_act", "silu",
                List.of("silu", "swish", "gelu", "gelu_new", "gelu_pytorch_tanh", "relu"));
        boolean bias = c.bool("attention_bias", false);
        b.qkvBias = bias;
        b.outputBias = bias;
        c.ignore("attention_dropout");
        c.finish();
        return b.build();
    }
}
