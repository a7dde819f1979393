package org.attn4j.models.layers;

import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * PyTorch's {@code nn.Linear}: {@code y = x·Wᵀ + b} with {@code weight [out, in]} and {@code bias [out]} (optional),
 * state_dict names {@code weight} and {@code bias}; {@code [..., in] → [..., out]}.
 *
 * <p>A layer holds its parameters on the host until {@link #bind(Parameters)}, or is made over parameters already on
 * a backend ({@link #bound}). A bound layer runs in the caller's scope ({@link #forward(Scope, Tensor)}) or, on a hot
 * path that runs many ops in one work scope, straight on that scope's ops ({@link #apply(Ops, Tensor, Epilogue)}):
 * both are one {@link Ops#linear} over the bound weight, which stays in its storage type.
 */
public final class Linear {
    private final HostTensor weight;
    private final HostTensor bias;
    private final Placement placement;
    private final Weight boundWeight;
    private final Tensor boundBias;

    /**
     * @param weight {@code [out, in]}
     * @param bias {@code [out]}, or null for none
     */
    public Linear(HostTensor weight, HostTensor bias) {
        if (weight.shape().rank() != 2) {
            throw new IllegalArgumentException("Linear: argument weight has shape " + weight.shape()
                    + "; it must be [out, in]");
        }
        checkBias(bias == null ? null : bias.shape(), weight.shape());
        this.weight = weight;
        this.bias = bias;
        this.placement = null;
        this.boundWeight = null;
        this.boundBias = null;
    }

    private Linear(Weight weight, Tensor bias, Placement placement) {
        this.weight = null;
        this.bias = null;
        this.placement = placement;
        this.boundWeight = weight;
        this.boundBias = bias;
    }

    private static void checkBias(Shape bias, Shape weight) {
        if (bias != null && !bias.equals(Shape.of(weight.dim(0)))) {
            throw new IllegalArgumentException("Linear: argument bias has shape " + bias + " but weight has shape "
                    + weight + "; bias must be [" + weight.dim(0) + "]");
        }
    }

    /**
     * A layer over parameters the caller has already put on a backend and keeps there (in a scope it owns).
     *
     * @param weight {@code [out, in]}, in its storage type
     * @param bias {@code [out]} of {@code dtype} on the weight's backend, or null for none
     * @param dtype the element type of the activations it meets
     * @return the bound layer; it copies nothing
     */
    public static Linear bound(Weight weight, Tensor bias, DType dtype) {
        if (weight == null || dtype == null) {
            throw new IllegalArgumentException("Linear.bound: argument " + (weight == null ? "weight" : "dtype")
                    + " is null");
        }
        if (weight.shape().rank() != 2) {
            throw new IllegalArgumentException("Linear.bound: argument weight has shape " + weight.shape()
                    + "; it must be [out, in]");
        }
        checkBias(bias == null ? null : bias.shape(), weight.shape());
        if (bias != null && (bias.backend() != weight.backend() || bias.dtype() != dtype)) {
            throw new IllegalArgumentException("Linear.bound: argument bias is " + bias.dtype() + " on "
                    + bias.backend().name() + "; it must be " + dtype + " on the weight's " + weight.backend().name());
        }
        return new Linear(weight, bias, new Placement(weight.backend(), dtype));
    }

    private HostTensor hostWeight() {
        return weight != null ? weight : HostTensor.of(boundWeight.toFloatArray(), boundWeight.shape().toArray());
    }

    private HostTensor hostBias() {
        return bias != null ? bias : boundBias == null ? null : HostTensor.copyOf(boundBias);
    }

    private boolean hasBias() {
        return bias != null || boundBias != null;
    }

    /**
     * @param parameters where the weight is bound (in its storage type, or I8 where they quantize projections,
     *     packed as the backend's kernels read it; see {@link Parameters#projection}) and the bias uploaded, once
     * @return this layer reading its parameters from {@code parameters}; it keeps no host copy (its
     *     {@link #stateDict()} reads them back from the backend)
     */
    public Linear bind(Parameters parameters) {
        return new Linear(parameters.projection(hostWeight()), hasBias() ? parameters.upload(hostBias()) : null,
                Placement.of(parameters));
    }

    /**
     * @param params {@code weight [out, in]} and, when {@code bias}, {@code bias [out]}
     * @param in input features
     * @param out output features
     * @param bias whether a bias is expected
     * @return the layer
     */
    public static Linear load(StateDict params, int in, int out, boolean bias) {
        return params.load("Linear", p -> {
            return new Linear(p.get("weight", Shape.of(out, in)), bias ? p.get("bias", Shape.of(out)) : null);
        });
    }

    /** @return {@code in} */
    public int inFeatures() {
        return (weight != null ? weight.shape() : boundWeight.shape()).dim(1);
    }

    /** @return {@code out} */
    public int outFeatures() {
        return (weight != null ? weight.shape() : boundWeight.shape()).dim(0);
    }

    /**
     * @return the weight's storage type (as bound, for a bound layer); over {@link WeightType#I8} the product
     *     quantizes its input per sequence (see {@code Ops.linear})
     */
    public WeightType weightType() {
        return weight != null ? weight.type() : boundWeight.type();
    }

    /** @return {@code weight} and, if present, {@code bias} */
    public StateDict stateDict() {
        StateDict sd = StateDict.of("weight", hostWeight());
        return hasBias() ? sd.with("bias", hostBias()) : sd;
    }

    /**
     * @param scope receives the result
     * @param x {@code [..., in]}
     * @return {@code [..., out]}
     */
    public Tensor forward(Scope scope, Tensor x) {
        return forward(scope, x, Epilogue.none());
    }

    /**
     * @param scope receives the result
     * @param x {@code [..., in]}
     * @param epilogue the activation and residual applied to {@code x·Wᵀ + b} in the same pass (see {@link Epilogue})
     * @return {@code [..., out]}
     */
    public Tensor forward(Scope scope, Tensor x, Epilogue epilogue) {
        if (placement != null) {
            placement.check("Linear", x);
            return apply(scope.ops(), x, epilogue);
        }
        try (Scope work = scope.backend().newScope()) {
            Tensor b = bias == null ? null : bias.toTensor(work, x.dtype());
            Weight w = weight.toWeight(work, x.dtype() == DType.F64 ? WeightType.F64
                    : weight.type() == WeightType.F64 ? WeightType.F32 : weight.type());
            return scope.adopt(work.ops().linear(x, w, b, epilogue));
        }
    }

    /**
     * The product of a bound layer on the ops of the caller's work scope, with no check beyond the op's own.
     *
     * @param t the ops of a work scope on the layer's backend
     * @param x {@code [..., in]} of the layer's dtype
     * @return {@code [..., out]}
     * @throws IllegalStateException if the layer is not bound
     */
    public Tensor apply(Ops t, Tensor x) {
        return t.linear(x, bound("apply"), boundBias);
    }

    /**
     * @param t the ops of a work scope on the layer's backend
     * @param x {@code [..., in]} of the layer's dtype
     * @param epilogue the activation, gate and residual applied in the same pass (see {@link Epilogue}; gated, the
     *     weight's rows are the gate's then the value's and {@code out} is halved)
     * @return {@code [..., out]}
     * @throws IllegalStateException if the layer is not bound
     */
    public Tensor apply(Ops t, Tensor x, Epilogue epilogue) {
        return t.linear(x, bound("apply"), boundBias, epilogue);
    }

    private Weight bound(String method) {
        if (boundWeight == null) {
            throw new IllegalStateException("Linear." + method + ": the layer holds its parameters on the host; bind"
                    + " it first, or call forward(Scope, …)");
        }
        return boundWeight;
    }
}
