package org.attn4j.backend.ejml;

import java.util.Arrays;

/**
 * The fused F32 attention kernel, FlashAttention-2 style, for one (problem, query block) at a time:
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
 * float. One instance is the scratch space of one thread: {@code O(block · (d_k + d_v + KEY_BLOCK))} floats.
 */
final class FlashAttentionF32 {
    static final int QUERY_BLOCK = 128;
    static final int KEY_BLOCK = 64;

    private final AttentionPlan plan;
    private final float[] q;
    private final float[] k;
    private final float[] v;
    private final float[] out;
    private final float[][] queriesT;
    private final float[][] scoresT;
    private final float[][] outT;
    private final float[] rowMax;
    private final float[] blockMax;
    private final float[] rowSum;
    private final float[] correction;
    private final float[] shift;
    private final float[] exponents;
    private final BlockMasks masks;

    FlashAttentionF32(AttentionPlan plan, float[] q, float[] k, float[] v, float[] out) {
        this.plan = plan;
        this.q = q;
        this.k = k;
        this.v = v;
        this.out = out;
        Scratch s = SCRATCH.get();
        if (s == null || s.queriesT.length != plan.keyDim || s.outT.length != plan.valueDim) {
            s = new Scratch(plan.keyDim, plan.valueDim);
            SCRATCH.set(s);
        }
        this.queriesT = s.queriesT;
        this.scoresT = s.scoresT;
        this.outT = s.outT;
        this.rowMax = s.rowMax;
        this.blockMax = s.blockMax;
        this.rowSum = s.rowSum;
        this.correction = s.correction;
        this.shift = s.shift;
        this.exponents = s.exponents;
        this.masks = new BlockMasks(plan, QUERY_BLOCK);
    }

    /** The scratch arrays of a kernel for one key and value width, kept per thread from call to call. */
    private static final class Scratch {
        final float[][] queriesT;
        final float[][] scoresT = new float[KEY_BLOCK][QUERY_BLOCK];
        final float[][] outT;
        final float[] rowMax = new float[QUERY_BLOCK];
        final float[] blockMax = new float[QUERY_BLOCK];
        final float[] rowSum = new float[QUERY_BLOCK];
        final float[] correction = new float[QUERY_BLOCK];
        final float[] shift = new float[QUERY_BLOCK];
        final float[] exponents = new float[QUERY_BLOCK];

        Scratch(int keyDim, int valueDim) {
            this.queriesT = new float[keyDim][QUERY_BLOCK];
            this.outT = new float[valueDim][QUERY_BLOCK];
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = new ThreadLocal<>();

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
            for (int j = 0; j < cols; j++) {
                masks.apply(scoresT[j], 0, keyStart + j, 1f);
            }
            softmaxStep(rows, cols);
            if (plan.dropoutP > 0) {
                for (int j = 0; j < cols; j++) {
                    masks.drop(scoresT[j], 0, keyStart + j);
                }
            }
            accumulate(problem, keyStart, rows, cols);
        }
        finish(problem, rowStart, rows);
    }

    /** Loads {@code scale · Qᵀ}, resets the statistics and the accumulator, and locates the mask rows. */
    private void start(int problem, int rowStart, int rows) {
        int dk = plan.keyDim;
        float scale = (float) plan.scale;
        int base = (problem * plan.queries + rowStart) * dk;
        for (int r = 0; r < rows; r++) {
            for (int d = 0; d < dk; d++) {
                queriesT[d][r] = q[base + r * dk + d] * scale;
            }
        }
        Arrays.fill(rowMax, 0, rows, Float.NEGATIVE_INFINITY);
        Arrays.fill(rowSum, 0, rows, 0f);
        for (float[] o : outT) {
            Arrays.fill(o, 0, rows, 0f);
        }
        masks.start(problem, rowStart, rows);
    }

