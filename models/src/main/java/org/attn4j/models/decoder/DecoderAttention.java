package org.attn4j.models.decoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Ops;
import org.attn4j.api.RotaryEmbedding;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.layers.Norm;

/**
 * The self-attention of one decoder block against its layer of the cache, for every family:
 * <pre>
 *   q, k, v = the projections of x (one fused projection split into [H·d, H_kv·d, H_kv·d], or separate)
 *   q, k    = rmsNorm per head (Qwen3; Gemma 3's 1 + w), then rotary embeddings at each token's position (not GPT-2)
 *   a       = softmax(cap(q·kᵀ·scale) + causal, window and padding masks over the cache)·v
 *   out     = o(a)
 * </pre>
 * with {@code k} and {@code v} of {@code H_kv} heads written into the cache first, and {@code cap} Gemma 2's
 * logit soft-cap where it has one (Gemma 3's when its config sets one).
 */
final class DecoderAttention {
    private final Linear q;
    private final Linear k;
    private final Linear v;
    private final Linear qkv;
    private final Norm qNorm;
    private final Norm kNorm;
    private final Linear o;
    private final int heads;
    private final int kvHeads;
    private final int headDim;
    private final double scale;
    private final double softcap;
    private final int window;

    private DecoderAttention(Linear q, Linear k, Linear v, Linear qkv, Norm qNorm, Norm kNorm,
                          Linear o, DecoderConfig c, int layer) {
        this.q = q;
        this.k = k;
        this.v = v;
        this.qkv = qkv;
        this.qNorm = qNorm;
        this.kNorm = kNorm;
        this.o = o;
        this.heads = c.heads();
        this.kvHeads = c.kvHeads();
        this.headDim = c.headDim();
        this.scale = c.attentionScale(layer);
        this.softcap = c.attentionSoftcap();
        this.window = c.window(layer);
    }

    /**
     * The attention of a block whose projections are the modules {@code q_proj}, {@code k_proj} and {@code v_proj}
     * under {@code prefix}: fused into one product where the three are held in one storage type, so that a step reads
     * its input once and hands the pool one product, else three. Either way each output is the same number: a row's
     * sum does not depend on the rows computed beside it.
     *
     * @param w the state_dict
     * @param prefix the attention module, for example {@code model.layers.3.self_attn.}
     * @param bias whether the three have biases
     * @param qNorm the per-head query norm, or null for none
     * @param kNorm the per-head key norm, or null for none
     * @param o the output projection
     * @param c the config (sizes, heads, scale, soft-cap, window)
     * @param layer the layer
     * @return the attention
     */
    static DecoderAttention of(Weights w, String prefix, boolean bias, Norm qNorm, Norm kNorm, Linear o,
                               DecoderConfig c, int layer) {
        String[] names = {prefix + "q_proj", prefix + "k_proj", prefix + "v_proj"};
        int kv = c.kvHeads() * c.headDim();
        int[] rows = {c.heads() * c.headDim(), kv, kv};
        WeightType shared = w.sharedType(names, rows, c.hidden());
        if (shared != null) {
            return new DecoderAttention(null, null, null, w.stacked(names, rows, c.hidden(), bias, shared), qNorm,
                    kNorm, o, c, layer);
        }
        return new DecoderAttention(w.projection(names[0], rows[0], c.hidden(), bias),
                w.projection(names[1], rows[1], c.hidden(), bias), w.projection(names[2], rows[2], c.hidden(), bias),
                null, qNorm, kNorm, o, c, layer);
    }

    /**
     * @param qkv one projection to {@code [H·d (q), H_kv·d (k), H_kv·d (v)]}
     * @param o the output projection
     * @param c the config
     * @param layer the layer
     * @return the attention with a fused projection (GPT-2's {@code c_attn}, Phi-3's {@code qkv_proj})
     */
    static DecoderAttention fused(Linear qkv, Linear o, DecoderConfig c, int layer) {
        return new DecoderAttention(null, null, null, qkv, null, null, o, c, layer);
    }

