package org.attn4j.backend.ejml;

import java.util.Arrays;

/**
 * The fused F64 attention kernel, FlashAttention-2 style, for one (problem, query block) at a time:
 * <pre>
 *   for each key block (skipping blocks wholly above the causal diagonal):
 *     S   = scale · Q_blk · K_blkᵀ + additive, -∞ where masked             [cols × rows], transposed
 *     m'  = max(m, colmax S);  P = e^(S - m');  c = e^(m - m')
 *     l   = l·c + colsum P;    Oᵀ = Oᵀ·c + V_blkᵀ · dropout(P)
 *   O = O / l · 1/(1-p), or 0 for a row whose logits were all -∞
 * </pre>
 * Everything is laid out transposed, query rows last, so that every inner loop — scores, running max and sum,
 * rescale, {@code P·V} — runs over the (up to {@link #QUERY_BLOCK}) contiguous query rows with the multiply-add
 * shape the JIT vectorises; the max is elementwise, not a reduction. Scores, statistics and accumulators are
 * double. One instance is the scratch space of one thread: {@code O(block · (d_k + d_v + KEY_BLOCK))} doubles.
 */
final class FlashAttentionF64 {
    static final int QUERY_BLOCK = 128;
    static final int KEY_BLOCK = 64;

    private final AttentionPlan plan;
    private final double[] q;
    private final double[] k;
    private final double[] v;
    private final double[] out;
    private final double[] additive;
    private final double[][] queriesT;
    private final double[][] scoresT;
    private final double[][] outT;
    private final double[] rowMax;
    private final double[] blockMax;
    private final double[] rowSum;
    private final double[] correction;
    private final int[] maskRows;
    private final int[] additiveRows;

    FlashAttentionF64(AttentionPlan plan, double[] q, double[] k, double[] v, double[] out) {
        this.plan = plan;
        this.q = q;
        this.k = k;
        this.v = v;
        this.out = out;
        this.additive = (double[]) plan.additive;
        this.queriesT = new double[plan.keyDim][QUERY_BLOCK];
        this.scoresT = new double[KEY_BLOCK][QUERY_BLOCK];
        this.outT = new double[plan.valueDim][QUERY_BLOCK];
        this.rowMax = new double[QUERY_BLOCK];
        this.blockMax = new double[QUERY_BLOCK];
        this.rowSum = new double[QUERY_BLOCK];
        this.correction = new double[QUERY_BLOCK];
        this.maskRows = new int[QUERY_BLOCK];
        this.additiveRows = new int[QUERY_BLOCK];
    }

    /**
     * Computes output rows {@code [rowStart, min(rowStart + QUERY_BLOCK, Lq))} of one problem.
     *
     * @param problem the (batch × head) index
     * @param rowStart the first query row, a multiple of {@link #QUERY_BLOCK}
     */
    void block(int problem, int rowStart) {
        int rows = Math.min(QUERY_BLOCK, plan.queries - rowStart);
        start(problem, rowStart, rows);
        int keyEnd = plan.keyLimit(rowStart + rows);
        for (int keyStart = 0; keyStart < keyEnd; keyStart += KEY_BLOCK) {
            int cols = Math.min(KEY_BLOCK, keyEnd - keyStart);
            scores(problem, keyStart, rows, cols);
            mask(rowStart, keyStart, rows, cols);
            softmaxStep(rows, cols);
            if (plan.dropoutP > 0) {
                dropout(problem, rowStart, keyStart, rows, cols);
            }
            accumulate(problem, keyStart, rows, cols);
        }
        finish(problem, rowStart, rows);
    }

    /** Loads {@code scale · Qᵀ}, resets the statistics and the accumulator, and locates the mask rows. */
    private void start(int problem, int rowStart, int rows) {
        int dk = plan.keyDim;
        double scale = plan.scale;
        int base = (problem * plan.queries + rowStart) * dk;
        for (int r = 0; r < rows; r++) {
            for (int d = 0; d < dk; d++) {
                queriesT[d][r] = q[base + r * dk + d] * scale;
            }
        }
        Arrays.fill(rowMax, 0, rows, Double.NEGATIVE_INFINITY);
        Arrays.fill(rowSum, 0, rows, 0.0);
        for (double[] o : outT) {
            Arrays.fill(o, 0, rows, 0.0);
        }
        for (int r = 0; r < rows; r++) {
            if (plan.mask != null) {
                maskRows[r] = plan.maskOffset(problem, rowStart + r);
            }
            if (additive != null) {
                additiveRows[r] = plan.additiveOffset(problem, rowStart + r);
            }
        }
    }

    /** {@code scoresT[j][r] = Σ_d k[key j][d] · queriesT[d][r]}, four keys at a time to reuse each query vector. */
    private void scores(int problem, int keyStart, int rows, int cols) {
        int dk = plan.keyDim;
        int kBase = (problem * plan.keys + keyStart) * dk;
        int j = 0;
        for (; j + 4 <= cols; j += 4) {
            double[] s0 = scoresT[j];
            double[] s1 = scoresT[j + 1];
            double[] s2 = scoresT[j + 2];
            double[] s3 = scoresT[j + 3];
            Arrays.fill(s0, 0, rows, 0.0);
            Arrays.fill(s1, 0, rows, 0.0);
            Arrays.fill(s2, 0, rows, 0.0);
            Arrays.fill(s3, 0, rows, 0.0);
            int k0 = kBase + j * dk;
            for (int d = 0; d < dk; d++) {
                double b0 = k[k0 + d];
                double b1 = k[k0 + dk + d];
                double b2 = k[k0 + 2 * dk + d];
                double b3 = k[k0 + 3 * dk + d];
                double[] qd = queriesT[d];
                for (int r = 0; r < rows; r++) {
                    double a = qd[r];
                    s0[r] += b0 * a;
                    s1[r] += b1 * a;
                    s2[r] += b2 * a;
                    s3[r] += b3 * a;
                }
            }
        }
        for (; j < cols; j++) {
            double[] s = scoresT[j];
            Arrays.fill(s, 0, rows, 0.0);
            int kj = kBase + j * dk;
            for (int d = 0; d < dk; d++) {
                double b = k[kj + d];
                double[] qd = queriesT[d];
                for (int r = 0; r < rows; r++) {
                    s[r] += b * qd[r];
                }
            }
        }
    }

