package org.attn4j.models.decoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.attn4j.api.Activation;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Ops;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;

/**
 * A Llama-style decoder under Hugging Face's names: {@code model.embed_tokens}, per block
 * {@code model.layers.N.input_layernorm}, {@code self_attn.{q,k,v,o}_proj}, {@code post_attention_layernorm},
 * {@code mlp.{gate,up,down}_proj}; {@code model.norm}; {@code lm_head} (or the embedding when tied). A block is
 * {@code x += o(attn(rope(q(n)), rope(k(n)), v(n)))} with {@code n = rmsNorm(x)}, then
 * {@code x += down(silu(gate(n)) ⊙ up(n))} with {@code n = rmsNorm(x)}; k and v have {@code H_kv} heads.
 */
final class Llama implements Architecture {
    private final DecoderConfig config;
    private final Weight embed;
    private final Block[] blocks;
    private final Tensor norm;
    private final Weight head;

    /** One block's parameters; the gate and up projections are stacked into one weight read by a gated product. */
    private record Block(Tensor inputNorm, Weight q, Weight k, Weight v, Weight o, Tensor postNorm, Weight gateUp,
                         Weight down) {
    }

    Llama(DecoderConfig config, Weights w) {
        this.config = config;
        int e = config.hidden();
        int q = config.heads() * config.headDim();
        int kv = config.kvHeads() * config.headDim();
        int i = config.intermediate();
        this.embed = w.matrix("model.embed_tokens.weight", config.vocabSize(), e);
        this.blocks = new Block[config.layers()];
        for (int l = 0; l < config.layers(); l++) {
            String p = "model.layers." + l + ".";
            w.ignore(p + "self_attn.rotary_emb.inv_freq");
            blocks[l] = new Block(w.take(p + "input_layernorm.weight", e),
                    w.matrix(p + "self_attn.q_proj.weight", q, e), w.matrix(p + "self_attn.k_proj.weight", kv, e),
                    w.matrix(p + "self_attn.v_proj.weight", kv, e), w.matrix(p + "self_attn.o_proj.weight", e, q),
                    w.take(p + "post_attention_layernorm.weight", e),
                    w.stacked(List.of(p + "mlp.gate_proj.weight", p + "mlp.up_proj.weight"), i, e),
                    w.matrix(p + "mlp.down_proj.weight", e, i));
        }
        this.norm = w.take("model.norm.weight", e);
        this.head = config.tiedEmbeddings() && !w.has("lm_head.weight") ? embed
                : w.matrix("lm_head.weight", config.vocabSize(), e);
    }

    @Override
    public Tensor hidden(Ops t, int[][] ids, KvCache cache) {
        int b = ids.length;
        int l = ids[0].length;
        double eps = config.eps();
        int[] flat = new int[b * l];
        for (int r = 0; r < b; r++) {
            System.arraycopy(ids[r], 0, flat, r * l, l);
        }
        Tensor x = t.embedding(embed, flat, Shape.of(b, l));
        for (int layer = 0; layer < blocks.length; layer++) {
            Block p = blocks[layer];
            Tensor n = t.rmsNorm(x, p.inputNorm(), eps);
            Tensor q = rope(t, Attention.heads(t, t.linear(n, p.q(), null), config.heads()), cache);
            Tensor k = rope(t, Attention.heads(t, t.linear(n, p.k(), null), config.kvHeads()), cache);
            Tensor v = Attention.heads(t, t.linear(n, p.v(), null), config.kvHeads());
            Tensor a = Attention.attend(t, layer, q, k, v, cache, config.window());
            x = t.linear(a, p.o(), null, Epilogue.none().withResidual(x));
            n = t.rmsNorm(x, p.postNorm(), eps);
            Tensor gated = t.linear(n, p.gateUp(), null, Epilogue.gated(Activation.SILU));
            x = t.linear(gated, p.down(), null, Epilogue.none().withResidual(x));
        }
        return t.rmsNorm(x, norm, eps);
    }

    /**
     * Rotates {@code [B, n, L, d]} at each row's positions: one call, or one per row when rows are padded (a
     * row's padding tokens, hidden from every query, stay unrotated).
     */
    private Tensor rope(Ops t, Tensor x, KvCache cache) {
        if (!cache.padded()) {
            return t.rope(x, config.ropeLayout(), config.ropeBase(), cache.position(0, 0));
        }
        int b = x.shape().dim(0);
        int[] ones = new int[b];
        Arrays.fill(ones, 1);
        List<Tensor> rows = new ArrayList<>(b);
        List<Tensor> parts = t.split(x, ones, 0);
        int l = x.shape().dim(2);
        for (int r = 0; r < b; r++) {
            int first = cache.position(r, 0);
            Tensor row = parts.get(r);
            if (first >= 0) {
                rows.add(t.rope(row, config.ropeLayout(), config.ropeBase(), first));
            } else if (-first >= l) {
                rows.add(row);
            } else {
                List<Tensor> padAndReal = t.split(row, new int[] {-first, l + first}, 2);
                rows.add(t.concat(List.of(padAndReal.get(0),
                        t.rope(padAndReal.get(1), config.ropeLayout(), config.ropeBase(), 0)), 2));
            }
        }
        return t.concat(rows, 0);
    }

    @Override
    public Tensor logits(Ops t, Tensor hidden) {
        return t.linear(hidden, head, null);
    }
}
