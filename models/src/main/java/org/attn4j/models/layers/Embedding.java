package org.attn4j.models.layers;

import java.util.SplittableRandom;
import org.attn4j.api.DType;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.Parameters;
import org.attn4j.models.parameters.StateDict;

/**
 * PyTorch's {@code nn.Embedding(numEmbeddings, dim)}: a lookup table {@code weight [V, d]} whose rows are gathered
 * by token id; state_dict name {@code weight}.
 */
public final class Embedding {
    private final HostTensor weight;
    private final Parameters parameters;
    private final Weight boundWeight;

    /** @param weight {@code [V, d]} */
    public Embedding(HostTensor weight) {
        if (weight.shape().rank() != 2) {
            throw new IllegalArgumentException("Embedding: argument weight has shape " + weight.shape()
                    + "; it must be [numEmbeddings, dim]");
        }
        this.weight = weight;
        this.parameters = null;
        this.boundWeight = null;
    }

    private Embedding(Embedding host, Parameters parameters) {
        this.weight = null;
        this.parameters = parameters;
        this.boundWeight = parameters.weight(host.hostWeight());
    }

    private HostTensor hostWeight() {
        return weight != null ? weight : HostTensor.of(boundWeight.toFloatArray(), boundWeight.shape().toArray());
    }

    /**
     * @param parameters where the table is bound as a weight, once
     * @return this layer reading its table from {@code parameters}, keeping no host copy; {@code forward} then needs
     *     {@code parameters.dtype()}
     */
    public Embedding bind(Parameters parameters) {
        return new Embedding(this, parameters);
    }

    /**
     * @param params {@code weight [numEmbeddings, dim]}
     * @param numEmbeddings {@code V}
     * @param dim {@code d}
     * @return the layer
     */
    public static Embedding load(StateDict params, int numEmbeddings, int dim) {
        return params.load("Embedding", p -> {
            return new Embedding(p.get("weight", Shape.of(numEmbeddings, dim)));
        });
    }

    /**
     * A table of uniform random values in {@code [-1, 1)}, for demos without trained weights.
     *
     * @param numEmbeddings {@code V}
     * @param dim {@code d}
     * @param seed the seed of {@link java.util.SplittableRandom}
     * @return the layer
     */
    public static Embedding random(int numEmbeddings, int dim, long seed) {
        double[] w = new SplittableRandom(seed).doubles((long) numEmbeddings * dim, -1, 1).toArray();
        return new Embedding(new HostTensor(Shape.of(numEmbeddings, dim), w));
    }

    /** @return {@code V} */
    public int numEmbeddings() {
        return (weight != null ? weight.shape() : boundWeight.shape()).dim(0);
    }

    /** @return {@code d} */
    public int dim() {
        return (weight != null ? weight.shape() : boundWeight.shape()).dim(1);
    }

    /** @return {@code weight} */
    public StateDict stateDict() {
        return StateDict.of("weight", hostWeight());
    }

    /**
     * @param scope receives the result
     * @param ids token ids in {@code [0, V)}, row-major; not modified
     * @param idsShape their shape, for example {@code [B, L]}
     * @param dtype the result's element type
     * @return {@code idsShape + [d]}: row {@code ids[i]} of the table at position {@code i}
     */
    public Tensor forward(Scope scope, int[] ids, Shape idsShape, DType dtype) {
        if (parameters != null) {
            if (dtype != parameters.dtype() || scope.backend() != parameters.backend()) {
                throw new IllegalArgumentException("Embedding: asked for " + dtype + " on " + scope.backend().name()
                        + " but the layer is bound to " + parameters.dtype() + " on " + parameters.backend().name());
            }
            return scope.ops().embedding(boundWeight, ids, idsShape);
        }
        try (Scope work = scope.backend().newScope()) {
            return scope.adopt(work.ops().embedding(weight.toTensor(work, dtype), ids, idsShape));
        }
    }
}
