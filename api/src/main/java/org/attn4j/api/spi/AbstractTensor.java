package org.attn4j.api.spi;

import java.util.function.Supplier;
import org.attn4j.api.Backend;
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
public abstract class AbstractTensor implements Tensor {
    private final Shape shape;
    private final DType dtype;
    private volatile AbstractScope owner;
    private volatile boolean open = true;
    private int readers;

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

    /** @return true if the tensor was open and is now pinned until {@link #unpin()}; false if it is closed */
    final synchronized boolean pin() {
        if (!open) {
            return false;
        }
        readers++;
        return true;
    }

    /** Lets go of one pin, and frees the data if the tensor was closed meanwhile and this was the last pin. */
    final void unpin() {
        boolean free;
        synchronized (this) {
            readers--;
            free = !open && readers == 0;
        }
        if (free) {
            release();
        }
    }

    final void markReleased() {
        boolean free;
        synchronized (this) {
            if (!open) {
                return;
            }
            open = false;
            free = readers == 0;
        }
        if (free) {
            release();
        }
    }

    /**
     * Runs a read of this tensor's data (a copy out, for example) with the tensor pinned, so that a scope closed
     * on another thread meanwhile cannot free the data under it.
     *
     * @param op the op name for the message
     * @param read reads the data
     * @param <R> the result type
     * @return what {@code read} returned
     * @throws IllegalStateException if the tensor is closed
     */
    protected final <R> R reading(String op, Supplier<R> read) {
        if (!pin()) {
            checkOpen(op);
        }
        try {
            return read.get();
        } finally {
            unpin();
        }
    }

    /**
     * Frees the tensor's data. Called once: by the owning scope's {@code close()}, or, if an op on another thread
     * was reading the tensor then, when that op returns.
     */
    protected abstract void release();

    @Override
    public String toString() {
        return "Tensor" + shape + " " + dtype + (open ? "" : " (closed)") + " on " + backend().name();
    }
}
