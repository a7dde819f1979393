package org.attn4j.models.decoder;

import java.util.List;
import org.attn4j.api.Activation;
import org.attn4j.models.decoder.DecoderConfig.Builder;
import org.attn4j.models.decoder.DecoderConfig.LineageDefaults;

/**
 * Gemma ({@code model_type} {@code gemma}): {@link Llama}'s blocks and names, with the embeddings multiplied by
 * {@code sqrt(hidden_size)} (a tensor of the activations' dtype, so rounded to float in F32, as transformers
 * forms it), every RMS norm multiplying by {@code 1 + w}, the MLP gate a GELU ({@code hidden_activation}, tanh form
 * by default), and the LM head tied to the embedding by default.
 *
 * <p>Keys honoured (transformers' {@code GemmaConfig} defaults where absent): {@code vocab_size} (256000),
 * {@code hidden_size} (3072), {@code intermediate_size} (24576), {@code num_hidden_layers} (28),
 * {@code num_attention_heads} (16), {@code num_key_value_heads} (16), {@code head_dim} (256),
 * {@code hidden_activation} (null: {@code gelu_pytorch_tanh}; also {@code gelu_new}, {@code gelu}),
 * {@code max_position_embeddings} (8192), {@code rms_norm_eps} (1e-6), {@code rope_theta} (10000),
 * {@code rope_scaling} / {@code rope_parameters}, {@code attention_bias} (false: biases on q, k, v and o),
 * {@code tie_word_embeddings} (true).
 *
 * <p>Ignored: {@code hidden_act} when it names a GELU (transformers documents it as the legacy key that
 * {@code hidden_activation} overrides, and Gemma's MLP runs the tanh form when neither says otherwise),
 * {@code attention_dropout} (training only), and the metadata of {@link ConfigJson#METADATA}. Refused: any other
 * {@code hidden_act}, {@code partial_rotary_factor} other than 1, and every other key.
 */
final class Gemma {
    /** The activations Gemma's MLP may name. */
    static final List<String> GELUS = List.of("gelu_pytorch_tanh", "gelu_new", "gelu");

    private Gemma() {
    }

    static DecoderConfig read(ConfigJson c) {
        Builder b = new Builder(DecoderConfig.Type.GEMMA, c);
        LineageDefaults d = LineageDefaults.of(x -> {
            x.vocabSize = 256000;
            x.hidden = 3072;
            x.intermediate = 24576;
            x.layers = 28;
            x.heads = 16;
            x.kvHeads = 16;
            x.headDim = 256;
            x.maxPositions = 8192;
            x.tied = true;
        });
        DecoderConfig.readLlamaLineage(b, c, d);
        DecoderConfig.readRope(b, c, d, DecoderConfig.fullAttention(b.layers));
        b.activation = activation(c);
        boolean bias = c.bool("attention_bias", false);
        b.qkvBias = bias;
        b.outputBias = bias;
        c.ignore("attention_dropout");
        c.finish();
        return b.build();
    }

    /** {@code hidden_activation}, else the tanh GELU; {@code hidden_act} accepted when it names a GELU. */
    static Activation activation(ConfigJson c) {
        DecoderConfig.activation(c, "hidden_act", "gelu_pytorch_tanh", GELUS);
        return DecoderConfig.activation(c, "hidden_activation", "gelu_pytorch_tanh", GELUS);
    }
}
