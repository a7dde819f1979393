package org.attn4j.models.decoder;

import org.attn4j.api.Ops;
import org.attn4j.api.Tensor;

/**
 * A normalisation over the last axis with its parameters on the backend: RMS norm ({@code x / sqrt(mean(x²) + eps)
 * · w}; Gemma's {@code · (1 + w)} is the same with {@code 1 + w} taken at load), layer norm, or none where a
 * family has no such norm.
 */
interface Norm {
    /** No norm: the input passes. */
    Norm NONE = (t, x) -> x;

    /**
     * @param t the ops of a work scope
     * @param x {@code [..., d]}
     * @return {@code [..., d]}
     */
    Tensor apply(Ops t, Tensor x);

    /**
     * @param weight {@code [d]}
     * @param eps added to the mean square
     * @return {@code x / sqrt(mean(x²) + eps) · weight}
     */
    static Norm rms(Tensor weight, double eps) {
        return (t, x) -> t.rmsNorm(x, weight, eps);
    }

    /**
     * @param weight {@code [d]}
     * @param bias {@code [d]}
     * @param eps added to the variance
     * @return {@code (x − mean) / sqrt(var + eps) · weight + bias}
     */
    static Norm layer(Tensor weight, Tensor bias, double eps) {
        return (t, x) -> t.layerNorm(x, weight, bias, eps);
    }
}
