package org.attn4j.backend.ejml;

/**
 * The fused F64 attention kernel, FlashAttention-2 style, for one (problem, query block) at a time:
 * <pre>
 *   for each key block (skipping blocks wholly above the causal diagonal):
 *     S   = Q_blk · K_blkᵀ · scale + additive, -∞ where masked             [rows × cols]
 *     m'  = max(m, rowmax S);  P = e^(S - m');  c = e^(m - m')
 *     l   = l·c + rowsum P;    O = O·c + dropout(P) · V_blk
 *   O = O / l · 1/(1-p), or 0 for a row whose logits were all -∞
 * </pre>
 * Scores, statistics and accumulators are double; inner loops run over contiguous key or value indices with the
 * multiply-add shape the JIT vectorises. One instance is scratch space for one thread: {@code O(block · d)}.
 */
final class FlashAttentionF64 {
    static final int QUERY_BLOCK = 64;
    static final int KEY_BLOCK = 128;

    private final AttentionPlan plan;
    private final double[] q;
    private final double[] k;
    private final double[] v;
    private final double[] out;
    private final double[] additive;
    private final double[][] keysT;
    private final double[][] scores;
    private final double[][] acc;
    private final double[] rowMax;
    private final double[] rowSum;

    FlashAttentionF64(AttentionPlan plan, double[] q, double[] k, double[] v, double[] out) {
        this.plan = plan;
        this.q = q;
        this.k = k;
        this.v = v;
        this.out = out;
        this.additive = (double[]) plan.additive;
        this.keysT = new double[plan.keyDim][KEY_BLOCK];
        this.scores = new double[QUERY_BLOCK][KEY_BLOCK];
        this.acc = new double[QUERY_BLOCK][plan.valueDim];
        this.rowMax = new double[QUERY_BLOCK];
        this.rowSum = new double[QUERY_BLOCK];
    }

    /**
     * Computes output rows {@code [rowStart, min(rowStart + QUERY_BLOCK, Lq))} of one problem.
     *
     * @param problem the (batch × head) index
     * @param rowStart the first query row, a multiple of {@link #QUERY_BLOCK}
     */
    void block(int problem, int rowStart) {
        int rows = Math.min(QUERY_BLOCK, plan.queries - rowStart);
        int keyEnd = plan.keyLimit(rowStart + rows);
        for (int r = 0; r < rows; r++) {
            rowMax[r] = Double.NEGATIVE_INFINITY;
            rowSum[r] = 0.0;
            java.util.Arrays.fill(acc[r], 0.0);
        }
        for (int keyStart = 0; keyStart < keyEnd; keyStart += KEY_BLOCK) {
            int cols = Math.min(KEY_BLOCK, keyEnd - keyStart);
            transposeKeys(problem, keyStart, cols);
            scores(problem, rowStart, rows, cols);
            for (int r = 0; r < rows; r++) {
                int row = rowStart + r;
                double[] s = scores[r];
                adjust(problem, row, keyStart, cols, s);
                update(problem, row, keyStart, cols, s, r);
            }
        }
        int dv = plan.valueDim;
        for (int r = 0; r < rows; r++) {
            double l = rowSum[r];
            double inv = l == 0.0 ? 0.0 : (plan.survivorScale / l);
            double[] a = acc[r];
            int base = (problem * plan.queries + rowStart + r) * dv;
            for (int e = 0; e < dv; e++) {
                out[base + e] = a[e] * inv;
            }
        }
    }

    private void transposeKeys(int problem, int keyStart, int cols) {
        int dk = plan.keyDim;
        int base = (problem * plan.keys + keyStart) * dk;
        for (int j = 0; j < cols; j++) {
            int kj = base + j * dk;
            for (int d = 0; d < dk; d++) {
                keysT[d][j] = k[kj + d];
            }
        }
    }

