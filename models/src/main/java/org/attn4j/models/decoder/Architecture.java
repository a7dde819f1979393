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
     * Runs the new tokens of several sequences in one pass, each after its own cache of one row, writing their keys
     * and values into those caches (the caller advances them).
     *
     * @param t the ops of a work scope
     * @param ids {@code ids[r]}: sequence {@code r}'s new token ids, at least one
     * @param caches {@code caches[r]}: sequence {@code r}'s cache, batch 1, unpadded
     * @return the final hidden states {@code [1, N, E]} after the last norm, {@code N} the count of every new token,
     *     sequence after sequence
     */
    Tensor hidden(Ops t, int[][] ids, KvCache[] caches);

    /**
     * @param t the ops of a work scope
     * @param hidden {@code [..., E]}
     * @return the logits {@code [..., V]}
     */
    Tensor logits(Ops t, Tensor hidden);
}
