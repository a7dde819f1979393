package org.attn4j.models.tutorial;

import java.util.Map;
import java.util.OptionalDouble;
import java.util.SplittableRandom;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

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
 * with {@link TorchMasks}. {@code dropout} applies to the attention weights in training only. Keys and values may
 * have other sizes ({@code kdim}, {@code vdim}) when loaded from {@code q_proj_weight}, {@code k_proj_weight},
 * {@code v_proj_weight}. {@link #loadSeparateProjections} loads Raschka's chapter-3 layout into the same
 * computation. Not supported: {@code add_bias_kv} and {@code add_zero_attn}. Unlike
 * PyTorch, a query whose keys are all masked gets zero weights and a zero attention output (PyTorch gives NaN).
 */
public final class MultiHeadAttention implements AttentionLayer {
    private final int embedDim;
    private final StateDict params;
    private final HeadedAttention core;

    private MultiHeadAttention(int embedDim, StateDict params, HeadedAttention core) {
        this.embedDim = embedDim;
        this.params = params;
        this.core = core;
    }

    /**
     * @param params {@code in_proj_weight [3E, E]} (or, for PyTorch's {@code kdim}/{@code vdim} different from
     *     {@code E}, {@code q_proj_weight [E, E]}, {@code k_proj_weight [E, kdim]}, {@code v_proj_weight [E, vdim]}),
     *     {@code out_proj.weight [E, E]} and, with {@code bias}, {@code in_proj_bias [3E]} and
     *     {@code out_proj.bias [E]}
     * @param embedDim {@code E}
     * @param numHeads {@code H}, dividing {@code E}
     * @param bias whether the biases are present
     * @param dropout the drop probability of the attention weights in training
     * @return the layer
     */
    public static MultiHeadAttention load(StateDict params, int embedDim, int numHeads, boolean bias,
                                          double dropout) {
        return params.load("MultiHeadAttention", p -> {
            if (numHeads < 1 || embedDim % numHeads != 0) {
                throw new IllegalArgumentException("MultiHeadAttention: embedDim " + embedDim
                        + " is not divisible by numHeads " + numHeads);
            }
            int e = embedDim;
            boolean separate = p.contains("q_proj_weight");
            HostTensor fused = separate ? null : p.get("in_proj_weight", Shape.of(3 * e, e));
            HostTensor b = bias ? p.get("in_proj_bias", Shape.of(3 * e)) : null;
            Linear[] qkv = new Linear[3];
            StateDict own;
            if (separate) {
                String[] names = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
                own = StateDict.empty();
                for (int i = 0; i < 3; i++) {
                    HostTensor w = p.get(names[i]);
                    if (w.shape().rank() != 2 || w.shape().dim(0) != e || (i == 0 && w.shape().dim(1) != e)) {
                        throw new IllegalArgumentException("MultiHeadAttention: parameter '" + names[i] + "' has shape "
                                + w.shape() + " but must be [" + e + ", " + (i == 0 ? e : "kdim or vdim") + "]");
                    }
                    qkv[i] = new Linear(w, b == null ? null : b.rows(i * e, (i + 1) * e));
                    own = own.with(names[i], w);
                }
            } else {
                for (int i = 0; i < 3; i++) {
                    qkv[i] = new Linear(fused.rows(i * e, (i + 1) * e), b == null ? null : b.rows(i * e, (i + 1) * e));
                }
                own = StateDict.of("in_proj_weight", fused);
            }
            if (b != null) {
                own = own.with("in_proj_bias", b);
            }
            Linear out = Linear.load(p.select("out_proj."), e, e, bias);
            own = own.plus(out.stateDict().prefixed("out_proj."));
            return new MultiHeadAttention(e, own,
                    new HeadedAttention(qkv[0], qkv[1], qkv[2], out, numHeads, OptionalDouble.empty(), dropout));
        });
    }

    /**
     * The multi-head layout of Raschka's chapter 3 ({@code MultiHeadAttention}, section 3.6.2): three separate
     * {@code nn.Linear(d_in, d_out, bias=qkv_bias)} projections split into {@code numHeads} heads of
     * {@code d_out/numHeads}, then {@code out_proj = nn.Linear(d_out, d_out)}. Pass
     * {@link AttentionMasks#NONE}{@code .withCausal(true)} in {@link MultiHeadOptions#withMasks} for the book's causal
     * mask.
     *
     * @param params {@code W_query.weight}, {@code W_key.weight}, {@code W_value.weight} {@code [d_out, d_in]}
     *     (with {@code .bias} when {@code qkvBias}), {@code out_proj.weight [d_out, d_out]}, {@code out_proj.bias}
     * @param dIn {@code d_in}
     * @param dOut {@code d_out}, divisible by {@code numHeads}
     * @param numHeads the number of heads
     * @param qkvBias whether the three projections have biases
     * @param dropout the drop probability of the attention weights in training
     * @return the layer; its {@link #stateDict()} keeps the book's names
     */
    public static MultiHeadAttention loadSeparateProjections(StateDict params, int dIn, int dOut, int numHeads,
                                                             boolean qkvBias, double dropout) {
        return params.load("MultiHeadAttention", p -> {
            if (numHeads < 1 || dOut % numHeads != 0) {
                throw new IllegalArgumentException("MultiHeadAttention: dOut " + dOut + " is not divisible by numHeads "
                        + numHeads);
            }
            String[] names = {"W_query.", "W_key.", "W_value."};
            Linear[] qkv = new Linear[3];
            StateDict own = StateDict.empty();
            for (int i = 0; i < 3; i++) {
                qkv[i] = Linear.load(p.select(names[i]), dIn, dOut, qkvBias);
                own = own.plus(qkv[i].stateDict().prefixed(names[i]));
            }
            Linear out = Linear.load(p.select("out_proj."), dOut, dOut, true);
            own = own.plus(out.stateDict().prefixed("out_proj."));
            return new MultiHeadAttention(dOut, own,
                    new HeadedAttention(qkv[0], qkv[1], qkv[2], out, numHeads, OptionalDouble.empty(), dropout));
        });
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
        SplittableRandom r = new SplittableRandom(seed);
        double a = 1 / Math.sqrt(embedDim);
        StateDict sd = StateDict.of(Map.of(
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
    public MultiHeadAttention bind(Parameters parameters) {
        return new MultiHeadAttention(embedDim, params, core.bind(parameters));
    }

    /**
     * @param scope receives the results
     * @param query {@code [B, L, E]} or {@code [L, E]}
     * @param key {@code [B, S, E]} or {@code [S, E]}
     * @param value like {@code key}
     * @param options masks, whether to return the weights and average them over heads, training or inference
     * @return {@code attn_output [B, L, E]} and, when {@code options.needWeights()}, {@code attn_output_weights}:
     *     {@code [B, L, S]} averaged over heads, or {@code [B, H, L, S]}
     */
    public AttentionResult forward(Scope scope, Tensor query, Tensor key, Tensor value, MultiHeadOptions options) {
        AttentionResult r = core.forward(scope, query, key, value, options.masks(), options.needWeights(),
                options.mode());
        if (!options.needWeights() || !options.averageAttnWeights()) {
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
        return forward(scope, x, x, x, MultiHeadOptions.defaults());
    }

    /**
     * Self-attention with per-head weights, as {@link AttentionLayer} asks.
     *
     * @param scope receives the results
     * @param x {@code [B, L, E]} or {@code [L, E]}
     * @param masks key padding, attention and additive masks and the causal flag
     * @param needWeights whether to return the per-head weights {@code [B, H, L, L]}
     * @param mode training or inference
     * @return the output and, if asked, the per-head weights
     */
    @Override
    public AttentionResult forward(Scope scope, Tensor x, AttentionMasks masks, boolean needWeights, RunMode mode) {
        return forward(scope, x, x, x, MultiHeadOptions.defaults().withMasks(masks).withNeedWeights(needWeights)
                .withAverageAttnWeights(false).withMode(mode));
    }
}
