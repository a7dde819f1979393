package org.attn4j.models.decoder;

import org.attn4j.api.Ops;
import org.attn4j.api.Tensor;

/** One decoder family's forward pass over weights already on the backend. */
interface Architecture {

    /**
     * Runs the blocks over new tokens, writing their keys and values into the cache (the caller advances it).
     *
     * @param t the ops of a work scope
     * @param ids {@code [B][L]} new token ids
     * @param cache the cache, holding the earlier positions
     * @return the final hidden states {@code [B, L, E]}, after the last norm
     */
    Tensor hidden(Ops t, int[][] ids, KvCache cache);

    /**
     * @param t the ops of a work scope
     * @param hidden {@code [..., E]}
     * @return the logits {@code [..., V]}
     */
    Tensor logits(Ops t, Tensor hidden);
}
