package org.attn4j.models.layers;

import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * Root-mean-square normalisation over the last axis, as Llama's {@code RMSNorm} and PyTorch's {@code nn.RMSNorm}:
 * {@code x / sqrt(mean(x²) + eps) · weight}, state_dict name {@code weight [d]} (absent without affine parameters);
 * {@code [..., d] → [..., d]}. Gemma's {@code x / sqrt(mean(x²) + eps) · (1 + w)} is this norm over {@code 1 + w},
 * formed by its loader.
 *
 * <p>Its weight stays on the host until {@link #bind(Parameters)}, or is already on a backend ({@link #bound}); a
 * bound norm runs in the caller's scope ({@link #forward(Scope, Tensor)}) or on a work scope's ops
 * ({@link #apply(Ops, Tensor)}), both one {@link Ops#rmsNorm} over the bound weight.
 */
public final class RmsNorm implements Norm {
    private final int dim;
    private final double eps;
    private final HostTensor weight;
    private final Placement placement;
    private final Tensor boundWeight;

    /**
     * @param dim {@code d}
     * @param eps added to the mean square, at least 0
     * @param weight {@code [d]}, or null (ones)
     */
    public RmsNorm(int dim, double eps, HostTensor weight) {
        if (weight != null && !weight.shape().equals(Shape.of(dim))) {
            throw new IllegalArgumentException("RmsNorm: argument weight has shape " + weight.shape() + "; it must be ["
                    + dim + "]");
        }
        checkEps("RmsNorm", eps);
        this.dim = dim;
        this.eps = eps;
        this.weight = weight;
        this.placement = null;
        this.boundWeight = null;
    }

    private RmsNorm(int dim, double eps, Tensor weight, Placement placement) {
        this.dim = dim;
        this.eps = eps;
        this.weight = null;
        this.placement = placement;
        this.boundWeight = weight;
    }

    private static void checkEps(String op, double eps) {
        if (!(eps >= 0)) {
            throw new IllegalArgumentException(op + ": argument eps is " + eps + "; it must be at least 0");
        }
    }

    /**
     * A norm over a weight the caller has already put on a backend and keeps there (in a scope it owns).
     *
     * @param weight {@code [d]}
     * @param eps added to the mean square, at least 0
     * @return the bound norm, for activations of the weight's dtype; it copies nothing
     */
    public static RmsNorm bound(Tensor weight, double eps) {
        if (weight == null) {
            throw new IllegalArgumentException("RmsNorm.bound: argument weight is null");
        }
        if (weight.shape().rank() != 1) {
            throw new IllegalArgumentException("RmsNorm.bound: argument weight has shape " + weight.shape()
                    + "; it must be [d]");
        }
        checkEps("RmsNorm.bound", eps);
        return new RmsNorm(weight.shape().dim(0), eps, weight, new Placement(weight.backend(), weight.dtype()));
    }

    /**
     * @param params {@code weight [d]} when {@code affine}
     * @param dim {@code d}
     * @param eps added to the mean square
     * @param affine whether the weight is present
     * @return the norm
     */
    public static RmsNorm load(StateDict params, int dim, double eps, boolean affine) {
        return params.load("RmsNorm", p -> new RmsNorm(dim, eps, affine ? p.get("weight", Shape.of(dim)) : null));
    }

    /**
     * @param parameters where the weight is uploaded, once
     * @return this norm reading its weight from {@code parameters}; it keeps no host copy
     */
    public RmsNorm bind(Parameters parameters) {
        HostTensor w = hostWeight();
        return new RmsNorm(dim, eps, w == null ? null : parameters.upload(w), Placement.of(parameters));
    }

    private HostTensor hostWeight() {
        return weight != null ? weight : boundWeight == null ? null : HostTensor.copyOf(boundWeight);
    }

    @Override
    public int dim() {
        return dim;
    }

    /** @return {@code weight}, empty without it */
    public StateDict stateDict() {
        HostTensor w = hostWeight();
        return w == null ? StateDict.empty() : StateDict.of("weight", w);
    }

    @Override
    public Tensor forward(Scope scope, Tensor x) {
        if (placement != null) {
            placement.check("RmsNorm", x);
            return apply(scope.ops(), x);
        }
        try (Scope work = scope.backend().newScope()) {
            Tensor w = weight == null ? null : weight.toTensor(work, x.dtype());
            return scope.adopt(work.ops().rmsNorm(x, w, eps));
        }
    }

    @Override
    public Tensor apply(Ops t, Tensor x) {
        if (placement == null) {
            throw new IllegalStateException("RmsNorm.apply: the norm holds its parameters on the host; bind it first,"
                    + " or call forward(Scope, …)");
        }
        return t.rmsNorm(x, boundWeight, eps);
    }
}
