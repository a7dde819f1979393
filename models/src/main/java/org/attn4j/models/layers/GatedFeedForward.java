package org.attn4j.models.layers;

import org.attn4j.api.Activation;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;
import java.util.List;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * A gated feed-forward block (GLU variants: SwiGLU, GeGLU), one product over the gate's and the value's rows
 * stacked, then the down projection:
 * <pre>
 *   [g, u] = x·W_guᵀ + b_gu                          W_gu [2·inner, d]: the gate's rows first, then the value's
 *   y      = (act(g) ⊙ u)·W_downᵀ + b_down (+ residual)          [..., d]
 * </pre>
 * Families store the halves in either order or as two matrices; their loaders stack them gate first.
 */
public final class GatedFeedForward {
    private final Linear gateUp;
    private final Linear down;
    private final Activation activation;

    /**
     * @param gateUp {@code [2·inner, d]}, the gate's rows first
     * @param down {@code [d, inner]}
     * @param activation applied to the gate
     */
    public GatedFeedForward(Linear gateUp, Linear down, Activation activation) {
        if (gateUp == null || down == null || activation == null) {
            throw new IllegalArgumentException("GatedFeedForward: argument " + (gateUp == null ? "gateUp"
                    : down == null ? "down" : "activation") + " is null");
        }
        if (gateUp.outFeatures() != 2 * down.inFeatures() || gateUp.inFeatures() != down.outFeatures()) {
            throw new IllegalArgumentException("GatedFeedForward: gateUp is [" + gateUp.outFeatures() + ", "
                    + gateUp.inFeatures() + "] and down [" + down.outFeatures() + ", " + down.inFeatures()
                    + "]; gateUp must be [2·inner, d] for down [d, inner]");
        }
        this.gateUp = gateUp;
        this.down = down;
        this.activation = activation;
    }

    /**
     * @param gate {@code [inner, d]}, the projection the activation is applied to
     * @param up {@code [inner, d]}, the value it multiplies
     * @param down {@code [d, inner]}
     * @param activation applied to the gate
     * @return the block with {@code gate} and {@code up} stacked into one product (both with biases or neither)
     */
    public static GatedFeedForward of(Linear gate, Linear up, Linear down, Activation activation) {
        StateDict g = gate.stateDict();
        StateDict u = up.stateDict();
        if (g.contains("bias") != u.contains("bias")) {
            throw new IllegalArgumentException("GatedFeedForward.of: the gate " + (g.contains("bias") ? "has" : "has no")
                    + " bias and the up projection " + (u.contains("bias") ? "has" : "has no") + " bias");
        }
        HostTensor w = HostTensor.concatRows(List.of(g.get("weight"), u.get("weight")));
        HostTensor b = g.contains("bias") ? HostTensor.concatRows(List.of(g.get("bias"), u.get("bias"))) : null;
        return new GatedFeedForward(new Linear(w, b), down, activation);
    }

    /** @return the gate's half of {@link #gateUp()}: {@code state_dict} {@code weight [inner, d]}, {@code bias} */
    public StateDict gate() {
        return half(0);
    }

    /** @return the up projection's half of {@link #gateUp()}, as {@link #gate()} */
    public StateDict up() {
        return half(1);
    }

    private StateDict half(int which) {
        int inner = down.inFeatures();
        StateDict sd = StateDict.empty();
        for (var e : gateUp.stateDict().asMap().entrySet()) {
            sd = sd.with(e.getKey(), e.getValue().rows(which * inner, (which + 1) * inner));
        }
        return sd;
    }

    /**
     * @param parameters where the projections are uploaded, once
     * @return this block reading its projections from {@code parameters}
     */
    public GatedFeedForward bind(Parameters parameters) {
        return new GatedFeedForward(gateUp.bind(parameters), down.bind(parameters), activation);
    }

    /** @return the stacked projection {@code [2·inner, d]}, the gate's rows first */
    public Linear gateUp() {
        return gateUp;
    }

    /** @return the down projection {@code [d, inner]} */
    public Linear down() {
        return down;
    }

    /**
     * @param scope receives the result
     * @param x {@code [..., d]}
     * @param residual added to the down projection in its pass ({@code x}'s shape), or null
     * @return {@code [..., d]}
     */
    public Tensor forward(Scope scope, Tensor x, Tensor residual) {
        try (Scope work = scope.backend().newScope()) {
            Tensor hidden = gateUp.forward(work, x, Epilogue.gated(activation));
            return scope.adopt(down.forward(work, hidden, Epilogue.none().withResidual(residual)));
        }
    }
}
