package org.attn4j.models.tutorial;

import java.util.OptionalDouble;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * Bloem's "wide" multi-head self-attention (<i>Transformers from scratch</i>): every head works in the full
 * embedding size {@code k}, and a {@code unifyheads} projection maps the {@code h·k} concatenation back to {@code k}.
 * <pre>
 *   Q, K, V = x·toqueriesᵀ, x·tokeysᵀ, x·tovaluesᵀ     weights [h·k, k], no bias; head i uses rows i·k..(i+1)·k
 *   head_i  = softmax(Q_i·K_iᵀ / sqrt(k))·V_i          (Bloem scales Q and K by k^(-1/4) each: the same)
 *   out     = concat_i(head_i)·unifyheads.weightᵀ + unifyheads.bias     unifyheads.weight [k, h·k]
 * </pre>
 * State_dict names: {@code tokeys.weight}, {@code toqueries.weight}, {@code tovalues.weight},
 * {@code unifyheads.weight}, {@code unifyheads.bias}. Input {@code [B, T, k]} or {@code [T, k]}.
 */
public final class WideSelfAttention implements AttentionLayer {
    private final HeadedAttention core;
    private final StateDict params;
    private final boolean causal;

    private WideSelfAttention(HeadedAttention core, StateDict params, boolean causal) {
        this.core = core;
        this.params = params;
        this.causal = causal;
    }

    /**
     * @param params the four projections, named as in the class comment
     * @param k the embedding size
     * @param heads {@code h}
     * @param causal whether query {@code i} sees only keys {@code j <= i} (Bloem's {@code mask=True})
     * @return the layer
     */
    public static WideSelfAttention load(StateDict params, int k, int heads, boolean causal) {
        return params.load("WideSelfAttention", p -> {
            Shape proj = Shape.of(k * heads, k);
            Linear q = new Linear(p.get("toqueries.weight", proj), null);
            Linear key = new Linear(p.get("tokeys.weight", proj), null);
            Linear v = new Linear(p.get("tovalues.weight", proj), null);
            Linear unify = Linear.load(p.select("unifyheads."), heads * k, k, true);
            StateDict sd = StateDict.of("tokeys.weight", p.get("tokeys.weight"))
                    .with("toqueries.weight", p.get("toqueries.weight"))
                    .with("tovalues.weight", p.get("tovalues.weight"))
                    .plus(unify.stateDict().prefixed("unifyheads."));
            return new WideSelfAttention(new HeadedAttention(q, key, v, unify, heads, OptionalDouble.empty(), 0.0), sd,
                    causal);
        });
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
    public WideSelfAttention bind(Parameters parameters) {
        return new WideSelfAttention(core.bind(parameters), params, causal);
    }

    /**
     * @param scope receives the results
     * @param x {@code [B, T, k]} or {@code [T, k]}
     * @return the output {@code [B, T, k]} and the weights per head {@code [B, h, T, T]}
     */
    public AttentionResult forward(Scope scope, Tensor x) {
        return forward(scope, x, AttentionMasks.NONE, true, RunMode.INFERENCE);
    }

    /**
     * @param scope receives the results
     * @param x {@code [B, T, k]} or {@code [T, k]}
     * @param masks further masks (key padding, for example); causal if built causal or if {@code masks} say so
     * @param needWeights whether to return the per-head weights
     * @param mode training or inference (this layer has no dropout)
     * @return the output and, if asked, the weights {@code [B, h, T, T]}
     */
    @Override
    public AttentionResult forward(Scope scope, Tensor x, AttentionMasks masks, boolean needWeights, RunMode mode) {
        return core.forward(scope, x, x, x, masks.withCausal(causal || masks.causal()), needWeights, mode);
    }
}