    /** {@code scoresT[j][r] = Σ_d k[key j][d] · queriesT[d][r]} for any number of rows, four keys per pass. */
    private void scores(int problem, int keyStart, int rows, int cols) {
        if (rows == QUERY_BLOCK) {
            scoresFullBlock(k, (plan.kvProblem(problem) * plan.keys + keyStart) * plan.keyDim, plan.keyDim, queriesT, scoresT, cols);
            return;
        }
        int dk = plan.keyDim;
        int kBase = (plan.kvProblem(problem) * plan.keys + keyStart) * dk;
        int j = 0;
        for (; j + 4 <= cols; j += 4) {
            float[] s0 = scoresT[j];
            float[] s1 = scoresT[j + 1];
            float[] s2 = scoresT[j + 2];
            float[] s3 = scoresT[j + 3];
            Arrays.fill(s0, 0, rows, 0f);
            Arrays.fill(s1, 0, rows, 0f);
            Arrays.fill(s2, 0, rows, 0f);
            Arrays.fill(s3, 0, rows, 0f);
            int k0 = kBase + j * dk;
            for (int d = 0; d < dk; d++) {
                float b0 = k[k0 + d];
                float b1 = k[k0 + dk + d];
                float b2 = k[k0 + 2 * dk + d];
                float b3 = k[k0 + 3 * dk + d];
                float[] qd = queriesT[d];
                for (int r = 0; r < rows; r++) {
                    float a = qd[r];
                    s0[r] += b0 * a;
                    s1[r] += b1 * a;
                    s2[r] += b2 * a;
                    s3[r] += b3 * a;
                }
            }
        }
        for (; j < cols; j++) {
            float[] s = scoresT[j];
            Arrays.fill(s, 0, rows, 0f);
            int kj = kBase + j * dk;
            for (int d = 0; d < dk; d++) {
                axpy(k[kj + d], queriesT[d], s, rows);
            }
        }
    }

    /**
     * {@code scoresT[j][r] = Σ_d k[key j][d] · queriesT[d][r]}: two keys and four dims per pass, the register
     * tile that C2 still vectorises (eight key scalars, four query vectors, two accumulator rows), but only with
     * a constant trip count and with the arrays as parameters rather than fields: used for full query blocks.
     */
    private static void scoresFullBlock(float[] k, int kBase, int dk, float[][] queriesT, float[][] scoresT,
                                        int cols) {
        int rows = QUERY_BLOCK;
        int j = 0;
        for (; j + 2 <= cols; j += 2) {
            float[] s0 = scoresT[j];
            float[] s1 = scoresT[j + 1];
            Arrays.fill(s0, 0, rows, 0f);
            Arrays.fill(s1, 0, rows, 0f);
            int k0 = kBase + j * dk;
            int k1 = k0 + dk;
            int d = 0;
            for (; d + 4 <= dk; d += 4) {
                float b0 = k[k0 + d];
                float b1 = k[k0 + d + 1];
                float b2 = k[k0 + d + 2];
                float b3 = k[k0 + d + 3];
                float c0 = k[k1 + d];
                float c1 = k[k1 + d + 1];
                float c2 = k[k1 + d + 2];
                float c3 = k[k1 + d + 3];
                float[] q0 = queriesT[d];
                float[] q1 = queriesT[d + 1];
                float[] q2 = queriesT[d + 2];
                float[] q3 = queriesT[d + 3];
                for (int r = 0; r < QUERY_BLOCK; r++) {
                    float a0 = q0[r];
                    float a1 = q1[r];
                    float a2 = q2[r];
                    float a3 = q3[r];
                    s0[r] += b0 * a0 + b1 * a1 + b2 * a2 + b3 * a3;
                    s1[r] += c0 * a0 + c1 * a1 + c2 * a2 + c3 * a3;
                }
            }
            for (; d < dk; d++) {
                axpy(k[k0 + d], queriesT[d], s0, rows);
                axpy(k[k1 + d], queriesT[d], s1, rows);
            }
        }
        if (j < cols) {
            float[] s = scoresT[j];
            Arrays.fill(s, 0, rows, 0f);
            int kj = kBase + j * dk;
            for (int d = 0; d < dk; d++) {
                axpy(k[kj + d], queriesT[d], s, rows);
            }
        }
    }

    /** {@code y[r] += a · x[r]} for {@code r < n}. */
    private static void axpy(float a, float[] x, float[] y, int n) {
        for (int r = 0; r < n; r++) {
            y[r] += a * x[r];
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
            float[] s = scoresT[j];
            for (int r = 0; r < rows; r++) {
                blockMax[r] = Math.max(blockMax[r], s[r]);
            }
        }
        for (int r = 0; r < rows; r++) {
            float max = blockMax[r];
            shift[r] = max == Float.NEGATIVE_INFINITY ? 0f : max;
        }
        FastExp.exp(rowMax, shift, correction, exponents, rows);
        System.arraycopy(blockMax, 0, rowMax, 0, rows);
        for (int r = 0; r < rows; r++) {
            rowSum[r] *= correction[r];
        }
        for (int j = 0; j < cols; j++) {
            float[] s = scoresT[j];
            FastExp.exp(s, shift, s, exponents, rows);
            for (int r = 0; r < rows; r++) {
                rowSum[r] += s[r];
            }
        }
        for (float[] o : outT) {
            for (int r = 0; r < rows; r++) {
                o[r] *= correction[r];
            }
        }
    }


