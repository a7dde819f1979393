package org.attn4j.models.tutorial;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * Multi-head attention with separate weights per head and an output projection, the layout of "Attention is all
 * you need" (§3.2.2) and of Raschka's {@code MultiHeadAttentionWrapper} followed by a projection:
 * <pre>
 *   head_h = softmax(x·W_q,hᵀ·(x·W_k,hᵀ)ᵀ / sqrt(d_k))·x·W_v,hᵀ     W_q,h, W_k,h: [d_k, d]; W_v,h: [d_v, d]
 *   out    = concat(head_0, .., head_{h-1})·W_oᵀ + b_o             W_o: [d_out, h·d_v]
 * </pre>
 * State_dict names: {@code heads.<h>.W_query.weight}, {@code heads.<h>.W_key.weight}, {@code heads.<h>.W_value.weight}
 * and {@code W_o.weight}, {@code W_o.bias}. The per-head weights may also be given stacked as {@code [h, d_k, d]}
 * with {@link #ofStacked}. Input {@code [B, L, d]} or {@code [L, d]}; the returned weights are per head,
 * {@code [B, h, L, L]}.
 */
public final class PerHeadMultiHeadAttention implements AttentionLayer {
    private final HeadedAttention core;
    private final StateDict params;
    private final boolean causal;

    private PerHeadMultiHeadAttention(HeadedAttention core, StateDict params, boolean causal) {
        this.core = core;
        this.params = params;
        this.causal = causal;
    }

    /**
     * @param params the per-head projections and {@code W_o}, named as in the class comment
     * @param heads {@code h}
     * @param causal whether query {@code i} sees only keys {@code j <= i}
     * @return the layer
     */
    public static PerHeadMultiHeadAttention load(StateDict params, int heads, boolean causal) {
        return params.load("PerHeadMultiHeadAttention", p -> {
            List<List<HostTensor>> qkv = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            String[] names = {"W_query", "W_key", "W_value"};
            for (int h = 0; h < heads; h++) {
                for (int i = 0; i < 3; i++) {
                    qkv.get(i).add(p.get("heads." + h + "." + names[i] + ".weight"));
                }
            }
            return build(qkv, p.select("W_o."), heads, causal);
        });
    }

    /**
     * @param wq {@code [h, d_k, d]}
     * @param wk {@code [h, d_k, d]}
     * @param wv {@code [h, d_v, d]}
     * @param wo the output projection, {@code weight [d_out, h·d_v]} and {@code bias [d_out]}
     * @param causal whether query {@code i} sees only keys {@code j <= i}
     * @return the layer
     */
    public static PerHeadMultiHeadAttention ofStacked(HostTensor wq, HostTensor wk, HostTensor wv, StateDict wo,
                                                      boolean causal) {
        int heads = wq.shape().dim(0);
        List<List<HostTensor>> qkv = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        HostTensor[] all = {wq, wk, wv};
        for (int i = 0; i < 3; i++) {
            Shape s = all[i].shape();
            if (s.rank() != 3 || s.dim(0) != heads) {
                throw new IllegalArgumentException("PerHeadMultiHeadAttention: stacked weight " + i + " has shape "
                        + s + "; it must be [" + heads + ", d_head, d]");
            }
            for (int h = 0; h < heads; h++) {
                qkv.get(i).add(all[i].rows(h, h + 1).reshape(s.dim(1), s.dim(2)));
            }
        }
        return build(qkv, wo, heads, causal);
    }

    private static PerHeadMultiHeadAttention build(List<List<HostTensor>> qkv, StateDict wo, int heads,
                                                   boolean causal) {
        HostTensor woWeight = wo.get("weight");
        if (woWeight.shape().rank() != 2) {
            throw new IllegalArgumentException("PerHeadMultiHeadAttention: W_o.weight has shape " + woWeight.shape()
                    + "; it must be [d_out, h·d_v]");
        }
        Linear out = new Linear(woWeight, wo.optional("bias", Shape.of(woWeight.shape().dim(0))));
        HeadedAttention core = new HeadedAttention(HeadedAttention.stack(qkv.get(0)),
                HeadedAttention.stack(qkv.get(1)), HeadedAttention.stack(qkv.get(2)), out, heads,
                OptionalDouble.empty(), 0.0);
        StateDict sd = StateDict.empty();
        String[] names = {"W_query", "W_key", "W_value"};
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < 3; i++) {
                sd = sd.with("heads." + h + "." + names[i] + ".weight", qkv.get(i).get(h));
            }
        }
        return new PerHeadMultiHeadAttention(core, sd.plus(out.stateDict().prefixed("W_o.")), causal);
    }

    /** @return {@code h} */
    public int heads() {
        return core.heads();
    }

    /** @return the parameters, named as in the class comment */
    @Override
    public StateDict stateDict() {
        return params;
    }

    /**
     * @param parameters the owner of the uploaded parameters, open
     * @return a copy whose forward calls read the projections from {@code parameters}, uploaded there once; its
     *     {@link #stateDict()} is this layer's
     */
    @Override
    public PerHeadMultiHeadAttention bind(Parameters parameters) {
        return new PerHeadMultiHeadAttention(core.bind(parameters), params, causal);
    }

    /**
     * @param p the drop probability of the attention weights in training
     * @return a copy with that dropout
     */
    public PerHeadMultiHeadAttention withDropout(double p) {
        return new PerHeadMultiHeadAttention(core.with(core.scale(), p), params, causal);
    }

    /**
     * @param scope receives the results
     * @param x {@code [B, L, d]} or {@code [L, d]}
     * @param mode training (dropout on the weights) or inference
     * @return the output {@code [B, L, d_out]} and the weights per head {@code [B, h, L, L]}
     */
    public AttentionResult forward(Scope scope, Tensor x, RunMode mode) {
        return forward(scope, x, AttentionMasks.NONE, true, mode);
    }

    /**
     * @param scope receives the results
     * @param x {@code [B, L, d]} or {@code [L, d]}
     * @param masks further masks; causal if built causal or if {@code masks} say so
     * @param needWeights whether to return the per-head weights
     * @param mode training (dropout on the weights) or inference
     * @return the output {@code [B, L, d_out]} and, if asked, the weights {@code [B, h, L, L]}
     */
    @Override
    public AttentionResult forward(Scope scope, Tensor x, AttentionMasks masks, boolean needWeights, RunMode mode) {
        return core.forward(scope, x, x, x, masks.withCausal(causal || masks.causal()), needWeights, mode);
    }

    /**
     * @param scope receives the results
     * @param x {@code [B, L, d]} or {@code [L, d]}
     * @return the output and the per-head weights, in inference
     */
    public AttentionResult forward(Scope scope, Tensor x) {
        return forward(scope, x, RunMode.INFERENCE);
    }
}
