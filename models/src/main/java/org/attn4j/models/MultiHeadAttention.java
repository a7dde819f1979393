package org.attn4j.models;

import java.util.OptionalDouble;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * Multi-head attention with one fused input projection, compatible with PyTorch's {@code nn.MultiheadAttention(E, H,
 * bias=True|False, batch_first=True)}: the same state_dict names, the same numbers.
 * <pre>
 *   [Q; K; V] weights = in_proj_weight [3E, E] (rows: q, k, v), biases in_proj_bias [3E]
 *   Q = query·W_qᵀ + b_q, split into H heads of d = E/H (likewise K, V)
 *   O_h = softmax(Q_h·K_hᵀ / sqrt(d) + masks)·V_h
 *   out = concat_h(O_h)·out_proj.weightᵀ + out_proj.bias
 * </pre>
 * Queries {@code [B, L, E]}, keys and values {@code [B, S, E]} ({@code S} may differ from {@code L}: cross-attention),
 * or the same without {@code B}. Masks follow the api ({@code true} = may attend); convert PyTorch's boolean masks
 * with {@link TorchMasks}. {@code dropout} applies to the attention weights in training only. Not supported:
 * {@code kdim}/{@code vdim} different from {@code E} and {@code add_bias_kv}/{@code add_zero_attn}. Unlike
 * PyTorch, a query whose keys are all masked gets zero weights and a zero attention output (PyTorch gives NaN).
 */
public final class MultiHeadAttention {
    private final int embedDim;
    private final StateDict params;
    private final HeadedAttention core;

    private MultiHeadAttention(int embedDim, StateDict params, HeadedAttention core) {
        this.embedDim = embedDim;
        this.params = params;
        this.core = core;
    }

    /**
     * @param params {@code in_proj_weight [3E, E]}, {@code out_proj.weight [E, E]} and, with {@code bias},
     *     {@code in_proj_bias [3E]} and {@code out_proj.bias [E]}
     * @param embedDim {@code E}
     * @param numHeads {@code H}, dividing {@code E}
     * @param bias whether the biases are present
     * @param dropout the drop probability of the attention weights in training
     * @return the layer
     */
    public static MultiHeadAttention load(StateDict params, int embedDim, int numHeads, boolean bias,
                                          double dropout) {
        if (numHeads < 1 || embedDim % numHeads != 0) {
            throw new IllegalArgumentException("MultiHeadAttention: embedDim " + embedDim
                    + " is not divisible by numHeads " + numHeads);
        }
        int e = embedDim;
        HostTensor w = params.get("in_proj_weight", Shape.of(3 * e, e));
        HostTensor b = bias ? params.get("in_proj_bias", Shape.of(3 * e)) : null;
        Linear[] qkv = new Linear[3];
        for (int i = 0; i < 3; i++) {
            qkv[i] = new Linear(w.rows(i * e, (i + 1) * e), b == null ? null : b.rows(i * e, (i + 1) * e));
        }
        Linear out = Linear.load(params.select("out_proj."), e, e, bias);
        StateDict own = StateDict.of("in_proj_weight", w);
        if (b != null) {
            own = own.with("in_proj_bias", b);
        }
        own = own.plus(out.stateDict().prefixed("out_proj."));
        return new MultiHeadAttention(e, own,
                new HeadedAttention(qkv[0], qkv[1], qkv[2], out, numHeads, OptionalDouble.empty(), dropout));
    }

    /**
     * PyTorch's {@code nn.MultiheadAttention} with {@code bias=True} and no dropout.
     *
     * @param params the four state_dict entries
     * @param embedDim {@code E}
     * @param numHeads {@code H}
     * @return the layer
     */
    public static MultiHeadAttention load(StateDict params, int embedDim, int numHeads) {
        return load(params, embedDim, numHeads, true, 0.0);
    }

    /**
     * Random weights in {@code [-1/sqrt(E), 1/sqrt(E))}, biases zero, for demos.
     *
     * @param embedDim {@code E}
     * @param numHeads {@code H}
     * @param seed the seed
     * @return the layer
     */
    public static MultiHeadAttention random(int embedDim, int numHeads, long seed) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        double a = 1 / Math.sqrt(embedDim);
        StateDict sd = StateDict.of(java.util.Map.of(
                "in_proj_weight", HostTensor.of(r.doubles(3L * embedDim * embedDim, -a, a).toArray(),
                        3 * embedDim, embedDim),
                "in_proj_bias", HostTensor.of(new double[3 * embedDim], 3 * embedDim),
                "out_proj.weight", HostTensor.of(r.doubles((long) embedDim * embedDim, -a, a).toArray(),
                        embedDim, embedDim),
                "out_proj.bias", HostTensor.of(new double[embedDim], embedDim)));
        return load(sd, embedDim, numHeads);
    }

    /** @return {@code E} */
    public int embedDim() {
        return embedDim;
    }

    /** @return {@code H} */
    public int numHeads() {
        return core.heads();
    }

    /** @return the state_dict, with PyTorch's names */
    public StateDict stateDict() {
        return params;
    }

    /**
     * @param scope receives the results
     * @param query {@code [B, L, E]} or {@code [L, E]}
     * @param key {@code [B, S, E]} or {@code [S, E]}
     * @param value like {@code key}
     * @param masks key padding, attention and additive masks and the causal flag
     * @param needWeights whether to return the attention weights
     * @param averageAttnWeights average the weights over heads ({@code [B, L, S]}) or keep them per head
     *     ({@code [B, H, L, S]})
     * @param mode training (dropout on the weights, seeded) or inference
     * @return {@code attn_output [B, L, E]} and, when {@code needWeights}, {@code attn_output_weights}
     */
    public AttentionResult forward(Scope scope, Tensor query, Tensor key, Tensor value, AttentionMasks masks,
                                   boolean needWeights, boolean averageAttnWeights, RunMode mode) {
        AttentionResult r = core.forward(scope, query, key, value, masks, needWeights, mode);
        if (!needWeights || !averageAttnWeights) {
            return r;
        }
        try (Scope work = scope.backend().newScope()) {
            Tensor perHead = work.adopt(r.weights());
            int headAxis = perHead.shape().rank() - 3;
            return new AttentionResult(r.output(), scope.adopt(work.ops().mean(perHead, headAxis, false)));
        }
    }

    /**
     * Self-attention with PyTorch's defaults: no masks, weights averaged over heads, inference.
     *
     * @param scope receives the results
     * @param x {@code [B, L, E]} or {@code [L, E]}
     * @return the output and the averaged weights
     */
    public AttentionResult forward(Scope scope, Tensor x) {
        return forward(scope, x, x, x, AttentionMasks.NONE, true, true, RunMode.INFERENCE);
    }
}
