package org.attn4j.models.decoder;

import java.util.List;
import org.attn4j.models.decoder.DecoderConfig.Builder;
import org.attn4j.models.layers.Embedding;
import org.attn4j.models.layers.Norm;

/**
 * GPT-2 ({@code model_type} {@code gpt2}) under Hugging Face's names: {@code wte}, {@code wpe}, per block
 * {@code h.N.ln_1}, {@code h.N.attn.c_attn} and {@code c_proj} (Conv1D weights {@code [in, out]}, transposed once at
 * load), {@code h.N.ln_2}, {@code h.N.mlp.c_fc} and {@code c_proj}; {@code ln_f}; the LM head is {@code wte} (or
 * {@code lm_head} when not tied); an optional {@code transformer.} prefix; the {@code attn.bias} and
 * {@code attn.masked_bias} buffers are ignored:
 * <pre>
 *   x  = wte(ids) + wpe(positions)
 *   x += c_proj(attention(c_attn(ln_1(x))))
 *   x += c_proj(act(c_fc(ln_2(x))))
 * </pre>
 *
 * <p>Keys honoured (transformers' {@code GPT2Config} defaults where absent): {@code vocab_size} (50257),
 * {@code n_positions} (1024), {@code n_embd} (768), {@code n_layer} (12), {@code n_head} (12), {@code n_inner}
 * (null: {@code 4·n_embd}), {@code activation_function} ({@code gelu_new}; also {@code gelu_pytorch_tanh},
 * {@code gelu}, {@code relu}, {@code silu}), {@code layer_norm_epsilon} (1e-5), {@code scale_attn_weights} (true:
 * {@code 1/sqrt(d)}; false: 1), {@code scale_attn_by_inverse_layer_idx} (false), {@code tie_word_embeddings}
 * (true).
 *
 * <p>Ignored: {@code n_ctx} (the old name of the context length, which {@code n_positions} fixes),
 * {@code n_special} and {@code predict_special_tokens} (OpenAI GPT's keys that GPT-2 checkpoints still carry and
 * transformers' GPT-2 does not read),
 * {@code reorder_and_upcast_attn} (it upcasts half-precision products to float32; attn4j computes in F32 or F64
 * anyway), {@code attn_pdrop}, {@code embd_pdrop} and {@code resid_pdrop} (training only), the
 * {@code summary_*} keys of the classification heads, and the metadata of {@link ConfigJson#METADATA}
 * ({@code add_cross_attention} only false). Refused: every other key.
 */
final class Gpt2 {

    private Gpt2() {
    }

    static DecoderConfig read(ConfigJson c) {
        Builder b = new Builder(DecoderConfig.Type.GPT2, c);
        b.vocabSize = c.integer("vocab_size", 50257);
        b.maxPositions = c.integer("n_positions", 1024);
        b.hidden = c.integer("n_embd", 768);
        b.layers = c.integer("n_layer", 12);
        b.heads = c.integer("n_head", 12);
        b.kvHeads = b.heads;
        if (b.heads > 0 && b.hidden % b.heads != 0) {
            c.problem("n_embd", b.hidden, "is not a multiple of n_head " + b.heads);
        }
        b.headDim = b.heads > 0 ? b.hidden / b.heads : 0;
        b.intermediate = c.integer("n_inner", 4 * b.hidden);
        b.activation = DecoderConfig.activation(c, "activation_function", "gelu_new",
                List.of("gelu_new", "gelu_pytorch_tanh", "gelu", "relu", "silu", "swish"));
        b.eps = c.number("layer_norm_epsilon", 1e-5);
        if (!c.bool("scale_attn_weights", true)) {
            b.attentionScale = 1.0;
        }
        b.scaleByInverseLayer = c.bool("scale_attn_by_inverse_layer_idx", false);
        b.tiedEmbeddings = c.bool("tie_word_embeddings", true);
        b.windows = new int[Math.max(0, b.layers)];
        b.qkvBias = true;
        b.outputBias = true;
        b.mlpBias = true;
        c.ignore("n_ctx", "n_special", "predict_special_tokens", "reorder_and_upcast_attn", "attn_pdrop", "embd_pdrop", "resid_pdrop", "summary_type",
                "summary_use_proj", "summary_activation", "summary_proj_to_labels", "summary_first_dropout");
        c.finish();
        return b.build();
    }

    static DecoderStack bind(DecoderConfig c, Weights w) {
        int e = c.hidden();
        int inner = c.intermediate();
        double eps = c.eps();
        Embedding wte = w.table("wte.weight", c.vocabSize(), e);
        Embedding wpe = w.table("wpe.weight", c.maxPositions(), e);
        DecoderStack.Block[] blocks = new DecoderStack.Block[c.layers()];
        for (int l = 0; l < blocks.length; l++) {
            String p = "h." + l + ".";
            w.ignore(p + "attn.bias");
            w.ignore(p + "attn.masked_bias");
            DecoderAttention attention = DecoderAttention.fused(w.conv1d(p + "attn.c_attn", e, 3 * e),
                    w.conv1d(p + "attn.c_proj", e, e), c, l);
            FeedForward mlp = FeedForward.plain(w.conv1d(p + "mlp.c_fc", e, inner), w.conv1d(p + "mlp.c_proj", inner, e),
                    c.activation());
            blocks[l] = new DecoderStack.Block(w.layerNorm(p + "ln_1", e, eps), attention, null,
                    w.layerNorm(p + "ln_2", e, eps), mlp, null, null);
        }
        Norm norm = w.layerNorm("ln_f", e, eps);
        return new DecoderStack(wte, wpe, 1.0, blocks, norm, Llama.head(c, w, wte), 0);
    }
}
