package org.attn4j.models.decoder;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.Ops;
import org.attn4j.api.Tensor;

/** The self-attention of a decoder block against its layer of the cache, shared by both families. */
final class Attention {

    private Attention() {
    }

    /**
     * {@code [B, L, n·d]} viewed as {@code [B, n, L, d]}.
     *
     * @param t ops
     * @param x {@code [B, L, n·d]}
     * @param heads {@code n}
     * @return {@code [B, n, L, d]}
     */
    static Tensor heads(Ops t, Tensor x, int heads) {
        int b = x.shape().dim(0);
        int l = x.shape().dim(1);
        return t.permute(t.reshape(x, b, l, heads, x.shape().dim(2) / heads), 0, 2, 1, 3);
    }

    /**
     * Writes the new keys and values into the cache and attends the new queries to every cached position:
     * causal, aligned bottom-right, over the cache's filled length, with the window and the padding mask.
     *
     * @param t ops
     * @param layer the layer
     * @param q {@code [B, H, L, d]}
     * @param k {@code [B, H_kv, L, d]}
     * @param v {@code [B, H_kv, L, d]}
     * @param cache the cache
     * @param window the sliding window, 0 for none
     * @return {@code [B, L, H·d]}
     */
    static Tensor attend(Ops t, int layer, Tensor q, Tensor k, Tensor v, KvCache cache, int window) {
        cache.write(layer, k, v);
        int l = q.shape().dim(2);
        AttentionOptions options = AttentionOptions.defaults().withCausal(true)
                .withCausalAlignment(CausalAlignment.BOTTOM_RIGHT).withKeyLength(cache.length() + l)
                .withWindow(window).withMask(cache.paddingMask());
        Tensor out = t.attention(q, cache.keys(layer), cache.values(layer), options).output();
        int b = q.shape().dim(0);
        return t.reshape(t.permute(out, 0, 2, 1, 3), b, l, q.shape().dim(1) * q.shape().dim(3));
    }
}
