package org.attn4j.models.tutorial;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalDouble;
import org.attn4j.api.AttentionResult;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Linear;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * Single-head attention with trainable weights, as in Raschka's chapter 3 ({@code SelfAttention_v1},
 * {@code SelfAttention_v2}, {@code CausalAttention}) and the "Attention is all you need" formula:
 * <pre>
 *   Q = x·W_qᵀ + b_q   [.., L, d_k]      W_q, W_k: [d_k, d_in]   (the W·x convention of nn.Linear)
 *   K = m·W_kᵀ + b_k   [.., S, d_k]      W_v:      [d_v, d_in]   d_k ≠ d_v allowed
 *   V = m·W_vᵀ + b_v   [.., S, d_v]      m = x for self-attention, another sequence for cross-attention
 *   weights = dropout(softmax(Q·Kᵀ·scale, masked where j &gt; i if causal))   scale = 1/sqrt(d_k) by default
 *   context = weights·V                  [.., L, d_v]
 * </pre>
 * Weights load in either convention: {@link #load} takes {@code nn.Linear} entries {@code W_query.weight [d_k, d_in]}
 * (and optional {@code .bias}), {@link #loadXW} takes the raw {@code nn.Parameter} matrices {@code W_query
 * [d_in, d_k]} of {@code SelfAttention_v1}, used as {@code x·W}. {@link #stateDict()} gives them back in the
 * convention they were loaded in. Inputs are {@code [L, d_in]} or {@code [B, L, d_in]}. Instances are immutable;
 * {@code with…} return configured copies.
 */
public final class SelfAttention {
    private final HeadedAttention core;
    private final StateDict params;
    private final boolean causal;

    private SelfAttention(HeadedAttention core, StateDict params, boolean causal) {
        this.core = core;
        this.params = params;
        this.causal = causal;
    }

    /**
     * @param params {@code W_query.weight [d_k, d_in]}, {@code W_key.weight [d_k, d_kv]}, {@code W_value.weight
     *     [d_v, d_kv]}, each with an optional {@code .bias} (Raschka's {@code qkv_bias=True})
     * @return the layer, not causal, scale {@code 1/sqrt(d_k)}, no dropout
     */
    public static SelfAttention load(StateDict params) {
        return params.load("SelfAttention", sd -> {
            Linear[] p = new Linear[3];
            String[] names = {"W_query", "W_key", "W_value"};
            for (int i = 0; i < 3; i++) {
                StateDict sub = sd.select(names[i] + ".");
                HostTensor w = sub.get("weight");
                if (w.shape().rank() != 2) {
                    throw new IllegalArgumentException("SelfAttention: parameter " + names[i] + ".weight has shape "
                            + w.shape() + "; it must be [d_out, d_in]");
                }
                p[i] = new Linear(w, sub.optional("bias", Shape.of(w.shape().dim(0))));
            }
            StateDict own = p[0].stateDict().prefixed("W_query.").plus(p[1].stateDict().prefixed("W_key."))
                    .plus(p[2].stateDict().prefixed("W_value."));
            return new SelfAttention(new HeadedAttention(p[0], p[1], p[2], null, 1, OptionalDouble.empty(), 0.0),
                    own, false);
        });
    }

    /**
     * @param params {@code W_query [d_in, d_k]}, {@code W_key [d_kv, d_k]}, {@code W_value [d_kv, d_v]}, used as
     *     {@code x·W} (Raschka's {@code SelfAttention_v1})
     * @return the layer, not causal, scale {@code 1/sqrt(d_k)}, no dropout
     */
    public static SelfAttention loadXW(StateDict params) {
        return params.load("SelfAttention", p -> {
            HostTensor q = p.get("W_query");
            HostTensor k = p.get("W_key");
            HostTensor v = p.get("W_value");
            SelfAttention linear = load(StateDict.of("W_query.weight", q.transpose())
                    .with("W_key.weight", k.transpose()).with("W_value.weight", v.transpose()));
            StateDict own = StateDict.of("W_query", q).with("W_key", k).with("W_value", v);
            return new SelfAttention(linear.core, own, false);
        });
    }

    /** @return {@code d_k} */
    public int keyDim() {
        return core.keyDim();
    }

    /** @return {@code d_v} */
    public int valueDim() {
        return core.valueDim();
    }

    /** @return whether query {@code i} sees only keys {@code j <= i} */
    public boolean causal() {
        return causal;
    }

    /** @return the parameters, named as they were loaded */
    public StateDict stateDict() {
        return params;
    }

    /**
     * @param parameters the owner of the uploaded parameters, open
     * @return a copy whose forward calls read the projections from {@code parameters}, uploaded there once; its
     *     {@link #stateDict()} is this layer's
     */
    public SelfAttention bind(Parameters parameters) {
        return new SelfAttention(core.bind(parameters), params, causal);
    }

    /**
     * @param value the logit scale; {@code 1.0} leaves the scores unscaled as some texts do
     * @return a copy with that scale
     */
    public SelfAttention withScale(double value) {
        return new SelfAttention(core.with(OptionalDouble.of(value), core.dropout()), params, causal);
    }

    /**
     * @param value whether attention is causal (Raschka's {@code CausalAttention}: query {@code i} sees keys
     *     {@code j <= i})
     * @return a copy with that setting
     */
    public SelfAttention withCausal(boolean value) {
        return new SelfAttention(core, params, value);
    }

    /**
     * @param p the drop probability of the attention weights in training; inference never drops
     * @return a copy with that dropout
     */
    public SelfAttention withDropout(double p) {
        return new SelfAttention(core.with(core.scale(), p), params, causal);
    }

    /**
     * Self-attention in inference.
     *
     * @param scope receives the results
     * @param x {@code [L, d_in]} or {@code [B, L, d_in]}
     * @return the context vectors {@code [.., L, d_v]} and the weights {@code [.., L, L]}
     */
    public AttentionResult forward(Scope scope, Tensor x) {
        return forward(scope, x, x, RunMode.INFERENCE);
    }

    /**
     * Self-attention ({@code memory == x}) or cross-attention (queries from {@code x}, keys and values from
     * {@code memory}, whose length {@code S} may differ).
     *
     * @param scope receives the results
     * @param x {@code [L, d_in]} or {@code [B, L, d_in]}
     * @param memory {@code [S, d_kv]} or {@code [B, S, d_kv]}
     * @param mode training (dropout on the weights with {@code mode.seed()}) or inference
     * @return the context vectors {@code [.., L, d_v]} and the weights {@code [.., L, S]}
     */
    public AttentionResult forward(Scope scope, Tensor x, Tensor memory, RunMode mode) {
        return squeezeHead(scope, core.forward(scope, x, memory, memory, AttentionMasks.NONE.withCausal(causal),
                true, mode));
    }

    /**
     * The context vector of one query position, as Raschka computes {@code z(2)} for {@code x(2)} before
     * generalising to all positions: only that row's query is projected.
     *
     * @param scope receives the results
     * @param x {@code [L, d_in]} or {@code [B, L, d_in]}
     * @param position the query index in {@code [0, L)}
     * @return the context vector {@code [.., d_v]} and the weights {@code [.., L]} of that position
     */
    public AttentionResult forwardQuery(Scope scope, Tensor x, int position) {
        Sequences.checkPosition(x, position, "SelfAttention.forwardQuery");
        int length = x.shape().dim(-2);
        try (Scope work = scope.backend().newScope()) {
            Ops ops = work.ops();
            Tensor row = Sequences.row(ops, x, position);
            AttentionMasks masks = AttentionMasks.NONE;
            if (causal) {
                boolean[] allowed = new boolean[length];
                Arrays.fill(allowed, 0, position + 1, true);
                masks = masks.withAttnMask(Mask.of(Shape.of(1, length), allowed));
            }
            AttentionResult r = squeezeHead(work, core.forward(work, row, x, x, masks, true, RunMode.INFERENCE));
            Shape out = r.output().shape();
            Shape w = r.weights().shape();
            return new AttentionResult(scope.adopt(ops.reshape(r.output(), Sequences.without(out, -2))),
                    scope.adopt(ops.reshape(r.weights(), Sequences.without(w, -2))));
        }
    }

    /**
     * @param scope receives the result
     * @param x {@code [.., L, d_in]}
     * @return the queries {@code x·W_qᵀ + b_q}, {@code [.., L, d_k]}
     */
    public Tensor queries(Scope scope, Tensor x) {
        return project(scope, x, 0);
    }

    /**
     * @param scope receives the result
     * @param x {@code [.., S, d_kv]}
     * @return the keys, {@code [.., S, d_k]}
     */
    public Tensor keys(Scope scope, Tensor x) {
        return project(scope, x, 1);
    }

    /**
     * @param scope receives the result
     * @param x {@code [.., S, d_kv]}
     * @return the values, {@code [.., S, d_v]}
     */
    public Tensor values(Scope scope, Tensor x) {
        return project(scope, x, 2);
    }

    private Tensor project(Scope scope, Tensor x, int which) {
        String name = List.of("W_query", "W_key", "W_value").get(which);
        boolean linear = params.contains(name + ".weight");
        HostTensor w = linear ? params.get(name + ".weight") : params.get(name).transpose();
        HostTensor b = linear ? params.optional(name + ".bias", Shape.of(w.shape().dim(0))) : null;
        return new Linear(w, b).forward(scope, x);
    }

    private static AttentionResult squeezeHead(Scope scope, AttentionResult r) {
        try (Scope work = scope.backend().newScope()) {
            Tensor w = work.adopt(r.weights());
            Shape s = w.shape();
            int[] dims = s.rank() == 4 ? new int[] {s.dim(0), s.dim(2), s.dim(3)} : new int[] {s.dim(1), s.dim(2)};
            return new AttentionResult(r.output(), scope.adopt(work.ops().reshape(w, dims)));
        }
    }
}
