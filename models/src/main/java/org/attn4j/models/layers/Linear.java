package org.attn4j.models.layers;

import org.attn4j.api.DType;
import org.attn4j.api.Epilogue;
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
 * state_dict names {@code weight} and {@code bias}.
 */
public final class Linear {
    private final HostTensor weight;
    private final HostTensor bias;
    private final Parameters parameters;
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
        if (bias != null && !bias.shape().equals(Shape.of(weight.shape().dim(0)))) {
            throw new IllegalArgumentException("Linear: argument bias has shape " + bias.shape()
                    + " but weight has shape " + weight.shape() + "; bias must be [" + weight.shape().dim(0) + "]");
        }
        this.weight = weight;
        this.bias = bias;
        this.parameters = null;
        this.boundWeight = null;
        this.boundBias = null;
    }

    private Linear(Linear host, Parameters parameters) {
        this.weight = null;
        this.bias = null;
        this.parameters = parameters;
        this.boundWeight = parameters.projection(host.hostWeight());
        this.boundBias = host.hasBias() ? parameters.upload(host.hostBias()) : null;
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
        return new Linear(this, parameters);
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
        if (parameters != null) {
            parameters.checkInput("Linear", x);
            return scope.ops().linear(x, boundWeight, boundBias, epilogue);
        }
        try (Scope work = scope.backend().newScope()) {
            Tensor b = bias == null ? null : bias.toTensor(work, x.dtype());
            Weight w = weight.toWeight(work, x.dtype() == DType.F64 ? WeightType.F64
                    : weight.type() == WeightType.F64 ? WeightType.F32 : weight.type());
            return scope.adopt(work.ops().linear(x, w, b, epilogue));
        }
    }
}