    /**
     * @param t the ops of a work scope
     * @param x {@code [B, L, E]}, normalised: the new tokens of one cache of {@code B} rows, or ({@code B = 1}) the
     *     tokens of several sequences one after the other, each part's over its own cache of one row
     * @param layer the layer, whose slot of each cache receives the new keys and values
     * @param parts the caches, holding the earlier positions, and how many of the {@code L} tokens are each one's
     * @param rotary each part's rotary embedding, or nulls for none
     * @param residual added to the output projection in its pass (the block's skip connection), or null
     * @return {@code [B, L, E]}
     */
    Tensor forward(Ops t, Tensor x, int layer, DecoderStack.Part[] parts, RotaryEmbedding[] rotary, Tensor residual) {
        Tensor queries;
        Tensor keys;
        Tensor values;
        if (qkv != null) {
            List<Tensor> split = t.split(qkv.apply(t, x), new int[] {heads * headDim, kvHeads * headDim,
                kvHeads * headDim}, -1);
            queries = split.get(0);
            keys = split.get(1);
            values = split.get(2);
        } else {
            queries = q.apply(t, x);
            keys = k.apply(t, x);
            values = v.apply(t, x);
        }
        Tensor qh = heads(t, queries, heads, qNorm);
        Tensor kh = heads(t, keys, kvHeads, kNorm);
        Tensor vh = heads(t, values, kvHeads, null);
        Tensor a;
        if (parts.length == 1) {
            a = attend(t, layer, qh, kh, vh, parts[0].cache(), rotary[0]);
        } else {
            int[] counts = new int[parts.length];
            for (int i = 0; i < parts.length; i++) {
                counts[i] = parts[i].count();
            }
            List<Tensor> qs = t.split(qh, counts, 2);
            List<Tensor> ks = t.split(kh, counts, 2);
            List<Tensor> vs = t.split(vh, counts, 2);
            List<Tensor> outs = new ArrayList<>(parts.length);
            for (int i = 0; i < parts.length; i++) {
                outs.add(attend(t, layer, qs.get(i), ks.get(i), vs.get(i), parts[i].cache(), rotary[i]));
            }
            a = t.concat(outs, 1);
        }
        return o.apply(t, a, Epilogue.none().withResidual(residual));
    }

    /** {@code [B, L, n·d]} normalised per head (unless {@code perHead} is null) and viewed as {@code [B, n, L, d]}. */
    private Tensor heads(Ops t, Tensor x, int n, Norm perHead) {
        int b = x.shape().dim(0);
        int l = x.shape().dim(1);
        Tensor split = t.reshape(x, b, l, n, headDim);
        return t.permute(perHead == null ? split : perHead.apply(t, split), 0, 2, 1, 3);
    }

    /**
     * Rotates the new queries and keys at their positions, writes the new keys and values into the cache and attends
     * the new queries to every cached position:
     * causal, aligned bottom-right, over the cache's filled length, with the window, the padding mask, the scale
     * and the soft-cap.
     *
     * @return {@code [B, L, H·d]}
     */
    private Tensor attend(Ops t, int layer, Tensor qh, Tensor kh, Tensor vh, KvCache cache, RotaryEmbedding rotary) {
        if (rotary != null) {
            qh = rope(t, qh, cache, rotary);
            kh = rope(t, kh, cache, rotary);
        }
        cache.write(layer, kh, vh);
        int l = qh.shape().dim(2);
        AttentionOptions options = AttentionOptions.defaults().withCausal(true)
                .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT).withKeyLength(cache.length() + l)
                .withWindow(window).withMask(cache.paddingMask()).withScale(scale).withLogitSoftcap(softcap);
        Tensor out = t.attention(qh, cache.keys(layer), cache.values(layer), options).output();
        int b = qh.shape().dim(0);
        return t.reshape(t.permute(out, 0, 2, 1, 3), b, l, heads * headDim);
    }

    /**
     * Rotates {@code [B, n, L, d]} at each row's positions: one call, or one per row when rows are padded (a
     * row's padding tokens, hidden from every query, stay unrotated).
     */
    private static Tensor rope(Ops t, Tensor x, KvCache cache, RotaryEmbedding rotary) {
        if (!cache.padded()) {
            return t.rope(x, rotary, cache.position(0, 0));
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
                rows.add(t.rope(row, rotary, first));
            } else if (-first >= l) {
                rows.add(row);
            } else {
                List<Tensor> padAndReal = t.split(row, new int[] {-first, l + first}, 2);
                rows.add(t.concat(List.of(padAndReal.get(0), t.rope(padAndReal.get(1), rotary, 0)), 2));
            }
        }
        return t.concat(rows, 0);
    }
}
