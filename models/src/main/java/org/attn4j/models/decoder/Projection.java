package org.attn4j.models.decoder;

import org.attn4j.api.Epilogue;
import org.attn4j.api.Ops;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;

/**
 * One {@code nn.Linear} of a decoder, {@code y = x·Wᵀ + b}, its weight bound on the backend in its storage type:
 * the one place where the decoders call {@link Ops#linear}. {@link Weights} makes them; a gate and an up
 * projection may be one stacked weight read by a gated product ({@link Epilogue#gated}).
 */
final class Projection {
    private final Weight weight;
    private final Tensor bias;

    /**
     * @param weight {@code [out, in]} on the backend
     * @param bias {@code [out]} on the backend, or null
     */
    Projection(Weight weight, Tensor bias) {
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

    /**
     * @param t the ops of a work scope
     * @param x {@code [..., in]}
     * @param epilogue the activation, gate and residual applied in the same pass
     * @return {@code [..., out]} ({@code out} halved when gated)
     */
    Tensor apply(Ops t, Tensor x, Epilogue epilogue) {
        return t.linear(x, weight, bias, epilogue);
    }
}
