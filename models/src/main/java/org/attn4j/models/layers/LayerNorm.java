package org.attn4j.models.layers;

import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * PyTorch's {@code nn.LayerNorm(d, eps, elementwise_affine)}: {@code (x - mean) / sqrt(var + eps) · weight + bias}
 * over the last axis with the biased variance; state_dict names {@code weight [d]} and {@code bias [d]} (absent
 * without affine parameters).
 *
 * <p>Its parameters stay on the host until {@link #bind(Parameters)}, or are already on a backend ({@link #bound});
 * a bound norm runs in the caller's scope ({@link #forward(Scope, Tensor)}) or on a work scope's ops
 * ({@link #apply(Ops, Tensor)}), both one {@link Ops#layerNorm} over the bound parameters.
 */
public final class LayerNorm implements Norm {
    /** PyTorch's default epsilon. */
    public static final double DEFAULT_EPS = 1e-5;

    private final int dim;
    private final double eps;
    private final HostTensor weight;
    private final HostTensor bias;
    private final Placement placement;
    private final Tensor boundWeight;
    private final Tensor boundBias;

    /**
     * @param dim {@code d}
     * @param eps added to the variance
     * @param weight {@code [d]} or null (ones)
     * @param bias {@code [d]} or null (zeros)
     */
    public LayerNorm(int dim, double eps, HostTensor weight, HostTensor bias) {
        Shape s = Shape.of(dim);
        if ((weight != null && !weight.shape().equals(s)) || (bias != null && !bias.shape().equals(s))) {
            throw new IllegalArgumentException("LayerNorm: weight " + (weight == null ? null : weight.shape())
                    + " and bias " + (bias == null ? null : bias.shape()) + " must be " + s);
        }
        checkEps("LayerNorm", eps);
        this.dim = dim;
        this.eps = eps;
        this.weight = weight;
        this.bias = bias;
        this.placement = null;
        this.boundWeight = null;
        this.boundBias = null;
    }

    private LayerNorm(int dim, double eps, Tensor weight, Tensor bias, Placement placement) {
        this.dim = dim;
        this.eps = eps;
        this.weight = null;
        this.bias = null;
        this.placement = placement;
        this.boundWeight = weight;
        this.boundBias = bias;
    }

    private static void checkEps(String op, double eps) {
        if (!(eps >= 0)) {
            throw new IllegalArgumentException(op + ": argument eps is " + eps + "; it must be at least 0");
        }
    }

    /**
     * A norm over parameters the caller has already put on a backend and keeps there (in a scope it owns).
     *
     * @param weight {@code [d]}
     * @param bias {@code [d]}, on the same backend in the same dtype
     * @param eps added to the variance
     * @return the bound norm, for activations of the parameters' dtype; it copies nothing
     */
    public static LayerNorm bound(Tensor weight, Tensor bias, double eps) {
        if (weight == null || bias == null) {
            throw new IllegalArgumentException("LayerNorm.bound: argument " + (weight == null ? "weight" : "bias")
                    + " is null");
        }
        if (weight.shape().rank() != 1 || !bias.shape().equals(weight.shape()) || bias.dtype() != weight.dtype()
                || bias.backend() != weight.backend()) {
            throw new IllegalArgumentException("LayerNorm.bound: weight " + weight.shape() + " " + weight.dtype()
                    + " and bias " + bias.shape() + " " + bias.dtype() + " must be one [d] in one dtype on one backend");
        }
        checkEps("LayerNorm.bound", eps);
        return new LayerNorm(weight.shape().dim(0), eps, weight, bias,
                new Placement(weight.backend(), weight.dtype()));
    }

    private HostTensor hostWeight() {
        return weight != null ? weight : boundWeight == null ? null : HostTensor.copyOf(boundWeight);
    }

    private HostTensor hostBias() {
        return bias != null ? bias : boundBias == null ? null : HostTensor.copyOf(boundBias);
    }

    /**
     * @param parameters where the affine parameters are uploaded, once
     * @return this layer reading its parameters from {@code parameters}; it keeps no host copy
     */
    public LayerNorm bind(Parameters parameters) {
        HostTensor w = hostWeight();
        HostTensor b = hostBias();
        return new LayerNorm(dim, eps, w == null ? null : parameters.upload(w), b == null ? null : parameters.upload(b),
                Placement.of(parameters));
    }

    /**
     * @param params {@code weight} and {@code bias} when {@code affine}
     * @param dim {@code d}
     * @param eps added to the variance
     * @param affine whether the parameters are present
     * @return the layer
     */
    public static LayerNorm load(StateDict params, int dim, double eps, boolean affine) {
        return params.load("LayerNorm", p -> {
            Shape s = Shape.of(dim);
            return affine ? new LayerNorm(dim, eps, p.get("weight", s), p.get("bias", s))
                    : new LayerNorm(dim, eps, null, null);
        });
    }

    @Override
    public int dim() {
        return dim;
    }

    /** @return the affine parameters, empty without them */
    public StateDict stateDict() {
        HostTensor w = hostWeight();
        HostTensor b = hostBias();
        StateDict sd = w == null ? StateDict.empty() : StateDict.of("weight", w);
        return b == null ? sd : sd.with("bias", b);
    }

    @Override
    public Tensor forward(Scope scope, Tensor x) {
        return forward(scope, x, null);
    }

    /**
     * The norm of a residual sum in one pass, as a post-norm block needs it: {@code layerNorm(x + residual)}.
     *
     * @param scope receives the result
     * @param x {@code [..., dim]}
     * @param residual {@code x}'s shape and dtype, or null for none
     * @return {@code [..., dim]}
     */
    public Tensor forward(Scope scope, Tensor x, Tensor residual) {
        if (placement != null) {
            placement.check("LayerNorm", x);
            return residual == null ? scope.ops().layerNorm(x, boundWeight, boundBias, eps)
                    : scope.ops().layerNorm(x, residual, boundWeight, boundBias, eps);
        }
        try (Scope work = scope.backend().newScope()) {
            Tensor g = weight == null ? null : weight.toTensor(work, x.dtype());
            Tensor b = bias == null ? null : bias.toTensor(work, x.dtype());
            return scope.adopt(residual == null ? work.ops().layerNorm(x, g, b, eps)
                    : work.ops().layerNorm(x, residual, g, b, eps));
        }
    }

    @Override
    public Tensor apply(Ops t, Tensor x) {
        if (placement == null) {
            throw new IllegalStateException("LayerNorm.apply: the norm holds its parameters on the host; bind it"
                    + " first, or call forward(Scope, …)");
        }
        return t.layerNorm(x, boundWeight, boundBias, eps);
    }
}
