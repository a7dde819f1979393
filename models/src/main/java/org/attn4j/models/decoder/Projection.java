package org.attn4j.models.decoder;

import org.attn4j.api.Ops;
import org.attn4j.api.Tensor;

/**
 * One {@code nn.Linear} of a decoder, {@code y = x·Wᵀ + b}, its parameters on the backend: the one place where the
 * decoders call {@link Ops#linear}. {@link Weights} makes them.
 */
final class Projection {
    private final Tensor weight;
    private final Tensor bias;

    /**
     * @param weight {@code [out, in]} on the backend
     * @param bias {@code [out]} on the backend, or null
     */
    Projection(Tensor weight, Tensor bias) {
        this.weight = weight;
        this.bias = bias;
    }

    /**
     * @param t the ops of a work scope
     * @param x {@code [..., in]}
     * @return {@code [..., out]}
     */
    Tensor apply(Ops t, Tensor x) {
        return t.linear(x, weight, bias);
    }
}