    /** Adds the additive mask and sets masked and causally hidden logits to -∞. */
    private void mask(int rowStart, int keyStart, int rows, int cols) {
        if (additive != null) {
            int step = plan.additiveColumnStride();
            for (int j = 0; j < cols; j++) {
                double[] s = scoresT[j];
                int column = (keyStart + j) * step;
                for (int r = 0; r < rows; r++) {
                    s[r] += additive[additiveRows[r] + column];
                }
            }
        }
        if (plan.mask != null) {
            int step = plan.maskColumnStride();
            for (int j = 0; j < cols; j++) {
                double[] s = scoresT[j];
                int column = (keyStart + j) * step;
                for (int r = 0; r < rows; r++) {
                    if (!plan.mask[maskRows[r] + column]) {
                        s[r] = Double.NEGATIVE_INFINITY;
                    }
                }
            }
        }
        if (plan.causal) {
            for (int j = 0; j < cols; j++) {
                int hidden = Math.min(rows, keyStart + j - rowStart);
                if (hidden > 0) {
                    Arrays.fill(scoresT[j], 0, hidden, Double.NEGATIVE_INFINITY);
                }
            }
        }
    }

    /**
     * The online-softmax step: new running max per row, {@code P = e^(S - max)} in place, the running sum and the
     * accumulator rescaled by {@code e^(old max - new max)}. A row that has seen only -∞ so far keeps a zero
     * sum; a NaN anywhere in a row makes its max, sum and output NaN.
     */
    private void softmaxStep(int rows, int cols) {
        System.arraycopy(rowMax, 0, blockMax, 0, rows);
        for (int j = 0; j < cols; j++) {
            double[] s = scoresT[j];
            for (int r = 0; r < rows; r++) {
                blockMax[r] = Math.max(blockMax[r], s[r]);
            }
        }
        for (int r = 0; r < rows; r++) {
            double max = blockMax[r];
            double shift = max == Double.NEGATIVE_INFINITY ? 0.0 : max;
            correction[r] = Math.exp(rowMax[r] - shift);
            rowMax[r] = max;
            blockMax[r] = shift;
            rowSum[r] *= correction[r];
        }
        for (int j = 0; j < cols; j++) {
            double[] s = scoresT[j];
            for (int r = 0; r < rows; r++) {
                s[r] = Math.exp(s[r] - blockMax[r]);
            }
            for (int r = 0; r < rows; r++) {
                rowSum[r] += s[r];
            }
        }
        for (double[] o : outT) {
            for (int r = 0; r < rows; r++) {
                o[r] *= correction[r];
            }
        }
    }

    private void dropout(int problem, int rowStart, int keyStart, int rows, int cols) {
        for (int j = 0; j < cols; j++) {
            double[] s = scoresT[j];
            for (int r = 0; r < rows; r++) {
                if (!plan.keeps(problem, rowStart + r, keyStart + j)) {
                    s[r] = 0.0;
                }
            }
        }
    }

    /** {@code outT[e][r] += Σ_j v[key j][e] · scoresT[j][r]}, four value columns at a time. */
    private void accumulate(int problem, int keyStart, int rows, int cols) {
        int dv = plan.valueDim;
        int vBase = (problem * plan.keys + keyStart) * dv;
        int e = 0;
        for (; e + 4 <= dv; e += 4) {
            double[] o0 = outT[e];
            double[] o1 = outT[e + 1];
            double[] o2 = outT[e + 2];
            double[] o3 = outT[e + 3];
            for (int j = 0; j < cols; j++) {
                int vj = vBase + j * dv + e;
                double b0 = v[vj];
                double b1 = v[vj + 1];
                double b2 = v[vj + 2];
                double b3 = v[vj + 3];
                double[] p = scoresT[j];
                for (int r = 0; r < rows; r++) {
                    double w = p[r];
                    o0[r] += b0 * w;
                    o1[r] += b1 * w;
                    o2[r] += b2 * w;
                    o3[r] += b3 * w;
                }
            }
        }
        for (; e < dv; e++) {
            double[] o = outT[e];
            for (int j = 0; j < cols; j++) {
                double b = v[vBase + j * dv + e];
                double[] p = scoresT[j];
                for (int r = 0; r < rows; r++) {
                    o[r] += b * p[r];
                }
            }
        }
    }

    /** {@code out[row r] = outT[·][r] / l[r] · 1/(1-p)}, or zeros for a row that saw only -∞. */
    private void finish(int problem, int rowStart, int rows) {
        int dv = plan.valueDim;
        for (int r = 0; r < rows; r++) {
            double l = rowSum[r];
            correction[r] = l == 0.0 ? 0.0 : (plan.survivorScale / l);
        }
        int base = (problem * plan.queries + rowStart) * dv;
        for (int e = 0; e < dv; e++) {
            double[] o = outT[e];
            for (int r = 0; r < rows; r++) {
                out[base + r * dv + e] = o[r] * correction[r];
            }
        }
    }
}
