package org.attn4j.models.decoder;

import java.util.List;
import org.attn4j.api.Ops;
import org.attn4j.api.Tensor;
import org.attn4j.models.Activation;

/**
 * The MLP of a decoder block: gated, {@code down(act(gate(x)) ⊙ up(x))} (the Llama lineage; gate and up may be
 * one fused projection whose first half is the gate, Phi-3's {@code gate_up_proj}), or plain,
 * {@code down(act(up(x)))} (GPT-2's {@code c_fc}, {@code c_proj}).
 */
final class FeedForward {
    private final Projection gate;
    private final Projection up;
    private final Projection gateUp;
    private final Projection down;
    private final Activation activation;
    private final int inner;

    private FeedForward(Projection gate, Projection up, Projection gateUp, Projection down, Activation activation,
                        int inner) {
        this.gate = gate;
        this.up = up;
        this.gateUp = gateUp;
        this.down = down;
        this.activation = activation;
        this.inner = inner;
    }

    /** @return {@code down(act(gate(x)) ⊙ up(x))} */
    static FeedForward gated(Projection gate, Projection up, Projection down, Activation activation) {
        return new FeedForward(gate, up, null, down, activation, 0);
    }

    /** @return {@code down(act(g) ⊙ u)} with {@code [g, u]} the halves of {@code gateUp(x)}, {@code inner} each */
    static FeedForward fusedGated(Projection gateUp, Projection down, Activation activation, int inner) {
        return new FeedForward(null, null, gateUp, down, activation, inner);
    }

    /** @return {@code down(act(up(x)))} */
    static FeedForward plain(Projection up, Projection down, Activation activation) {
        return new FeedForward(null, up, null, down, activation, 0);
    }

    /**
     * @param t the ops of a work scope
     * @param x {@code [B, L, E]}, normalised
     * @return {@code [B, L, E]}
     */
    Tensor forward(Ops t, Tensor x) {
        if (gateUp != null) {
            List<Tensor> halves = t.split(gateUp.apply(t, x), new int[] {inner, inner}, -1);
            return down.apply(t, t.mul(activation.apply(t, halves.get(0)), halves.get(1)));
        }
        if (gate == null) {
            return down.apply(t, activation.apply(t, up.apply(t, x)));
        }
        return down.apply(t, t.mul(activation.apply(t, gate.apply(t, x)), up.apply(t, x)));
    }
}
