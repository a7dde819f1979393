package org.attn4j.api.spi;

import java.util.function.Supplier;
import org.attn4j.api.Backend;

/**
 * The lifecycle every scope-owned resource shares (tensors and weights): the owning scope, the closed state, and
 * the pins of ops in flight. Closing is immediate, freeing may wait: a resource closed while an op or a copy on
 * another thread is reading it (it is <em>pinned</em>, see {@link #reading}) reads as closed at once, and
 * {@link #release()} runs when the last reader lets go.
 */
abstract class Owned {
    private volatile AbstractScope owner;
    private volatile boolean open = true;
    private int readers;

    Owned(AbstractScope owner) {
        this.owner = owner;
    }

    /** @return the backend of the owning scope */
    public final Backend backend() {
        return owner.backend();
    }

    /** @return false once the owning scope has been closed */
    public final boolean isOpen() {
        return open;
    }

    /**
     * @param op the op name for the message
     * @throws IllegalStateException if the resource has been freed
     */
    public final void checkOpen(String op) {
        if (!open) {
            throw new IllegalStateException(op + ": " + describe() + " is closed (its scope was closed);"
                    + " keep it in a scope that outlives its use");
        }
    }

    /** @return what it is, for messages: for example {@code tensor F32[2, 3]} */
    abstract String describe();

    final AbstractScope owner() {
        return owner;
    }

    final void moveTo(AbstractScope newOwner) {
        owner = newOwner;
    }

    /** @return true if it was open and is now pinned until {@link #unpin()}; false if it is closed */
    final synchronized boolean pin() {
        if (!open) {
            return false;
        }
        readers++;
        return true;
    }

    /** Lets go of one pin, and frees the data if it was closed meanwhile and this was the last pin. */
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
     * Runs a read of the data (a copy out, for example) with it pinned, so that a scope closed on another thread
     * meanwhile cannot free the data under it.
     *
     * @param op the op name for the message
     * @param read reads the data
     * @param <R> the result type
     * @return what {@code read} returned
     * @throws IllegalStateException if it is closed
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
     * Frees the data. Called once: by the owning scope's {@code close()}, or, if an op on another thread was
     * reading it then, when that op returns.
     */
    protected abstract void release();
}
