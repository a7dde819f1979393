package org.attn4j.backend.ejml;

import java.util.Arrays;

/**
 * The logit soft-cap, masks, causal hiding and dropout of one query block of a fused attention kernel, applied to one key at a
 * time: to the column of transposed logits (or weights) {@code s[at + r]} of query rows {@code rowStart + r},
 * {@code r < rows}. It locates each row's mask entries once per block. One instance belongs to one kernel.
 */
final class BlockMasks {
    private final AttentionPlan plan;
    private final int[] maskRows;
    private final int[] additiveRows;
    private int problem;
    private int rowStart;
    private int rows;

    /**
     * @param plan the call
     * @param blockRows the most query rows of a block
     */
    BlockMasks(AttentionPlan plan, int blockRows) {
        this.plan = plan;
        this.maskRows = new int[blockRows];
        this.additiveRows = new int[blockRows];
    }

    /**
     * Moves to a query block.
     *
     * @param problem the (batch × head) index
     * @param rowStart the block's first query row
     * @param rows how many query rows it has
     */
    void start(int problem, int rowStart, int rows) {
        this.problem = problem;
        this.rowStart = rowStart;
        this.rows = rows;
        for (int r = 0; r < rows; r++) {
            if (plan.mask != null) {
                maskRows[r] = plan.maskOffset(problem, rowStart + r);
            }
            if (plan.additive != null) {
                additiveRows[r] = plan.additiveOffset(problem, rowStart + r);
            }
        }
    }

    /**
     * @param keyStart the first key of a key block
     * @param cols how many keys it has
     * @return whether any mask or the causal diagonal touches that block of this query block
     */
    boolean touch(int keyStart, int cols) {
        return plan.softcap > 0 || plan.additive != null || plan.mask != null || plan.window > 0
                || plan.causal && keyStart + cols - 1 > rowStart + plan.visible.shift();
    }

    /**
     * Soft-caps key {@code key}'s logits if asked (they are {@code additiveScale ·} the attention logits, so the cap
     * scales with them), adds {@code additiveScale ·} the additive mask and sets the masked and causally hidden ones
     * to -∞.
     */
    void apply(float[] s, int at, int key, float additiveScale) {
        if (plan.softcap > 0) {
            softcap(s, at, rows, plan.softcap * additiveScale);
        }
        if (plan.additive != null) {
            float[] additive = (float[]) plan.additive;
            int column = key * plan.additiveColumnStride();
            for (int r = 0; r < rows; r++) {
                s[at + r] += additive[additiveRows[r] + column] * additiveScale;
            }
        }
        if (plan.mask != null) {
            int column = key * plan.maskColumnStride();
            for (int r = 0; r < rows; r++) {
                if (!plan.mask[maskRows[r] + column]) {
                    s[at + r] = Float.NEGATIVE_INFINITY;
                }
            }
        }
        if (plan.causal) {
            Arrays.fill(s, at, at + hiddenBefore(key), Float.NEGATIVE_INFINITY);
            Arrays.fill(s, at + hiddenFrom(key), at + rows, Float.NEGATIVE_INFINITY);
        }
    }

    /** {@link #apply(float[], int, int, float)} in double, with the additive mask as it is. */
    void apply(double[] s, int at, int key) {
        if (plan.softcap > 0) {
            double cap = plan.softcap;
            for (int r = 0; r < rows; r++) {
                s[at + r] = cap * Math.tanh(s[at + r] / cap);
            }
        }
        if (plan.additive != null) {
            double[] additive = (double[]) plan.additive;
            int column = key * plan.additiveColumnStride();
            for (int r = 0; r < rows; r++) {
                s[at + r] += additive[additiveRows[r] + column];
            }
        }
        if (plan.mask != null) {
            int column = key * plan.maskColumnStride();
            for (int r = 0; r < rows; r++) {
                if (!plan.mask[maskRows[r] + column]) {
                    s[at + r] = Double.NEGATIVE_INFINITY;
                }
            }
        }
        if (plan.causal) {
            Arrays.fill(s, at, at + hiddenBefore(key), Double.NEGATIVE_INFINITY);
            Arrays.fill(s, at + hiddenFrom(key), at + rows, Double.NEGATIVE_INFINITY);
        }
    }

    /**
     * @param s logits
     * @param at the first one
     * @param n how many
     * @param cap the soft-cap {@code c}: each becomes {@code c · tanh(x / c)}, in double, rounded once
     */
    static void softcap(float[] s, int at, int n, double cap) {
        for (int r = at; r < at + n; r++) {
            s[r] = (float) (cap * Math.tanh(s[r] / cap));
        }
    }

    /** Zeroes the weights of key {@code key} that dropout removes. */
    void drop(float[] s, int at, int key) {
        for (int r = 0; r < rows; r++) {
            if (!plan.keeps(problem, rowStart + r, key)) {
                s[at + r] = 0f;
            }
        }
    }

    /** {@link #drop(float[], int, int)} in double. */
    void drop(double[] s, int at, int key) {
        for (int r = 0; r < rows; r++) {
            if (!plan.keeps(problem, rowStart + r, key)) {
                s[at + r] = 0.0;
            }
        }
    }

    /** @return how many first rows of the block sit before {@code key} on the causal diagonal ({@code key > i'}) */
    private int hiddenBefore(int key) {
        return Math.max(0, Math.min(rows, key - plan.visible.shift() - rowStart));
    }

    /** @return the first row of the block whose window has passed {@code key} ({@code key <= i' - window}) */
    private int hiddenFrom(int key) {
        if (plan.window == 0) {
            return rows;
        }
        return Math.max(hiddenBefore(key), Math.min(rows, key - plan.visible.shift() + plan.window - rowStart));
    }
}