    /** {@code scores[r][j] = q[row r] · k[key j]}, four query rows at a time to reuse each loaded key vector. */
    private void scores(int problem, int rowStart, int rows, int cols) {
        int dk = plan.keyDim;
        int qBase = (problem * plan.queries + rowStart) * dk;
        int r = 0;
        for (; r + 4 <= rows; r += 4) {
            double[] s0 = scores[r];
            double[] s1 = scores[r + 1];
            double[] s2 = scores[r + 2];
            double[] s3 = scores[r + 3];
            java.util.Arrays.fill(s0, 0, cols, 0.0);
            java.util.Arrays.fill(s1, 0, cols, 0.0);
            java.util.Arrays.fill(s2, 0, cols, 0.0);
            java.util.Arrays.fill(s3, 0, cols, 0.0);
            int q0 = qBase + r * dk;
            for (int d = 0; d < dk; d++) {
                double a0 = q[q0 + d];
                double a1 = q[q0 + dk + d];
                double a2 = q[q0 + 2 * dk + d];
                double a3 = q[q0 + 3 * dk + d];
                double[] kt = keysT[d];
                for (int j = 0; j < cols; j++) {
                    double kv = kt[j];
                    s0[j] += a0 * kv;
                    s1[j] += a1 * kv;
                    s2[j] += a2 * kv;
                    s3[j] += a3 * kv;
                }
            }
        }
        for (; r < rows; r++) {
            double[] s = scores[r];
            java.util.Arrays.fill(s, 0, cols, 0.0);
            int qr = qBase + r * dk;
            for (int d = 0; d < dk; d++) {
                double a = q[qr + d];
                double[] kt = keysT[d];
                for (int j = 0; j < cols; j++) {
                    s[j] += a * kt[j];
                }
            }
        }
    }

    /** Scale, add the additive mask, and set masked and causally hidden logits to -∞. */
    private void adjust(int problem, int row, int keyStart, int cols, double[] s) {
        double scale = plan.scale;
        for (int j = 0; j < cols; j++) {
            s[j] *= scale;
        }
        if (additive != null) {
            int base = plan.additiveOffset(problem, row) + keyStart * plan.additiveColumnStride();
            int step = plan.additiveColumnStride();
            for (int j = 0; j < cols; j++) {
                s[j] += additive[base + j * step];
            }
        }
        if (plan.mask != null) {
            int base = plan.maskOffset(problem, row) + keyStart * plan.maskColumnStride();
            int step = plan.maskColumnStride();
            for (int j = 0; j < cols; j++) {
                if (!plan.mask[base + j * step]) {
                    s[j] = Double.NEGATIVE_INFINITY;
                }
            }
        }
        if (plan.causal) {
            for (int j = Math.max(0, row + 1 - keyStart); j < cols; j++) {
                s[j] = Double.NEGATIVE_INFINITY;
            }
        }
    }

    /** The online-softmax step of one row: new max, rescale of the running sum and accumulator, then P·V. */
    private void update(int problem, int row, int keyStart, int cols, double[] s, int r) {
        double previous = rowMax[r];
        double max = previous;
        for (int j = 0; j < cols; j++) {
            max = Math.max(max, s[j]);
        }
        if (max == Double.NEGATIVE_INFINITY) {
            return;
        }
        double sum = 0.0;
        for (int j = 0; j < cols; j++) {
            double e = Math.exp(s[j] - max);
            s[j] = e;
            sum += e;
        }
        double correction = Math.exp(previous - max);
        rowMax[r] = max;
        rowSum[r] = rowSum[r] * correction + sum;
        double[] a = acc[r];
        int dv = plan.valueDim;
        if (correction != 1.0) {
            for (int e = 0; e < dv; e++) {
                a[e] *= correction;
            }
        }
        if (plan.dropoutP > 0) {
            for (int j = 0; j < cols; j++) {
                if (!plan.keeps(problem, row, keyStart + j)) {
                    s[j] = 0.0;
                }
            }
        }
        int vBase = (problem * plan.keys + keyStart) * dv;
        for (int j = 0; j < cols; j++) {
            double p = s[j];
            if (p != 0.0) {
                int vj = vBase + j * dv;
                for (int e = 0; e < dv; e++) {
                    a[e] += p * v[vj + e];
                }
            }
        }
    }
}
