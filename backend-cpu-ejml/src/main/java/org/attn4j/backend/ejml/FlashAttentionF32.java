package org.attn4j.backend.ejml;

/**
 * The fused F32 attention kernel, FlashAttention-2 style, for one (problem, query block) at a time:
 * <pre>
 *   for each key block (skipping blocks wholly above the causal diagonal):
 *     S   = Q_blk · K_blkᵀ · scale + additive, -∞ where masked             [rows × cols]
 *     m'  = max(m, rowmax S);  P = e^(S - m');  c = e^(m - m')
 *     l   = l·c + rowsum P;    O = O·c + dropout(P) · V_blk
 *   O = O / l · 1/(1-p), or 0 for a row whose logits were all -∞
 * </pre>
 * Scores, statistics and accumulators are float; inner loops run over contiguous key or value indices with the
 * multiply-add shape the JIT vectorises. One instance is scratch space for one thread: {@code O(block · d)}.
 */
final class FlashAttentionF32 {
    static final int QUERY_BLOCK = 64;
    static final int KEY_BLOCK = 128;

    private final AttentionPlan plan;
    private final float[] q;
    private final float[] k;
    private final float[] v;
    private final float[] out;
    private final float[] additive;
    private final float[][] keysT;
    private final float[][] scores;
    private final float[][] acc;
    private final float[] rowMax;
    private final float[] rowSum;

    FlashAttentionF32(AttentionPlan plan, float[] q, float[] k, float[] v, float[] out) {
        this.plan = plan;
        this.q = q;
        this.k = k;
        this.v = v;
        this.out = out;
        this.additive = (float[]) plan.additive;
        this.keysT = new float[plan.keyDim][KEY_BLOCK];
        this.scores = new float[QUERY_BLOCK][KEY_BLOCK];
        this.acc = new float[QUERY_BLOCK][plan.valueDim];
        this.rowMax = new float[QUERY_BLOCK];
        this.rowSum = new float[QUERY_BLOCK];
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
            rowMax[r] = Float.NEGATIVE_INFINITY;
            rowSum[r] = 0f;
            java.util.Arrays.fill(acc[r], 0f);
        }
        for (int keyStart = 0; keyStart < keyEnd; keyStart += KEY_BLOCK) {
            int cols = Math.min(KEY_BLOCK, keyEnd - keyStart);
            transposeKeys(problem, keyStart, cols);
            scores(problem, rowStart, rows, cols);
            for (int r = 0; r < rows; r++) {
                int row = rowStart + r;
                float[] s = scores[r];
                adjust(problem, row, keyStart, cols, s);
                update(problem, row, keyStart, cols, s, r);
            }
        }
        int dv = plan.valueDim;
        for (int r = 0; r < rows; r++) {
            float l = rowSum[r];
            float inv = l == 0f ? 0f : (float) (plan.survivorScale / l);
            float[] a = acc[r];
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
            float[] s0 = scores[r];
            float[] s1 = scores[r + 1];
            float[] s2 = scores[r + 2];
            float[] s3 = scores[r + 3];
            java.util.Arrays.fill(s0, 0, cols, 0f);
            java.util.Arrays.fill(s1, 0, cols, 0f);
            java.util.Arrays.fill(s2, 0, cols, 0f);
            java.util.Arrays.fill(s3, 0, cols, 0f);
            int q0 = qBase + r * dk;
            for (int d = 0; d < dk; d++) {
                float a0 = q[q0 + d];
                float a1 = q[q0 + dk + d];
                float a2 = q[q0 + 2 * dk + d];
                float a3 = q[q0 + 3 * dk + d];
                float[] kt = keysT[d];
                for (int j = 0; j < cols; j++) {
                    float kv = kt[j];
                    s0[j] += a0 * kv;
                    s1[j] += a1 * kv;
                    s2[j] += a2 * kv;
                    s3[j] += a3 * kv;
                }
            }
        }
        for (; r < rows; r++) {
            float[] s = scores[r];
            java.util.Arrays.fill(s, 0, cols, 0f);
            int qr = qBase + r * dk;
            for (int d = 0; d < dk; d++) {
                float a = q[qr + d];
                float[] kt = keysT[d];
                for (int j = 0; j < cols; j++) {
                    s[j] += a * kt[j];
                }
            }
        }
    }

    /** Scale, add the additive mask, and set masked and causally hidden logits to -∞. */
    private void adjust(int problem, int row, int keyStart, int cols, float[] s) {
        float scale = (float) plan.scale;
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
                    s[j] = Float.NEGATIVE_INFINITY;
                }
            }
        }
        if (plan.causal) {
            for (int j = Math.max(0, row + 1 - keyStart); j < cols; j++) {
                s[j] = Float.NEGATIVE_INFINITY;
            }
        }
    }

    /** The online-softmax step of one row: new max, rescale of the running sum and accumulator, then P·V. */
    private void update(int problem, int row, int keyStart, int cols, float[] s, int r) {
        float previous = rowMax[r];
        float max = previous;
        for (int j = 0; j < cols; j++) {
            max = Math.max(max, s[j]);
        }
        if (max == Float.NEGATIVE_INFINITY) {
            return;
        }
        float sum = 0f;
        for (int j = 0; j < cols; j++) {
            float e = (float) Math.exp(s[j] - max);
            s[j] = e;
            sum += e;
        }
        float correction = (float) Math.exp(previous - max);
        rowMax[r] = max;
        rowSum[r] = rowSum[r] * correction + sum;
        float[] a = acc[r];
        int dv = plan.valueDim;
        if (correction != 1f) {
            for (int e = 0; e < dv; e++) {
                a[e] *= correction;
            }
        }
        if (plan.dropoutP > 0) {
            for (int j = 0; j < cols; j++) {
                if (!plan.keeps(problem, row, keyStart + j)) {
                    s[j] = 0f;
                }
            }
        }
        int vBase = (problem * plan.keys + keyStart) * dv;
        for (int j = 0; j < cols; j++) {
            float p = s[j];
            if (p != 0f) {
                int vj = vBase + j * dv;
                for (int e = 0; e < dv; e++) {
                    a[e] += p * v[vj + e];
                }
            }
        }
    }
}
