package org.attn4j.api.spi;

import org.attn4j.api.Shape;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;

/**
 * The bookkeeping every backend's weight shares: shape, storage type, the owning scope and the closed state, with
 * the same pinning as {@link AbstractTensor}. A backend subclasses it in {@link AbstractScope#createWeight}, holds
 * the values in the layout its kernels read, and frees them in {@link #release()}; {@link TensorWeight} is the
 * subclass a backend without kernels of its own for weights gets.
 */
public abstract class AbstractWeight extends Owned implements Weight {
    private final Shape shape;
    private final WeightType type;

    /**
     * @param owner the scope that frees this weight; the weight registers itself there
     * @param shape {@code [rows, columns]}
     * @param type the type its values were given in
     */
    protected AbstractWeight(AbstractScope owner, Shape shape, WeightType type) {
        super(owner);
        this.shape = shape;
        this.type = type;
        owner.register(this);
    }

    @Override
    public final Shape shape() {
        return shape;
    }

    @Override
    public final WeightType type() {
        return type;
    }

    @Override
    public final long byteSize() {
        return reading("byteSize", this::heldBytes);
    }

    @Override
    public final float[] toFloatArray() {
        return reading("toFloatArray", this::values);
    }

    /** @return the bytes held, read while pinned */
    protected abstract long heldBytes();

    /** @return the values, row-major, as {@link WeightType#decode} reads them; called while pinned */
    protected abstract float[] values();

    @Override
    final String describe() {
        return "weight " + type + shape;
    }

    @Override
    public String toString() {
        return "Weight" + shape + " " + type + (isOpen() ? "" : " (closed)") + " on " + backend().name();
    }
}