    /** {@code outT[e][r] += Σ_j v[key j][e] · scoresT[j][r]} for any number of rows, four value columns per pass. */
    private void accumulate(int problem, int keyStart, int rows, int cols) {
        if (rows == QUERY_BLOCK) {
            accumulateFullBlock(v, (plan.kvProblem(problem) * plan.keys + keyStart) * plan.valueDim, plan.valueDim, scoresT, outT,
                    cols);
            return;
        }
        int dv = plan.valueDim;
        int vBase = (plan.kvProblem(problem) * plan.keys + keyStart) * dv;
        int e = 0;
        for (; e + 4 <= dv; e += 4) {
            float[] o0 = outT[e];
            float[] o1 = outT[e + 1];
            float[] o2 = outT[e + 2];
            float[] o3 = outT[e + 3];
            for (int j = 0; j < cols; j++) {
                int vj = vBase + j * dv + e;
                float b0 = v[vj];
                float b1 = v[vj + 1];
                float b2 = v[vj + 2];
                float b3 = v[vj + 3];
                float[] p = scoresT[j];
                for (int r = 0; r < rows; r++) {
                    float w = p[r];
                    o0[r] += b0 * w;
                    o1[r] += b1 * w;
                    o2[r] += b2 * w;
                    o3[r] += b3 * w;
                }
            }
        }
        for (; e < dv; e++) {
            for (int j = 0; j < cols; j++) {
                axpy(v[vBase + j * dv + e], scoresT[j], outT[e], rows);
            }
        }
    }

    /**
     * {@code outT[e][r] += Σ_j v[key j][e] · scoresT[j][r]}: two value columns and four keys per pass, the same
     * register tile as {@link #scoresFullBlock}, for full query blocks.
     */
    private static void accumulateFullBlock(float[] v, int vBase, int dv, float[][] scoresT, float[][] outT,
                                            int cols) {
        int rows = QUERY_BLOCK;
        int e = 0;
        for (; e + 2 <= dv; e += 2) {
            float[] o0 = outT[e];
            float[] o1 = outT[e + 1];
            int j = 0;
            for (; j + 4 <= cols; j += 4) {
                int v0 = vBase + j * dv + e;
                int v1 = v0 + dv;
                int v2 = v1 + dv;
                int v3 = v2 + dv;
                float b0 = v[v0];
                float b1 = v[v1];
                float b2 = v[v2];
                float b3 = v[v3];
                float c0 = v[v0 + 1];
                float c1 = v[v1 + 1];
                float c2 = v[v2 + 1];
                float c3 = v[v3 + 1];
                float[] p0 = scoresT[j];
                float[] p1 = scoresT[j + 1];
                float[] p2 = scoresT[j + 2];
                float[] p3 = scoresT[j + 3];
                for (int r = 0; r < QUERY_BLOCK; r++) {
                    float w0 = p0[r];
                    float w1 = p1[r];
                    float w2 = p2[r];
                    float w3 = p3[r];
                    o0[r] += b0 * w0 + b1 * w1 + b2 * w2 + b3 * w3;
                    o1[r] += c0 * w0 + c1 * w1 + c2 * w2 + c3 * w3;
                }
            }
            for (; j < cols; j++) {
                int vj = vBase + j * dv + e;
                axpy(v[vj], scoresT[j], o0, rows);
                axpy(v[vj + 1], scoresT[j], o1, rows);
            }
        }
        if (e < dv) {
            for (int j = 0; j < cols; j++) {
                axpy(v[vBase + j * dv + e], scoresT[j], outT[e], rows);
            }
        }
    }

    /** {@code out[row r] = outT[·][r] / l[r] · 1/(1-p)}, or zeros for a row that saw only -∞. */
    private void finish(int problem, int rowStart, int rows) {
        int dv = plan.valueDim;
        for (int r = 0; r < rows; r++) {
            float l = rowSum[r];
            correction[r] = l == 0f ? 0f : (float) (plan.survivorScale / l);
        }
        int base = (problem * plan.queries + rowStart) * dv;
        for (int e = 0; e < dv; e++) {
            float[] o = outT[e];
            for (int r = 0; r < rows; r++) {
                out[base + r * dv + e] = o[r] * correction[r];
            }
        }
    }
}
