package org.attn4j.models.decoder;

import org.attn4j.api.Activation;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Ops;
import org.attn4j.api.Tensor;
import org.attn4j.models.layers.Linear;

/**
 * The MLP of a decoder block: gated, {@code down(act(gate(x)) ⊙ up(x))} (the Llama lineage), read as one product
 * over the gate's and the up projection's rows stacked at bind (Phi-3's {@code gate_up_proj} is stored so), or
 * plain, {@code down(act(up(x)))} (GPT-2's {@code c_fc}, {@code c_proj}). The activation, the gate and the
 * block's residual ride in the products' epilogues.
 */
final class FeedForward {
    private final Linear up;
    private final Linear down;
    private final Activation activation;
    private final boolean gated;

    private FeedForward(Linear up, Linear down, Activation activation, boolean gated) {
        this.up = up;
        this.down = down;
        this.activation = activation;
        this.gated = gated;
    }

    /**
     * @param gateUp {@code [2·inner, E]}: the gate's rows, then the up projection's
     * @param down {@code [E, inner]}
     * @param activation applied to the gate
     * @return the gated MLP
     */
    static FeedForward gated(Linear gateUp, Linear down, Activation activation) {
        return new FeedForward(gateUp, down, activation, true);
    }

    /**
     * @param up {@code [inner, E]}
     * @param down {@code [E, inner]}
     * @param activation applied to {@code up(x)}
     * @return the plain MLP
     */
    static FeedForward plain(Linear up, Linear down, Activation activation) {
        return new FeedForward(up, down, activation, false);
    }

    /**
     * @param t the ops of a work scope
     * @param x {@code [B, L, E]}
     * @param residual added to the result in the down projection's pass, or null
     * @return {@code [B, L, E]}
     */
    Tensor forward(Ops t, Tensor x, Tensor residual) {
        Epilogue first = gated ? Epilogue.gated(activation) : Epilogue.none().withActivation(activation);
        return down.apply(t, up.apply(t, x, first), Epilogue.none().withResidual(residual));
    }
}
