package org.attn4j.api.spi;

import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * The bookkeeping every backend's tensor shares: shape, dtype, the owning scope and the closed state. A backend
 * subclasses it, holds its data, and frees it in {@link #release()}.
 *
 * <p>Closing is immediate, freeing may wait: a tensor closed while an op or a copy on another thread is reading
 * it (it is <em>pinned</em>, see {@link #reading}) reads as closed at once, and {@link #release()} runs when the
 * last reader lets go. So misuse across threads throws {@link IllegalStateException} and never frees memory a
 * kernel still reads.
 */
public abstract class AbstractTensor extends Owned implements Tensor {
    private final Shape shape;
    private final DType dtype;

    /**
     * @param owner the scope that frees this tensor; the tensor registers itself there
     * @param shape the dimensions
     * @param dtype the element type
     */
    protected AbstractTensor(AbstractScope owner, Shape shape, DType dtype) {
        super(owner);
        this.shape = shape;
        this.dtype = dtype;
        owner.register(this);
    }

    @Override
    public final Shape shape() {
        return shape;
    }

    @Override
    public final DType dtype() {
        return dtype;
    }

    @Override
    final String describe() {
        return "tensor " + dtype + shape;
    }

    @Override
    public String toString() {
        return "Tensor" + shape + " " + dtype + (isOpen() ? "" : " (closed)") + " on " + backend().name();
    }
}
