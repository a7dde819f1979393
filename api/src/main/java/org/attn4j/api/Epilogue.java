package org.attn4j.api;

import java.util.Objects;

/**
 * What {@link Ops#linear(Tensor, Weight, Tensor, Epilogue)} does with the product before it stores it, so that a
 * bias, an activation, a gate and a residual connection cost no extra pass over memory:
 * <pre>
 *   plain:  y = act(x·Wᵀ + b) + residual
 *   gated:  y = act(x·W_gᵀ + b_g) ⊙ (x·W_uᵀ + b_u) + residual     W = [W_g; W_u] (2·out rows), b = [b_g; b_u]
 * </pre>
 * The gated form is the MLP of Llama ({@code silu(gate(x)) ⊙ up(x)}), Gemma ({@link Activation#GELU_TANH}) and
 * Phi-3's fused {@code gate_up_proj}: the gate's rows come first. Start from {@link #none()} and add what you need;
 * each {@code with…} returns a new value, so new steps can be added without breaking callers.
 * <pre>{@code
 * Epilogue.none().withActivation(Activation.GELU)              // BERT's intermediate dense
 * Epilogue.none().withResidual(x)                              // an output projection with its skip connection
 * Epilogue.gated(Activation.SILU)                              // Llama's gate and up projections in one product
 * }</pre>
 */
public final class Epilogue {
    private static final Epilogue NONE = new Epilogue(Activation.IDENTITY, false, null);

    private final Activation activation;
    private final boolean gated;
    private final Tensor residual;

    private Epilogue(Activation activation, boolean gated, Tensor residual) {
        this.activation = activation;
        this.gated = gated;
        this.residual = residual;
    }

    /** @return {@code y = x·Wᵀ + b}: no activation, no gate, no residual */
    public static Epilogue none() {
        return NONE;
    }

    /**
     * @param activation applied to the gate's half
     * @return the gated form {@code act(x·W_gᵀ + b_g) ⊙ (x·W_uᵀ + b_u)}
     */
    public static Epilogue gated(Activation activation) {
        return new Epilogue(check(activation), true, null);
    }

    /** @return the activation ({@link Activation#IDENTITY} for none) */
    public Activation activation() {
        return activation;
    }

    /** @return whether the weight's rows are a gate and an up projection, multiplied together */
    public boolean gated() {
        return gated;
    }

    /** @return the tensor added last, of the result's shape and dtype, or null */
    public Tensor residual() {
        return residual;
    }

    /**
     * @param value the activation
     * @return a copy with it
     */
    public Epilogue withActivation(Activation value) {
        return new Epilogue(check(value), gated, residual);
    }

    /**
     * @param value whether the product is gated
     * @return a copy with it
     */
    public Epilogue withGate(boolean value) {
        return new Epilogue(activation, value, residual);
    }

    /**
     * @param value a tensor of the result's shape and dtype, or null for none; not modified
     * @return a copy that adds it last
     */
    public Epilogue withResidual(Tensor value) {
        return new Epilogue(activation, gated, value);
    }

    private static Activation check(Activation value) {
        if (value == null) {
            throw new IllegalArgumentException("Epilogue: argument activation is null; use Activation.IDENTITY");
        }
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Epilogue e && activation == e.activation && gated == e.gated && residual == e.residual;
    }

    @Override
    public int hashCode() {
        return Objects.hash(activation, gated, System.identityHashCode(residual));
    }

    @Override
    public String toString() {
        return "Epilogue[activation=" + activation + ", gated=" + gated
                + (residual == null ? "" : ", residual=" + residual.shape()) + "]";
    }
}
