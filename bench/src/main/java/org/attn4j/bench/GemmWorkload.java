package org.attn4j.bench;

/**
 * {@code count} single-precision matrix products {@code [m, k]·[k, n]}, or, when {@code attentionShaped}, the
 * pair of products attention is made of, once per head: {@code s = q·kᵀ} ({@code [m, k]·[k, n]}, {@code m = n =
 * L}, {@code k = d}) then {@code o = s·v} ({@code [m, n]·[n, k]}).
 *
 * <p>Counted operations: {@code 2·m·n·k} per product, so {@code 2·count·m·n·k} for plain products and
 * {@code 4·count·m·n·k} for attention-shaped pairs, which equals the attention count {@code 4·B·H·L·L·d} with
 * {@code count = B·H}.
 *
 * @param count how many products (or pairs) one call computes
 * @param m rows of the left operand
 * @param n columns of the right operand
 * @param k the shared (inner) dimension
 * @param attentionShaped whether each of the {@code count} items is the attention pair described above
 */
public record GemmWorkload(int count, int m, int n, int k, boolean attentionShaped) implements Workload {

    /** Rejects dimensions below 1. */
    public GemmWorkload {
        Workloads.requirePositive("GemmWorkload", count, m, n, k);
    }

    /**
     * @param n the size
     * @return one {@code [n, n]·[n, n]} product
     */
    public static GemmWorkload square(int n) {
        return new GemmWorkload(1, n, n, n, false);
    }

    /**
     * @param m rows of the left operand
     * @param n columns of the right operand
     * @param k the inner dimension
     * @return one {@code [m, k]·[k, n]} product
     */
    public static GemmWorkload product(int m, int n, int k) {
        return new GemmWorkload(1, m, n, k, false);
    }

    /**
     * @param heads the number of heads {@code H} (batch 1)
     * @param length {@code L}
     * @param headDim {@code d}
     * @return the products of attention without the softmax: per head {@code [L, d]·[d, L]} then
     *     {@code [L, L]·[L, d]}
     */
    public static GemmWorkload attentionShaped(int heads, int length, int headDim) {
        return new GemmWorkload(heads, length, length, headDim, true);
    }

    /** @return {@code 2·count·m·n·k}, doubled for attention-shaped pairs */
    @Override
    public double flops() {
        double one = 2.0 * m * n * (double) k;
        return count * one * (attentionShaped ? 2 : 1);
    }

    @Override
    public String label() {
        if (attentionShaped) {
            return count + "×([" + m + "×" + k + "]·[" + k + "×" + n + "] + [" + m + "×" + n + "]·[" + n + "×" + k
                    + "])";
        }
        return (count == 1 ? "" : count + "×") + m + "×" + k + "·" + k + "×" + n;
    }
}
