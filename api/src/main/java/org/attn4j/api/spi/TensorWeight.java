package org.attn4j.api.spi;

import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.WeightType;

/**
 * A weight held as an ordinary tensor of its values, converted once when created: F32 for every type but
 * {@link WeightType#F64}, which stays F64. It is what {@link AbstractScope#createWeight} gives a backend that has no
 * weight kernels of its own, and what the default weight ops of {@link AbstractOps} compose with.
 */
public final class TensorWeight extends AbstractWeight {
    private final Tensor values;

    /**
     * @param owner the scope that frees it, which also owns {@code values}
     * @param shape {@code [rows, columns]}
     * @param type the type the values were given in
     * @param values the converted values, of {@code shape}, owned by {@code owner}
     */
    public TensorWeight(AbstractScope owner, Shape shape, WeightType type, Tensor values) {
        super(owner, shape, type);
        this.values = values;
    }

    /** @return the values as a tensor of the weight's shape, F32 (F64 for an F64 weight) */
    public Tensor tensor() {
        return values;
    }

    @Override
    protected long heldBytes() {
        return shape().size() * (values.dtype() == DType.F64 ? 8 : 4);
    }

    @Override
    protected float[] values() {
        return values.toFloatArray();
    }

    @Override
    protected void release() {
    }
}
