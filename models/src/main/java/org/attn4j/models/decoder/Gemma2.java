package org.attn4j.models.decoder;

import org.attn4j.models.decoder.DecoderConfig.Builder;
import org.attn4j.models.decoder.DecoderConfig.LineageDefaults;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.layers.Norm;

/**
 * Gemma 2 ({@code model_type} {@code gemma2}): {@link Gemma}'s embeddings, {@code 1 + w} norms and GELU gate, with
 * a norm before and after each half of a block, soft-capped attention logits and final logits, queries scaled by
 * {@code query_pre_attn_scalar^-1/2}, and local layers (a sliding window) alternating with global ones, under
 * Hugging Face's names {@code model.layers.N.{input_layernorm, post_attention_layernorm,
 * pre_feedforward_layernorm, post_feedforward_layernorm}} besides Llama's:
 * <pre>
 *   x += postAttentionNorm(o(attention(q(n), k(n), v(n))))    n = inputNorm(x), logits c·tanh(l / c), c = 50
 *   x += postFeedforwardNorm(down(gelu(gate(n)) ⊙ up(n)))     n = preFeedforwardNorm(x)
 *   logits = 30·tanh(head(norm(x)) / 30)
 * </pre>
 *
 * <p>Keys honoured (transformers' {@code Gemma2Config} defaults where absent): {@code vocab_size} (256000),
 * {@code hidden_size} (2304), {@code intermediate_size} (9216), {@code num_hidden_layers} (26),
 * {@code num_attention_heads} (8), {@code num_key_value_heads} (4), {@code head_dim} (256),
 * {@code hidden_activation} ({@code gelu_pytorch_tanh}), {@code max_position_embeddings} (8192),
 * {@code rms_norm_eps} (1e-6), {@code rope_theta} (10000), {@code rope_scaling} / {@code rope_parameters} (per layer
 * type too), {@code attention_bias} (false), {@code query_pre_attn_scalar} (256), {@code sliding_window} (4096;
 * null for none), {@code layer_types} (default: even layers {@code sliding_attention}, odd ones
 * {@code full_attention}), {@code attn_logit_softcapping} (50; null for none), {@code final_logit_softcapping} (30;
 * null for none), {@code tie_word_embeddings} (true).
 *
 * <p>Ignored: {@code hidden_act} when it names a GELU (as for {@link Gemma}), {@code sliding_window_size} (an alias
 * some checkpoints carry that transformers does not read; it reads {@code sliding_window}),
 * {@code attention_dropout} (training only), and the metadata of {@link ConfigJson#METADATA} (the
 * {@code cache_implementation} {@code hybrid} among them). Refused: {@code partial_rotary_factor} other than 1 and
 * every other key.
 */
final class Gemma2 {

    private Gemma2() {
    }

    static DecoderConfig read(ConfigJson c) {
        Builder b = new Builder(DecoderConfig.Type.GEMMA2, c);
        LineageDefaults d = LineageDefaults.of(x -> {
            x.vocabSize = 256000;
            x.hidden = 2304;
            x.intermediate = 9216;
            x.layers = 26;
            x.heads = 8;
            x.kvHeads = 4;
            x.headDim = 256;
            x.maxPositions = 8192;
            x.tied = true;
        });
        DecoderConfig.readLlamaLineage(b, c, d);
        int window = readAttention(b, c);
        String[] alternate = new String[b.windows.length];
        for (int i = 0; i < alternate.length; i++) {
            alternate[i] = (i + 1) % 2 == 1 ? "sliding_attention" : "full_attention";
        }
        String[] types = DecoderConfig.layerTypes(c, b.windows.length, alternate);
        windows(b, types, window);
        DecoderConfig.readRope(b, c, d, types);
        b.attentionSoftcap = softcap(c, "attn_logit_softcapping", 50.0);
        b.finalSoftcap = softcap(c, "final_logit_softcapping", 30.0);
        c.ignore("sliding_window_size", "attention_dropout");
        c.finish();
        return b.build();
    }

