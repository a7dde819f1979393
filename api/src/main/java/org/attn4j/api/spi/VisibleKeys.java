package org.attn4j.api.spi;

import org.attn4j.api.AttentionOptions;
import org.attn4j.api.CausalAlignment;
import org.attn4j.api.Mask;
import org.attn4j.api.Shape;

/**
 * Which keys each query of an attention call may see through causality, the causal alignment, a sliding window
 * and the key length of {@link AttentionOptions}, before the boolean and additive masks: query {@code i} sees the
 * keys {@code [first(i), end(i))}. Written once so that every backend hides the same keys.
 */
public final class VisibleKeys {
    private final boolean causal;
    private final int shift;
    private final int window;
    private final int length;

    /**
     * @param options the call's options
     * @param queries {@code Lq}
     * @param keys {@code Lk}
     */
    public VisibleKeys(AttentionOptions options, int queries, int keys) {
        this.causal = options.causal();
        this.length = options.keysFor(keys);
        this.shift = options.causalAlignment() == CausalAlignment.BOTTOM_RIGHT ? length - queries : 0;
        this.window = options.window();
    }

    /**
     * @param options the call's options
     * @param shape the call's dimensions
     * @return whether the call uses grouped queries, a window, a key length or a bottom-right diagonal that
     *     differs from the top-left one: what a kernel written for plain causal attention does not handle
     */
    public static boolean beyondTopLeftCausal(AttentionOptions options, ShapeChecks.AttentionShape shape) {
        return shape.groupSize() > 1 || options.window() > 0 || options.keyLength() > 0
                || options.causal() && options.causalAlignment() == CausalAlignment.BOTTOM_RIGHT
                && shape.queries() != shape.keys();
    }

    /**
     * The same call's options without the decoding options where plain ones say the same: a key length equal to
     * {@code Lk} dropped, a bottom-right diagonal made top-left when {@code Lq = Lk}, and causality dropped when
     * every query sees every key (one query at the end of the keys, without a window). A kernel written for plain
     * attention can then take more decoding calls.
     *
     * @param options the call's options
     * @param shape the call's dimensions
     * @return equivalent options, possibly {@code options} itself
     */
    public static AttentionOptions simplified(AttentionOptions options, ShapeChecks.AttentionShape shape) {
        AttentionOptions o = options.keyLength() == shape.keys() ? options.withKeyLength(0) : options;
        if (o.causal() && o.causalAlignment() == CausalAlignment.BOTTOM_RIGHT && o.keyLength() == 0) {
            if (shape.queries() == shape.keys()) {
                o = o.withCausalAlignment(CausalAlignment.TOP_LEFT);
            } else if (shape.queries() == 1 && o.window() == 0) {
                o = o.withCausal(false).withCausalAlignment(CausalAlignment.TOP_LEFT);
            }
        }
        return o;
    }

    /**
     * @param row a query index
     * @return the first key it sees: {@code max(0, i' - window + 1)} with a window, else 0
     */
    public int first(int row) {
        return window > 0 ? Math.max(0, row + shift - window + 1) : 0;
    }

    /**
     * @param row a query index
     * @return one past the last key it sees: {@code min(n, i' + 1)} if causal (at least 0), else {@code n}
     */
    public int end(int row) {
        return causal ? (int) Math.max(0, Math.min(length, (long) row + shift + 1)) : length;
    }

    /** @return {@code i' - i}: 0 top-left, {@code n - Lq} bottom-right */
    public int shift() {
        return shift;
    }

    /** @return the number of keys that exist, {@code n} */
    public int length() {
        return length;
    }

    /**
     * @param queries {@code Lq}
     * @param keys {@code Lk}
     * @return the {@code [Lq, Lk]} mask of visible keys, or null when every query sees every key
     */
    public Mask mask(int queries, int keys) {
        boolean[] allowed = new boolean[queries * keys];
        boolean hides = false;
        for (int i = 0; i < queries; i++) {
            int from = first(i);
            int to = end(i);
            hides |= from > 0 || to < keys;
            for (int j = from; j < to; j++) {
                allowed[i * keys + j] = true;
            }
        }
        return hides ? Mask.of(Shape.of(queries, keys), allowed) : null;
    }
}
