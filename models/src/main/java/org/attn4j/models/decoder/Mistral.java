package org.attn4j.models.decoder;

import java.util.Arrays;
import java.util.List;
import org.attn4j.models.decoder.DecoderConfig.Builder;
import org.attn4j.models.decoder.DecoderConfig.LineageDefaults;

/**
 * Mistral ({@code model_type} {@code mistral}: Mistral 7B v0.1–v0.3, Mistral NeMo): {@link Llama}'s blocks and
 * names, every layer attending to a sliding window of {@code sliding_window} keys (itself included) when one is
 * set.
 *
 * <p>Keys honoured (transformers' {@code MistralConfig} defaults where absent): {@code vocab_size} (32000),
 * {@code hidden_size} (4096), {@code intermediate_size} (14336), {@code num_hidden_layers} (32),
 * {@code num_attention_heads} (32), {@code num_key_value_heads} (8), {@code head_dim} (null:
 * {@code hidden_size / num_attention_heads}), {@code hidden_act} ({@code silu}), {@code max_position_embeddings}
 * (131072), {@code rms_norm_eps} (1e-6), {@code rope_theta} (10000), {@code rope_scaling} /
 * {@code rope_parameters}, {@code sliding_window} (4096 when absent, none when null), {@code tie_word_embeddings}
 * (false).
 *
 * <p>Ignored: {@code attention_dropout} (training only) and the metadata of {@link ConfigJson#METADATA}. Refused:
 * {@code attention_bias} true (Mistral's projections have no bias), {@code partial_rotary_factor} other than 1,
 * and every other key.
 */
final class Mistral {

    private Mistral() {
    }

    static DecoderConfig read(ConfigJson c) {
        Builder b = new Builder(DecoderConfig.Type.MISTRAL, c);
        LineageDefaults d = LineageDefaults.of(x -> {
            x.intermediate = 14336;
            x.kvHeads = 8;
            x.maxPositions = 4096 * 32;
        });
        DecoderConfig.readLlamaLineage(b, c, d);
        DecoderConfig.readRope(b, c, d, DecoderConfig.fullAttention(b.layers));
        b.activation = DecoderConfig.activation(c, "hidden_act", "silu",
                List.of("silu", "swish", "gelu", "gelu_new", "gelu_pytorch_tanh", "relu"));
        int window = c.present("sliding_window") ? window(c, "sliding_window") : 4096;
        Arrays.fill(b.windows, window);
        c.neutral("attention_bias", false);
        c.ignore("attention_dropout");
        c.finish();
        return b.build();
    }

    /** @return the window of {@code key}, 0 for null, a problem noted when it is not a positive integer */
    static int window(ConfigJson c, String key) {
        Integer w = c.optionalInteger(key);
        if (w == null) {
            return 0;
        }
        if (w < 1) {
            c.problem(key, w, "must be at least 1, or null for none");
            return 0;
        }
        return w;
    }
}