    /**
     * What Gemma 2 and Gemma 3 read alike after Llama's lineage: the GELU gate, {@code attention_bias} (false) on
     * q, k, v and o, and queries scaled by {@code query_pre_attn_scalar^-1/2} (256).
     *
     * @param b receives them
     * @param c the config
     * @return {@code sliding_window}, 4096 where absent
     */
    static int readAttention(Builder b, ConfigJson c) {
        b.activation = Gemma.activation(c);
        boolean bias = c.bool("attention_bias", false);
        b.qkvBias = bias;
        b.outputBias = bias;
        double scalar = c.number("query_pre_attn_scalar", 256);
        if (!(scalar > 0)) {
            c.problem("query_pre_attn_scalar", scalar, "must be positive");
        } else {
            b.attentionScale = Math.pow(scalar, -0.5);
        }
        return c.present("sliding_window") ? Mistral.window(c, "sliding_window") : 4096;
    }

    /**
     * @param b receives each layer's window: {@code window} where {@code types[i]} is {@code sliding_attention},
     *          none (0) elsewhere
     * @param types each layer's type
     * @param window the local layers' window
     */
    static void windows(Builder b, String[] types, int window) {
        for (int i = 0; i < types.length; i++) {
            b.windows[i] = types[i].equals("sliding_attention") ? window : 0;
        }
    }

    private static double softcap(ConfigJson c, String key, double fallback) {
        if (c.present(key) && !c.has(key)) {
            c.raw(key);
            return 0;
        }
        double cap = c.number(key, fallback);
        if (!(cap > 0)) {
            c.problem(key, cap, "must be positive, or null for none");
            return 0;
        }
        return cap;
    }

    /**
     * Gemma 2's sandwich blocks: {@code input_layernorm}, {@code post_attention_layernorm},
     * {@code pre_feedforward_layernorm} and {@code post_feedforward_layernorm}, each {@code 1 + w}.
     *
     * @param c the config
     * @param w the state_dict
     * @return the decoder
     */
    static DecoderStack bind(DecoderConfig c, Weights w) {
        return bind(c, w, false);
    }

    /**
     * @param c the config
     * @param w the state_dict
     * @param perHeadNorms whether the blocks norm each head of the queries and keys ({@code self_attn.q_norm},
     *     {@code self_attn.k_norm}, {@code 1 + w}: {@link Gemma3})
     * @return the decoder
     */
    static DecoderStack bind(DecoderConfig c, Weights w, boolean perHeadNorms) {
        int e = c.hidden();
        int q = c.heads() * c.headDim();
        int inner = c.intermediate();
        double eps = c.eps();
        Embedding embed = w.table("model.embed_tokens.weight", c.vocabSize(), e);
        DecoderStack.Block[] blocks = new DecoderStack.Block[c.layers()];
        for (int l = 0; l < blocks.length; l++) {
            String p = "model.layers." + l + ".";
            DecoderAttention attention = DecoderAttention.of(w, p + "self_attn.", c.qkvBias(),
                    perHeadNorms ? w.rms(p + "self_attn.q_norm.weight", c.headDim(), eps, true) : null,
                    perHeadNorms ? w.rms(p + "self_attn.k_norm.weight", c.headDim(), eps, true) : null,
                    w.projection(p + "self_attn.o_proj", e, q, c.outputBias()), c, l);
            FeedForward mlp = FeedForward.gated(w.stacked(p + "mlp.gate_proj", p + "mlp.up_proj", inner, e, false),
                    w.projection(p + "mlp.down_proj", e, inner, false), c.activation());
            blocks[l] = new DecoderStack.Block(w.rms(p + "input_layernorm.weight", e, eps, true), attention,
                    w.rms(p + "post_attention_layernorm.weight", e, eps, true),
                    w.rms(p + "pre_feedforward_layernorm.weight", e, eps, true), mlp,
                    w.rms(p + "post_feedforward_layernorm.weight", e, eps, true), c.rope(l));
        }
        Norm norm = w.rms("model.norm.weight", e, eps, true);
        return new DecoderStack(embed, null, DecoderStack.sqrtHidden(e, w.dtype()), blocks, norm, Llama.head(c, w, embed),
                c.finalSoftcap());
    }
}
