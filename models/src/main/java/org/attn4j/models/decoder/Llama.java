package org.attn4j.models.decoder;

import java.util.List;
import org.attn4j.api.RopeLayout;
import org.attn4j.models.decoder.DecoderConfig.Builder;
import org.attn4j.models.decoder.DecoderConfig.LineageDefaults;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.layers.Norm;

/**
 * Llama ({@code model_type} {@code llama}: Llama 2, Llama 3.x, SmolLM, TinyLlama), and the block layout the Llama
 * lineage shares, under Hugging Face's names: {@code model.embed_tokens}, per block
 * {@code model.layers.N.input_layernorm}, {@code self_attn.{q,k,v,o}_proj}, {@code post_attention_layernorm},
 * {@code mlp.{gate,up,down}_proj}; {@code model.norm}; {@code lm_head}, or the embedding when tied:
 * <pre>
 *   x += o(attention(rope(q(n)), rope(k(n)), v(n)))      n = rmsNorm(x), k and v of H_kv heads
 *   x += down(act(gate(n)) ⊙ up(n))                       n = rmsNorm(x)
 * </pre>
 *
 * <p>Keys honoured (transformers' {@code LlamaConfig} defaults where absent): {@code vocab_size} (32000),
 * {@code hidden_size} (4096), {@code intermediate_size} (11008), {@code num_hidden_layers} (32),
 * {@code num_attention_heads} (32), {@code num_key_value_heads} (the heads), {@code head_dim}
 * ({@code hidden_size / num_attention_heads}), {@code hidden_act} ({@code silu}; also {@code gelu},
 * {@code gelu_new}, {@code gelu_pytorch_tanh}, {@code relu}), {@code max_position_embeddings} (2048),
 * {@code rms_norm_eps} (1e-6), {@code rope_theta} (10000), {@code rope_scaling} / {@code rope_parameters} (every
 * type of {@link RopeScaling}, Llama 3.1's and 3.2's {@code llama3} among them), {@code attention_bias} (false:
 * biases on q, k, v and o), {@code mlp_bias} (false), {@code tie_word_embeddings} (false), and attn4j's own
 * {@code rope_interleaved} (false: half-split pairs; true: GPT-J's interleaved pairs).
 *
 * <p>Keys ignored because they change no number: {@code pretraining_tp} (transformers' sliced products are the
 * same products), {@code attention_dropout} (training only), nanotron's {@code is_llama_config}, and the metadata
 * of {@link ConfigJson#METADATA}. Refused: {@code sliding_window} with a value (transformers' Llama has no window;
 * a windowed checkpoint is {@code mistral}), {@code partial_rotary_factor} other than 1, and every other key.
 */
final class Llama {

    private Llama() {
    }

    static DecoderConfig read(ConfigJson c) {
        Builder b = new Builder(DecoderConfig.Type.LLAMA, c);
        RopeLayout layout = c.bool("rope_interleaved", false) ? RopeLayout.INTERLEAVED : RopeLayout.HALF_SPLIT;
        LineageDefaults d = LineageDefaults.of(x -> x.layout = layout);
        DecoderConfig.readLlamaLineage(b, c, d);
        DecoderConfig.readRope(b, c, d, DecoderConfig.fullAttention(b.layers));
        b.activation = DecoderConfig.activation(c, "hidden_act", "silu",
                List.of("silu", "swish", "gelu", "gelu_new", "gelu_pytorch_tanh", "relu"));
        boolean bias = c.bool("attention_bias", false);
        b.qkvBias = bias;
        b.outputBias = bias;
        b.mlpBias = c.bool("mlp_bias", false);
        if (c.has("sliding_window")) {
            c.problem("sliding_window", c.raw("sliding_window"), "is not used by transformers' Llama, which attends"
                    + " to every key; a checkpoint trained with a window is model_type mistral");
        }
        c.ignore("sliding_window", "pretraining_tp", "attention_dropout", "is_llama_config");
        c.finish();
        return b.build();
    }

    /**
     * The Llama layout with each family's pieces: biases as the config says; Qwen3's per-head {@code q_norm} and
     * {@code k_norm}; Gemma's {@code 1 + w} norms and embeddings scaled by {@code sqrt(hidden)}; Phi-3's fused
     * {@code self_attn.qkv_proj} (rows q, k, v) and {@code mlp.gate_up_proj} (rows gate, up).
     *
     * @param c the config
     * @param w the state_dict
     * @return the decoder
     */
    static DecoderStack bind(DecoderConfig c, Weights w) {
        DecoderConfig.Type type = c.type();
        boolean gemma = type == DecoderConfig.Type.GEMMA;
        boolean fused = type == DecoderConfig.Type.PHI3;
        int e = c.hidden();
        int q = c.heads() * c.headDim();
        int kv = c.kvHeads() * c.headDim();
        int inner = c.intermediate();
        double eps = c.eps();
        Embedding embed = w.table("model.embed_tokens.weight", c.vocabSize(), e);
        DecoderStack.Block[] blocks = new DecoderStack.Block[c.layers()];
        for (int l = 0; l < blocks.length; l++) {
            String p = "model.layers." + l + ".";
            w.ignore(p + "self_attn.rotary_emb.inv_freq");
            DecoderAttention attention;
            FeedForward mlp;
            if (fused) {
                attention = DecoderAttention.fused(w.projection(p + "self_attn.qkv_proj", q + 2 * kv, e, false),
                        w.projection(p + "self_attn.o_proj", e, q, false), c, l);
                mlp = FeedForward.gated(w.projection(p + "mlp.gate_up_proj", 2 * inner, e, false),
                        w.projection(p + "mlp.down_proj", e, inner, false), c.activation());
            } else {
                boolean qk = type == DecoderConfig.Type.QWEN3;
                attention = DecoderAttention.of(w, p + "self_attn.", c.qkvBias(),
                        qk ? w.rms(p + "self_attn.q_norm.weight", c.headDim(), eps, false) : null,
                        qk ? w.rms(p + "self_attn.k_norm.weight", c.headDim(), eps, false) : null,
                        w.projection(p + "self_attn.o_proj", e, q, c.outputBias()), c, l);
                mlp = FeedForward.gated(w.stacked(p + "mlp.gate_proj", p + "mlp.up_proj", inner, e, c.mlpBias()),
                        w.projection(p + "mlp.down_proj", e, inner, c.mlpBias()), c.activation());
            }
            blocks[l] = new DecoderStack.Block(w.rms(p + "input_layernorm.weight", e, eps, gemma), attention, null,
                    w.rms(p + "post_attention_layernorm.weight", e, eps, gemma), mlp, null, c.rope(l));
        }
        Norm norm = w.rms("model.norm.weight", e, eps, gemma);
        return new DecoderStack(embed, null, gemma ? DecoderStack.sqrtHidden(e, w.dtype()) : 1.0, blocks, norm,
                head(c, w, embed), c.finalSoftcap());
    }

    /**
     * @return {@code lm_head}, or the embedding when tied (a {@code lm_head.weight} in the file is then dropped,
     *     as transformers ties it over)
     */
    static Linear head(DecoderConfig c, Weights w, Embedding embed) {
        if (c.tiedEmbeddings()) {
            w.ignore("lm_head.weight");
            return embed == null ? null : embed.asHead();
        }
        return w.projection("lm_head", c.vocabSize(), c.hidden(), false);
    }
}
