package org.attn4j.bench;

/**
 * Scaled dot-product attention on {@code q [B, H, Lq, d]}, {@code k [B, H, Lk, d]}, {@code v [B, H, Lk, d]}.
 *
 * <p>Counted operations: {@code 4·B·H·Lq·Lk·d} (two products of {@code 2·Lq·Lk·d} each: {@code q·kᵀ} and
 * {@code weights·v}; softmax, scaling and masking are not counted). Causal attention counts half of that,
 * {@code 2·B·H·Lq·Lk·d}: the work above the diagonal is not needed, and counting only the half that is keeps
 * the GFLOP/s of causal and non-causal runs comparable (the exact lower triangle with its diagonal would be
 * {@code 2·B·H·L·(L+1)·d} for {@code Lq = Lk = L}, within {@code 1/L} of the half).
 *
 * @param batch {@code B}
 * @param heads {@code H}
 * @param queryLength {@code Lq}
 * @param keyLength {@code Lk}
 * @param headDim {@code d}
 * @param causal whether key {@code j} may only be attended by query {@code i >= j}
 */
public record AttentionWorkload(int batch, int heads, int queryLength, int keyLength, int headDim, boolean causal)
        implements Workload {

    /** Rejects dimensions below 1. */
    public AttentionWorkload {
        Workloads.requirePositive("AttentionWorkload", batch, heads, queryLength, keyLength, headDim);
    }

    /**
     * @param heads {@code H}
     * @param length {@code Lq = Lk}
     * @param headDim {@code d}
     * @param causal causal or not
     * @return self-attention with one batch item
     */
    public static AttentionWorkload selfAttention(int heads, int length, int headDim, boolean causal) {
        return new AttentionWorkload(1, heads, length, length, headDim, causal);
    }

    /** @return {@code 4·B·H·Lq·Lk·d}, halved when causal */
    @Override
    public double flops() {
        double full = 4.0 * batch * heads * queryLength * (double) keyLength * headDim;
        return causal ? full / 2 : full;
    }

    @Override
    public String label() {
        String length = queryLength == keyLength ? "L=" + queryLength : "Lq=" + queryLength + " Lk=" + keyLength;
        return "B=" + batch + " H=" + heads + " " + length + " d=" + headDim + (causal ? " causal" : "");
    }
}
