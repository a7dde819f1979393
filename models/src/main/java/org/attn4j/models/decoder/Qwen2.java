package org.attn4j.models.decoder;

import java.util.List;
import org.attn4j.models.decoder.DecoderConfig.Builder;
import org.attn4j.models.decoder.DecoderConfig.LineageDefaults;

/**
 * Qwen2 and Qwen2.5 ({@code model_type} {@code qwen2}): {@link Llama}'s blocks and names with biases on the query,
 * key and value projections ({@code self_attn.{q,k,v}_proj.bias}, none on {@code o_proj}), as transformers'
 * {@code Qwen2Attention} always has them. Layers of type {@code sliding_attention} attend to a window of
 * {@code sliding_window} keys when {@code use_sliding_window} is true; without {@code layer_types}, the layers from
 * {@code max_window_layers} on are of that type.
 *
 * <p>Keys honoured (transformers' {@code Qwen2Config} defaults where absent): {@code vocab_size} (151936),
 * {@code hidden_size} (4096), {@code intermediate_size} (22016), {@code num_hidden_layers} (32),
 * {@code num_attention_heads} (32), {@code num_key_value_heads} (32), {@code head_dim}
 * ({@code hidden_size / num_attention_heads}), {@code hidden_act} ({@code silu}), {@code max_position_embeddings}
 * (32768), {@code rms_norm_eps} (1e-6), {@code rope_theta} (10000), {@code rope_scaling} /
 * {@code rope_parameters} (Qwen2.5's {@code yarn} among them; per layer type too), {@code use_sliding_window}
 * (false), {@code sliding_window} (4096), {@code max_window_layers} (28), {@code layer_types},
 * {@code tie_word_embeddings} (false).
 *
 * <p>Ignored: {@code attention_bias} (transformers' Qwen2 reads no such key: its q, k and v biases are always
 * there), {@code attention_dropout}, and the metadata of {@link ConfigJson#METADATA}. Refused:
 * {@code use_mrope} true (Qwen2-VL's multimodal rotary positions), {@code partial_rotary_factor} other than 1, and
 * every other key.
 */
final class Qwen2 {

    private Qwen2() {
    }

    static DecoderConfig read(ConfigJson c) {
        Builder b = new Builder(DecoderConfig.Type.QWEN2, c);
        LineageDefaults d = LineageDefaults.of(x -> {
            x.vocabSize = 151936;
            x.intermediate = 22016;
            x.kvHeads = 32;
            x.maxPositions = 32768;
        });
        DecoderConfig.readLlamaLineage(b, c, d);
        readWindows(b, c, d);
        b.activation = DecoderConfig.activation(c, "hidden_act", "silu",
                List.of("silu", "swish", "gelu", "gelu_new", "gelu_pytorch_tanh", "relu"));
        b.qkvBias = true;
        c.neutral("use_mrope", false);
        c.ignore("attention_bias", "attention_dropout");
        c.finish();
        return b.build();
    }

    /**
     * The sliding windows and the rotary embedding of the Qwen families: {@code use_sliding_window} (false),
     * {@code sliding_window} (4096; null for none), {@code max_window_layers} (28) and {@code layer_types}
     * (default: {@code sliding_attention} from {@code max_window_layers} on, when a window is used), as
     * transformers' {@code Qwen2Config} and {@code Qwen3Config} derive them.
     */
    static void readWindows(Builder b, ConfigJson c, LineageDefaults d) {
        boolean use = c.bool("use_sliding_window", false);
        int window = c.present("sliding_window") ? Mistral.window(c, "sliding_window") : 4096;
        int maxWindowLayers = c.integer("max_window_layers", 28);
        String[] derived = new String[b.windows.length];
        for (int i = 0; i < derived.length; i++) {
            derived[i] = use && window > 0 && i >= maxWindowLayers ? "sliding_attention" : "full_attention";
        }
        String[] types = DecoderConfig.layerTypes(c, b.windows.length, derived);
        for (int i = 0; i < types.length; i++) {
            b.windows[i] = use && types[i].equals("sliding_attention") ? window : 0;
        }
        DecoderConfig.readRope(b, c, d, types);
    }
}
