package org.attn4j.api.spi;

import java.util.ArrayList;
import java.util.List;

/**
 * The tensors the ops running on the current thread are reading and writing. While an op runs, each operand it
 * takes through {@link AbstractScope#operand} and each tensor it creates is pinned: closing its scope on another thread marks it closed at once
 * but frees its memory only when the outermost op on this thread returns. So a scope closed by mistake while
 * another thread computes with its tensors never frees memory a kernel is still reading; the op either finishes
 * on the data it pinned or throws {@link IllegalStateException}.
 */
final class InFlight {
    private static final ThreadLocal<InFlight> CURRENT = ThreadLocal.withInitial(InFlight::new);

    private ArrayList<Owned> pinned = new ArrayList<>();
    /** The list of the previous outermost op, emptied, which the next one fills: no list is made per op. */
    private ArrayList<Owned> spare = new ArrayList<>();
    private int depth;
    private String op;

    private InFlight() {
    }

    /**
     * Opens an op on this thread; ops nest (an op may call others) and share the outermost op's pins.
     *
     * @param name the op's name
     */
    static void enter(String name) {
        InFlight frame = CURRENT.get();
        if (frame.depth++ == 0) {
            frame.op = name;
        }
    }

    /** @return the name of the outermost op running on this thread, or null outside ops */
    static String op() {
        InFlight frame = CURRENT.get();
        return frame.depth == 0 ? null : frame.op;
    }

    /** Closes the op opened by the matching {@link #enter()}; the outermost one lets go of every pin. */
    static void exit() {
        InFlight frame = CURRENT.get();
        if (--frame.depth > 0) {
            return;
        }
        ArrayList<Owned> toUnpin = frame.pinned;
        frame.pinned = frame.spare != null ? frame.spare : new ArrayList<>();
        frame.spare = null;
        RuntimeException failure = null;
        for (int i = 0; i < toUnpin.size(); i++) {
            try {
                toUnpin.get(i).unpin();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        toUnpin.clear();
        frame.spare = toUnpin;
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Pins an operand for the running op, if one is open on this thread; otherwise only checks it is open.
     *
     * @param op the op name for the message
     * @param tensor the operand
     * @throws IllegalStateException if the tensor is closed
     */
    static void pin(String op, Owned tensor) {
        InFlight frame = CURRENT.get();
        if (frame.depth == 0) {
            tensor.checkOpen(op);
            return;
        }
        if (!tensor.pin()) {
            tensor.checkOpen(op);
        }
        frame.pinned.add(tensor);
    }

    /**
     * Pins a tensor just created, if an op is open on this thread, so that its memory outlives the op's writes.
     *
     * @param tensor a new, open tensor
     */
    static void pinCreated(Owned tensor) {
        InFlight frame = CURRENT.get();
        if (frame.depth > 0 && tensor.pin()) {
            frame.pinned.add(tensor);
        }
    }
}
