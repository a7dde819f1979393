package org.attn4j.api.spi;

import org.attn4j.api.Backend;
import org.attn4j.api.DType;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;

/**
 * The bookkeeping every backend's tensor shares: shape, dtype, the owning scope and the closed state. A backend
 * subclasses it, holds its data, and frees it in {@link #release()}.
 */
public abstract class AbstractTensor implements Tensor {
    private final Shape shape;
    private final DType dtype;
    private volatile AbstractScope owner;
    private volatile boolean open = true;

    /**
     * @param owner the scope that frees this tensor; the tensor registers itself there
     * @param shape the dimensions
     * @param dtype the element type
     */
    protected AbstractTensor(AbstractScope owner, Shape shape, DType dtype) {
        this.shape = shape;
        this.dtype = dtype;
        this.owner = owner;
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
    public final Backend backend() {
        return owner.backend();
    }

    @Override
    public final boolean isOpen() {
        return open;
    }

    /**
     * @param op the op name for the message
     * @throws IllegalStateException if the tensor has been freed
     */
    public final void checkOpen(String op) {
        if (!open) {
            throw new IllegalStateException(op + ": tensor " + dtype + shape + " is closed (its scope was closed);"
                    + " keep it in a scope that outlives its use");
        }
    }

    final AbstractScope owner() {
        return owner;
    }

    final void moveTo(AbstractScope newOwner) {
        owner = newOwner;
    }

    final void markReleased() {
        if (open) {
            open = false;
            release();
        }
    }

    /** Frees the tensor's data. Called once, by the owning scope's {@code close()}. */
    protected abstract void release();

    @Override
    public String toString() {
        return "Tensor" + shape + " " + dtype + (open ? "" : " (closed)") + " on " + backend().name();
    }
}
