package org.attn4j.models.tutorial;

import org.attn4j.api.AttentionResult;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * A multi-head self-attention layer a {@link TransformerEncoderLayer} can be built on: {@link MultiHeadAttention}
 * (fused QKV, PyTorch), {@link PerHeadMultiHeadAttention} (separate heads + {@code W_o}) or {@link WideSelfAttention}
 * (Bloem's wide heads).
 */
public interface AttentionLayer {

    /**
     * Self-attention of {@code x} with itself.
     *
     * @param scope receives the results
     * @param x {@code [B, L, d]} or {@code [L, d]}
     * @param masks masks in the api's convention; a layer built causal stays causal whatever {@code masks} say
     * @param needWeights whether to return the per-head weights {@code [B, H, L, L]}
     * @param mode training (dropout on the weights) or inference
     * @return the output {@code [B, L, d_out]} and, if asked, the weights
     */
    AttentionResult forward(Scope scope, Tensor x, AttentionMasks masks, boolean needWeights, RunMode mode);

    /** @return the parameters under the layer's own state_dict names */
    StateDict stateDict();

    /**
     * Like {@link org.attn4j.models.layers.Linear#bind}: a copy of this layer whose forward calls read its parameters from
     * {@code parameters}, uploaded there once, so a call allocates only its activations.
     *
     * @param parameters the owner of the uploaded parameters, open
     * @return the bound layer; its {@link #stateDict()} is this layer's
     */
    AttentionLayer bind(Parameters parameters);
}
