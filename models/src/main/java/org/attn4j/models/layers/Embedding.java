package org.attn4j.models.layers;

import java.util.SplittableRandom;
import org.attn4j.api.DType;
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
 * PyTorch's {@code nn.Embedding(numEmbeddings, dim)}: a lookup table {@code weight [V, d]} whose rows are gathered
 * by token id; state_dict name {@code weight}; {@code ids [...] → [..., d]}.
 *
 * <p>Its table stays on the host until {@link #bind(Parameters)}, or is already on a backend ({@link #bound}); a
 * bound table is gathered in the caller's scope ({@link #forward}) or on a work scope's ops ({@link #apply}), both one
 * {@link Ops#embedding} over the bound weight in its storage type. The same weight read by a product is a tied LM
 * head ({@link #asHead()}).
 */
public final class Embedding {
    private final HostTensor weight;
    private final Placement placement;
    private final Weight boundWeight;

    /** @param weight {@code [V, d]} */
    public Embedding(HostTensor weight) {
        if (weight.shape().rank() != 2) {
            throw new IllegalArgumentException("Embedding: argument weight has shape " + weight.shape()
                    + "; it must be [numEmbeddings, dim]");
        }
        this.weight = weight;
        this.placement = null;
        this.boundWeight = null;
    }

    private Embedding(Weight weight, Placement placement) {
        this.weight = null;
        this.placement = placement;
        this.boundWeight = weight;
    }

    /**
     * A table the caller has already put on a backend and keeps there (in a scope it owns).
     *
     * @param weight {@code [V, d]}, in its storage type
     * @return the bound table; its rows come out F64 from an {@link WeightType#F64} table, else F32 (as
     *     {@link Ops#embedding(Weight, int[], Shape)} gives them); it copies nothing
     */
    public static Embedding bound(Weight weight) {
        if (weight == null) {
            throw new IllegalArgumentException("Embedding.bound: argument weight is null");
        }
        if (weight.shape().rank() != 2) {
            throw new IllegalArgumentException("Embedding.bound: argument weight has shape " + weight.shape()
                    + "; it must be [numEmbeddings, dim]");
        }
        return new Embedding(weight, new Placement(weight.backend(),
                weight.type() == WeightType.F64 ? DType.F64 : DType.F32));
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
        return new Embedding(parameters.weight(hostWeight()), Placement.of(parameters));
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
        if (placement != null) {
            placement.check("Embedding", scope.backend(), dtype);
            return apply(scope.ops(), ids, idsShape);
        }
        try (Scope work = scope.backend().newScope()) {
            return scope.adopt(work.ops().embedding(weight.toTensor(work, dtype), ids, idsShape));
        }
    }

    /**
     * The rows of a bound table on the ops of the caller's work scope, with no check beyond the op's own.
     *
     * @param t the ops of a work scope on the table's backend
     * @param ids token ids in {@code [0, V)}, row-major; not modified
     * @param idsShape their shape
     * @return {@code idsShape + [d]}
     * @throws IllegalStateException if the table is on the host
     */
    public Tensor apply(Ops t, int[] ids, Shape idsShape) {
        if (placement == null) {
            throw new IllegalStateException("Embedding.apply: the table is on the host; bind it first, or call"
                    + " forward(Scope, …)");
        }
        return t.embedding(boundWeight, ids, idsShape);
    }

    /**
     * @return the table read as the LM head {@code x·weightᵀ}, {@code [..., d] → [..., V]} (tied word embeddings):
     *     the same weight, bound or on the host as this table is, with no bias
     */
    public Linear asHead() {
        return placement == null ? new Linear(weight, null) : Linear.bound(boundWeight, null, placement.dtype());
    }
}
