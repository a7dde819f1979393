package org.attn4j.models.layers;

import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Tensor;

/**
 * A normalisation over the last axis with its parameters: {@link LayerNorm} ({@code (x − mean) / sqrt(var + eps) · w
 * + b}) or {@link RmsNorm} ({@code x / sqrt(mean(x²) + eps) · w}); {@code [..., d] → [..., d]}. A family that
 * chooses its norm by configuration holds it as this type.
 */
public interface Norm {

    /** @return {@code d}, the normalised width */
    int dim();

    /**
     * @param scope receives the result
     * @param x {@code [..., d]}
     * @return {@code [..., d]}
     */
    Tensor forward(Scope scope, Tensor x);

    /**
     * The norm of a bound block on the ops of the caller's work scope, with no check beyond the op's own.
     *
     * @param t the ops of a work scope on the block's backend
     * @param x {@code [..., d]} of the block's dtype
     * @return {@code [..., d]}
     * @throws IllegalStateException if the block holds its parameters on the host
     */
    Tensor apply(Ops t, Tensor x);
}
