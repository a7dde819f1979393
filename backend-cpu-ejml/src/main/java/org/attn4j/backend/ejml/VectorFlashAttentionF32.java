package org.attn4j.backend.ejml;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The fused F32 attention kernel on explicit SIMD vectors ({@code jdk.incubator.vector}), the same
 * FlashAttention-2 step as {@link FlashAttentionF32} for one (problem, query block) at a time, in base 2:
 * <pre>
 *   for each key block (skipping blocks wholly above the causal diagonal):
 *     S   = log₂e · (scale · Q_blk · K_blkᵀ + additive), -∞ where masked    [keys × rows], transposed
 *     m'  = max(m, colmax S);  P = 2^(S - m');  c = 2^(m - m')
 *     l   = l·c + colsum P;    Oᵀ = Oᵀ·c + V_blkᵀ · dropout(P)
 *   O = O / l · 1/(1-p), or 0 for a row whose logits were all -∞
 * </pre>
 * which is the softmax of the natural-base logits, since {@code 2^(log₂e · x) = e^x}. A query block is four
 * vectors of query rows ({@link #QUERY_BLOCK} = 4 · lanes, 64 with AVX-512); a block shorter than that is padded
 * with zero queries whose results are dropped. Both products run as register tiles of four (AVX-512) or two
 * (256-bit vectors) keys or value columns by four row vectors, whose accumulators stay in registers for the
 * whole inner loop. Statistics and accumulators are float. Only {@link Simd} (once it has found the
 * {@code jdk.incubator.vector} module) and callers of a kernel that {@link Simd#enabled()} chose may load this
 * class: without that module it cannot be linked.
 *
 * <p>Vectors stay inside the method that makes them, written out in full, except for {@link #exp2}: where C2
 * does not inline a helper that takes or returns a vector, it allocates an object for every vector passed, and
 * it does not inline helpers called from the large tile loops.
 */
final class VectorFlashAttentionF32 {
    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();
    static final int QUERY_BLOCK = 4 * LANES;
    static final int KEY_BLOCK = 64;
    /**
     * Whether the register tiles are four keys (or value columns) wide, which needs the 32 vector registers of
     * AVX-512; with 256-bit vectors (16 registers on AVX2) they are two wide, so that nothing spills.
     */
    private static final boolean WIDE_TILES = LANES >= 16;

    private static final float LOG2E = 1.4426950408889634f;
    /** {@code 1.5·2²³ + 127}: adding it rounds to an integer {@code n} and leaves {@code n + 127} in the low bits. */
    private static final float ROUND_BIASED = 12583039f;
    private static final float LOWEST = -127f;
    private static final float C1 = 0.6931472f;
    private static final float C2 = 0.2402265f;
    private static final float C3 = 0.05550327f;
    private static final float C4 = 0.009618057f;
    private static final float C5 = 0.0013400428f;
    private static final float C6 = 0.00015461445f;

    private final AttentionPlan plan;
    private final float[] q;
    private final float[] k;
    private final float[] v;
    private final float[] out;
    private final float[] queriesT;
    private final float[] scoresT;
    private final float[] outT;
    private final float[] rowMax;
    private final float[] blockMax;
    private final float[] rowSum;
    private final BlockMasks masks;

    /** @return the size of the vectors this kernel computes on, {@code FloatVector.SPECIES_PREFERRED}, in bits */
    static int vectorBits() {
        return SPECIES.vectorBitSize();
    }

    VectorFlashAttentionF32(AttentionPlan plan, float[] q, float[] k, float[] v, float[] out) {
        this.plan = plan;
        this.q = q;
        this.k = k;
        this.v = v;
        this.out = out;
        this.queriesT = new float[plan.keyDim * QUERY_BLOCK];
        this.scoresT = new float[KEY_BLOCK * QUERY_BLOCK];
        this.outT = new float[plan.valueDim * QUERY_BLOCK];
        this.rowMax = new float[QUERY_BLOCK];
        this.blockMax = new float[QUERY_BLOCK];
        this.rowSum = new float[QUERY_BLOCK];
        this.masks = new BlockMasks(plan, QUERY_BLOCK);
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
            boolean masked = masks.touch(keyStart, cols);
            System.arraycopy(rowMax, 0, blockMax, 0, QUERY_BLOCK);
            scores((plan.kvProblem(problem) * plan.keys + keyStart) * plan.keyDim, cols, !masked);
            if (masked) {
                for (int j = 0; j < cols; j++) {
                    masks.apply(scoresT, j * QUERY_BLOCK, keyStart + j, LOG2E);
                }
                maxOver(cols);
            }
            softmaxStep(cols);
            if (plan.dropoutP > 0) {
                for (int j = 0; j < cols; j++) {
                    masks.drop(scoresT, j * QUERY_BLOCK, keyStart + j);
                }
            }
            accumulate((plan.kvProblem(problem) * plan.keys + keyStart) * plan.valueDim, cols);
        }
        finish(problem, rowStart, rows);
    }

    /**
     * Loads {@code scale · log₂e · Qᵀ} with zero padding rows, resets the statistics and accumulator, finds the
     * mask rows.
     */
    private void start(int problem, int rowStart, int rows) {
        int dk = plan.keyDim;
        float scale = (float) (plan.scale * LOG2E);
        int base = (problem * plan.queries + rowStart) * dk;
        if (rows < QUERY_BLOCK) {
            Arrays.fill(queriesT, 0f);
        }
        for (int r = 0; r < rows; r++) {
            for (int d = 0; d < dk; d++) {
                queriesT[d * QUERY_BLOCK + r] = q[base + r * dk + d] * scale;
            }
        }
        Arrays.fill(rowMax, Float.NEGATIVE_INFINITY);
        Arrays.fill(rowSum, 0f);
        Arrays.fill(outT, 0f);
        masks.start(problem, rowStart, rows);
    }

    /**
     * {@code scoresT[j][r] = Σ_d k[key j][d] · queriesT[d][r]}: four (AVX-512) or two keys by four row vectors per
     * pass; with
     * {@code trackMax}, also {@code blockMax[r] = max(blockMax[r], max_j scoresT[j][r])} from the registers.
     */
    private void scores(int kBase, int cols, boolean trackMax) {
        int j = WIDE_TILES ? scoresByFour(kBase, cols, trackMax) : scoresByTwo(kBase, cols, trackMax);
        int dk = plan.keyDim;
        float[] queries = queriesT;
        float[] keys = k;
        for (; j < cols; j++) {
            FloatVector a0 = FloatVector.zero(SPECIES);
            FloatVector a1 = a0;
            FloatVector a2 = a0;
            FloatVector a3 = a0;
            int kj = kBase + j * dk;
            for (int d = 0; d < dk; d++) {
                int at = d * QUERY_BLOCK;
                FloatVector b = FloatVector.broadcast(SPECIES, keys[kj + d]);
                a0 = FloatVector.fromArray(SPECIES, queries, at).fma(b, a0);
                a1 = FloatVector.fromArray(SPECIES, queries, at + LANES).fma(b, a1);
                a2 = FloatVector.fromArray(SPECIES, queries, at + 2 * LANES).fma(b, a2);
                a3 = FloatVector.fromArray(SPECIES, queries, at + 3 * LANES).fma(b, a3);
            }
            a0.intoArray(scoresT, j * QUERY_BLOCK);
            a1.intoArray(scoresT, j * QUERY_BLOCK + LANES);
            a2.intoArray(scoresT, j * QUERY_BLOCK + 2 * LANES);
            a3.intoArray(scoresT, j * QUERY_BLOCK + 3 * LANES);
            if (trackMax) {
                FloatVector.fromArray(SPECIES, blockMax, 0).max(a0).intoArray(blockMax, 0);
                FloatVector.fromArray(SPECIES, blockMax, LANES).max(a1).intoArray(blockMax, LANES);
                FloatVector.fromArray(SPECIES, blockMax, 2 * LANES).max(a2).intoArray(blockMax, 2 * LANES);
                FloatVector.fromArray(SPECIES, blockMax, 3 * LANES).max(a3).intoArray(blockMax, 3 * LANES);
            }
        }
    }

    /** {@link #scores} for keys {@code [0, 4·⌊cols/4⌋)}, four keys by four row vectors per pass; returns the end. */
    private int scoresByFour(int kBase, int cols, boolean trackMax) {
        int dk = plan.keyDim;
        float[] queries = queriesT;
        float[] keys = k;
        int j = 0;
        for (; j + 4 <= cols; j += 4) {
            FloatVector a00 = FloatVector.zero(SPECIES);
            FloatVector a01 = a00;
            FloatVector a02 = a00;
            FloatVector a03 = a00;
            FloatVector a10 = a00;
            FloatVector a11 = a00;
            FloatVector a12 = a00;
            FloatVector a13 = a00;
            FloatVector a20 = a00;
            FloatVector a21 = a00;
            FloatVector a22 = a00;
            FloatVector a23 = a00;
            FloatVector a30 = a00;
            FloatVector a31 = a00;
            FloatVector a32 = a00;
            FloatVector a33 = a00;
            int k0 = kBase + j * dk;
            int k1 = k0 + dk;
            int k2 = k1 + dk;
            int k3 = k2 + dk;
            for (int d = 0; d < dk; d++) {
                int at = d * QUERY_BLOCK;
                FloatVector q0 = FloatVector.fromArray(SPECIES, queries, at);
                FloatVector q1 = FloatVector.fromArray(SPECIES, queries, at + LANES);
                FloatVector q2 = FloatVector.fromArray(SPECIES, queries, at + 2 * LANES);
                FloatVector q3 = FloatVector.fromArray(SPECIES, queries, at + 3 * LANES);
                FloatVector b = FloatVector.broadcast(SPECIES, keys[k0 + d]);
                a00 = q0.fma(b, a00);
                a01 = q1.fma(b, a01);
                a02 = q2.fma(b, a02);
                a03 = q3.fma(b, a03);
                b = FloatVector.broadcast(SPECIES, keys[k1 + d]);
                a10 = q0.fma(b, a10);
                a11 = q1.fma(b, a11);
                a12 = q2.fma(b, a12);
                a13 = q3.fma(b, a13);
                b = FloatVector.broadcast(SPECIES, keys[k2 + d]);
                a20 = q0.fma(b, a20);
                a21 = q1.fma(b, a21);
                a22 = q2.fma(b, a22);
                a23 = q3.fma(b, a23);
                b = FloatVector.broadcast(SPECIES, keys[k3 + d]);
                a30 = q0.fma(b, a30);
                a31 = q1.fma(b, a31);
                a32 = q2.fma(b, a32);
                a33 = q3.fma(b, a33);
            }
            a00.intoArray(scoresT, j * QUERY_BLOCK);
            a01.intoArray(scoresT, j * QUERY_BLOCK + LANES);
            a02.intoArray(scoresT, j * QUERY_BLOCK + 2 * LANES);
            a03.intoArray(scoresT, j * QUERY_BLOCK + 3 * LANES);
            a10.intoArray(scoresT, (j + 1) * QUERY_BLOCK);
            a11.intoArray(scoresT, (j + 1) * QUERY_BLOCK + LANES);
            a12.intoArray(scoresT, (j + 1) * QUERY_BLOCK + 2 * LANES);
            a13.intoArray(scoresT, (j + 1) * QUERY_BLOCK + 3 * LANES);
            a20.intoArray(scoresT, (j + 2) * QUERY_BLOCK);
            a21.intoArray(scoresT, (j + 2) * QUERY_BLOCK + LANES);
            a22.intoArray(scoresT, (j + 2) * QUERY_BLOCK + 2 * LANES);
            a23.intoArray(scoresT, (j + 2) * QUERY_BLOCK + 3 * LANES);
            a30.intoArray(scoresT, (j + 3) * QUERY_BLOCK);
            a31.intoArray(scoresT, (j + 3) * QUERY_BLOCK + LANES);
            a32.intoArray(scoresT, (j + 3) * QUERY_BLOCK + 2 * LANES);
            a33.intoArray(scoresT, (j + 3) * QUERY_BLOCK + 3 * LANES);
            if (trackMax) {
                FloatVector.fromArray(SPECIES, blockMax, 0).max(a00.max(a10).max(a20.max(a30))).intoArray(blockMax, 0);
                FloatVector.fromArray(SPECIES, blockMax, LANES).max(a01.max(a11).max(a21.max(a31))).intoArray(blockMax, LANES);
                FloatVector.fromArray(SPECIES, blockMax, 2 * LANES).max(a02.max(a12).max(a22.max(a32))).intoArray(blockMax, 2 * LANES);
                FloatVector.fromArray(SPECIES, blockMax, 3 * LANES).max(a03.max(a13).max(a23.max(a33))).intoArray(blockMax, 3 * LANES);
            }
        }
        return j;
    }

    /** {@link #scores} for keys {@code [0, 2·⌊cols/2⌋)}, two keys by four row vectors per pass; returns the end. */
    private int scoresByTwo(int kBase, int cols, boolean trackMax) {
        int dk = plan.keyDim;
        float[] queries = queriesT;
        float[] keys = k;
        int j = 0;
        for (; j + 2 <= cols; j += 2) {
            FloatVector a00 = FloatVector.zero(SPECIES);
            FloatVector a01 = a00;
            FloatVector a02 = a00;
            FloatVector a03 = a00;
            FloatVector a10 = a00;
            FloatVector a11 = a00;
            FloatVector a12 = a00;
            FloatVector a13 = a00;
            int k0 = kBase + j * dk;
            int k1 = k0 + dk;
            for (int d = 0; d < dk; d++) {
                int at = d * QUERY_BLOCK;
                FloatVector q0 = FloatVector.fromArray(SPECIES, queries, at);
                FloatVector q1 = FloatVector.fromArray(SPECIES, queries, at + LANES);
                FloatVector q2 = FloatVector.fromArray(SPECIES, queries, at + 2 * LANES);
                FloatVector q3 = FloatVector.fromArray(SPECIES, queries, at + 3 * LANES);
                FloatVector b = FloatVector.broadcast(SPECIES, keys[k0 + d]);
                a00 = q0.fma(b, a00);
                a01 = q1.fma(b, a01);
                a02 = q2.fma(b, a02);
                a03 = q3.fma(b, a03);
                b = FloatVector.broadcast(SPECIES, keys[k1 + d]);
                a10 = q0.fma(b, a10);
                a11 = q1.fma(b, a11);
                a12 = q2.fma(b, a12);
                a13 = q3.fma(b, a13);
            }
            a00.intoArray(scoresT, j * QUERY_BLOCK);
            a01.intoArray(scoresT, j * QUERY_BLOCK + LANES);
            a02.intoArray(scoresT, j * QUERY_BLOCK + 2 * LANES);
            a03.intoArray(scoresT, j * QUERY_BLOCK + 3 * LANES);
            a10.intoArray(scoresT, (j + 1) * QUERY_BLOCK);
            a11.intoArray(scoresT, (j + 1) * QUERY_BLOCK + LANES);
            a12.intoArray(scoresT, (j + 1) * QUERY_BLOCK + 2 * LANES);
            a13.intoArray(scoresT, (j + 1) * QUERY_BLOCK + 3 * LANES);
            if (trackMax) {
                FloatVector.fromArray(SPECIES, blockMax, 0).max(a00.max(a10)).intoArray(blockMax, 0);
                FloatVector.fromArray(SPECIES, blockMax, LANES).max(a01.max(a11)).intoArray(blockMax, LANES);
                FloatVector.fromArray(SPECIES, blockMax, 2 * LANES).max(a02.max(a12)).intoArray(blockMax, 2 * LANES);
                FloatVector.fromArray(SPECIES, blockMax, 3 * LANES).max(a03.max(a13)).intoArray(blockMax, 3 * LANES);
            }
        }
        return j;
    }

    /** {@code blockMax[r] = max(blockMax[r], max_j scoresT[j][r])}, after masking. */
    private void maxOver(int cols) {
        for (int r = 0; r < QUERY_BLOCK; r += LANES) {
            FloatVector max = FloatVector.fromArray(SPECIES, blockMax, r);
            for (int j = 0; j < cols; j++) {
                max = max.max(FloatVector.fromArray(SPECIES, scoresT, j * QUERY_BLOCK + r));
            }
            max.intoArray(blockMax, r);
        }
    }


    /**
     * The online-softmax step in base 2, one row vector at a time, with the block's new running max already in
     * {@code blockMax}: {@code P = 2^(S - max)} in place, the running sum, and the accumulator rescaled by
     * {@code 2^(old max - new max)}, skipped when no lane's max moved. A row that has seen only -∞ keeps a zero sum (its shift is the lowest float
     * rather than -∞); a NaN in a row makes its max, sum and output NaN.
     */
    private void softmaxStep(int cols) {
        FloatVector lowestShift = FloatVector.broadcast(SPECIES, -Float.MAX_VALUE);
        for (int r = 0; r < QUERY_BLOCK; r += LANES) {
            FloatVector old = FloatVector.fromArray(SPECIES, rowMax, r);
            FloatVector max = FloatVector.fromArray(SPECIES, blockMax, r);
            max.intoArray(rowMax, r);
            FloatVector shift = max.max(lowestShift);
            FloatVector sum = FloatVector.zero(SPECIES);
            for (int j = 0; j < cols; j++) {
                int at = j * QUERY_BLOCK + r;
                FloatVector p = exp2(FloatVector.fromArray(SPECIES, scoresT, at).sub(shift));
                p.intoArray(scoresT, at);
                sum = sum.add(p);
            }
            FloatVector correction = exp2(old.sub(shift));
            FloatVector.fromArray(SPECIES, rowSum, r).fma(correction, sum).intoArray(rowSum, r);
            if (!correction.eq(1f).allTrue()) {
                for (int e = 0; e < plan.valueDim; e++) {
                    int at = e * QUERY_BLOCK + r;
                    FloatVector.fromArray(SPECIES, outT, at).mul(correction).intoArray(outT, at);
                }
            }
        }
    }

    /**
     * {@code 2^x} for {@code x ≤ 0}, lane by lane: {@code n = round(max(x, -127))} by adding {@link #ROUND_BIASED},
     * {@code f = x - n} in {@code [-½, ½]}, {@code 2^f} by a degree-6 polynomial (Chebyshev fit, relative error
     * 3e-9 before rounding), times {@code 2ⁿ} made from the low bits of the rounded sum. Arguments below -126.5,
     * including -∞, give 0; NaN gives NaN.
     */
    static FloatVector exp2(FloatVector x) {
        FloatVector a = x.max(FloatVector.broadcast(SPECIES, LOWEST));
        FloatVector rounded = a.add(FloatVector.broadcast(SPECIES, ROUND_BIASED));
        FloatVector f = a.sub(rounded.sub(FloatVector.broadcast(SPECIES, ROUND_BIASED)));
        FloatVector p = f.fma(FloatVector.broadcast(SPECIES, C6), FloatVector.broadcast(SPECIES, C5));
        p = p.fma(f, FloatVector.broadcast(SPECIES, C4));
        p = p.fma(f, FloatVector.broadcast(SPECIES, C3));
        p = p.fma(f, FloatVector.broadcast(SPECIES, C2));
        p = p.fma(f, FloatVector.broadcast(SPECIES, C1));
        p = p.fma(f, FloatVector.broadcast(SPECIES, 1f));
        return p.mul(rounded.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats());
    }


    /**
     * {@code outT[e][r] += Σ_j v[key j][e] · scoresT[j][r]}: four (AVX-512) or two value columns by four row
     * vectors per pass.
     */
    private void accumulate(int vBase, int cols) {
        int e = WIDE_TILES ? accumulateByFour(vBase, cols) : accumulateByTwo(vBase, cols);
        int dv = plan.valueDim;
        float[] weights = scoresT;
        float[] values = v;
        for (; e < dv; e++) {
            int o = e * QUERY_BLOCK;
            FloatVector a0 = FloatVector.fromArray(SPECIES, outT, o);
            FloatVector a1 = FloatVector.fromArray(SPECIES, outT, o + LANES);
            FloatVector a2 = FloatVector.fromArray(SPECIES, outT, o + 2 * LANES);
            FloatVector a3 = FloatVector.fromArray(SPECIES, outT, o + 3 * LANES);
            for (int j = 0; j < cols; j++) {
                int at = j * QUERY_BLOCK;
                FloatVector b = FloatVector.broadcast(SPECIES, values[vBase + j * dv + e]);
                a0 = FloatVector.fromArray(SPECIES, weights, at).fma(b, a0);
                a1 = FloatVector.fromArray(SPECIES, weights, at + LANES).fma(b, a1);
                a2 = FloatVector.fromArray(SPECIES, weights, at + 2 * LANES).fma(b, a2);
                a3 = FloatVector.fromArray(SPECIES, weights, at + 3 * LANES).fma(b, a3);
            }
            a0.intoArray(outT, o);
            a1.intoArray(outT, o + LANES);
            a2.intoArray(outT, o + 2 * LANES);
            a3.intoArray(outT, o + 3 * LANES);
        }
    }

    /** {@link #accumulate} for value columns {@code [0, 4·⌊d_v/4⌋)}, four at a time; returns the end. */
    private int accumulateByFour(int vBase, int cols) {
        int dv = plan.valueDim;
        float[] weights = scoresT;
        float[] values = v;
        int e = 0;
        for (; e + 4 <= dv; e += 4) {
            int o0 = e * QUERY_BLOCK;
            int o1 = o0 + QUERY_BLOCK;
            int o2 = o1 + QUERY_BLOCK;
            int o3 = o2 + QUERY_BLOCK;
            FloatVector a00 = FloatVector.fromArray(SPECIES, outT, o0);
            FloatVector a01 = FloatVector.fromArray(SPECIES, outT, o0 + LANES);
            FloatVector a02 = FloatVector.fromArray(SPECIES, outT, o0 + 2 * LANES);
            FloatVector a03 = FloatVector.fromArray(SPECIES, outT, o0 + 3 * LANES);
            FloatVector a10 = FloatVector.fromArray(SPECIES, outT, o1);
            FloatVector a11 = FloatVector.fromArray(SPECIES, outT, o1 + LANES);
            FloatVector a12 = FloatVector.fromArray(SPECIES, outT, o1 + 2 * LANES);
            FloatVector a13 = FloatVector.fromArray(SPECIES, outT, o1 + 3 * LANES);
            FloatVector a20 = FloatVector.fromArray(SPECIES, outT, o2);
            FloatVector a21 = FloatVector.fromArray(SPECIES, outT, o2 + LANES);
            FloatVector a22 = FloatVector.fromArray(SPECIES, outT, o2 + 2 * LANES);
            FloatVector a23 = FloatVector.fromArray(SPECIES, outT, o2 + 3 * LANES);
            FloatVector a30 = FloatVector.fromArray(SPECIES, outT, o3);
            FloatVector a31 = FloatVector.fromArray(SPECIES, outT, o3 + LANES);
            FloatVector a32 = FloatVector.fromArray(SPECIES, outT, o3 + 2 * LANES);
            FloatVector a33 = FloatVector.fromArray(SPECIES, outT, o3 + 3 * LANES);
            for (int j = 0; j < cols; j++) {
                int at = j * QUERY_BLOCK;
                FloatVector p0 = FloatVector.fromArray(SPECIES, weights, at);
                FloatVector p1 = FloatVector.fromArray(SPECIES, weights, at + LANES);
                FloatVector p2 = FloatVector.fromArray(SPECIES, weights, at + 2 * LANES);
                FloatVector p3 = FloatVector.fromArray(SPECIES, weights, at + 3 * LANES);
                int vj = vBase + j * dv + e;
                FloatVector b = FloatVector.broadcast(SPECIES, values[vj]);
                a00 = p0.fma(b, a00);
                a01 = p1.fma(b, a01);
                a02 = p2.fma(b, a02);
                a03 = p3.fma(b, a03);
                b = FloatVector.broadcast(SPECIES, values[vj + 1]);
                a10 = p0.fma(b, a10);
                a11 = p1.fma(b, a11);
                a12 = p2.fma(b, a12);
                a13 = p3.fma(b, a13);
                b = FloatVector.broadcast(SPECIES, values[vj + 2]);
                a20 = p0.fma(b, a20);
                a21 = p1.fma(b, a21);
                a22 = p2.fma(b, a22);
                a23 = p3.fma(b, a23);
                b = FloatVector.broadcast(SPECIES, values[vj + 3]);
                a30 = p0.fma(b, a30);
                a31 = p1.fma(b, a31);
                a32 = p2.fma(b, a32);
                a33 = p3.fma(b, a33);
            }
            a00.intoArray(outT, o0);
            a01.intoArray(outT, o0 + LANES);
            a02.intoArray(outT, o0 + 2 * LANES);
            a03.intoArray(outT, o0 + 3 * LANES);
            a10.intoArray(outT, o1);
            a11.intoArray(outT, o1 + LANES);
            a12.intoArray(outT, o1 + 2 * LANES);
            a13.intoArray(outT, o1 + 3 * LANES);
            a20.intoArray(outT, o2);
            a21.intoArray(outT, o2 + LANES);
            a22.intoArray(outT, o2 + 2 * LANES);
            a23.intoArray(outT, o2 + 3 * LANES);
            a30.intoArray(outT, o3);
            a31.intoArray(outT, o3 + LANES);
            a32.intoArray(outT, o3 + 2 * LANES);
            a33.intoArray(outT, o3 + 3 * LANES);
        }
        return e;
    }

    /** {@link #accumulate} for value columns {@code [0, 2·⌊d_v/2⌋)}, two at a time; returns the end. */
    private int accumulateByTwo(int vBase, int cols) {
        int dv = plan.valueDim;
        float[] weights = scoresT;
        float[] values = v;
        int e = 0;
        for (; e + 2 <= dv; e += 2) {
            int o0 = e * QUERY_BLOCK;
            int o1 = o0 + QUERY_BLOCK;
            FloatVector a00 = FloatVector.fromArray(SPECIES, outT, o0);
            FloatVector a01 = FloatVector.fromArray(SPECIES, outT, o0 + LANES);
            FloatVector a02 = FloatVector.fromArray(SPECIES, outT, o0 + 2 * LANES);
            FloatVector a03 = FloatVector.fromArray(SPECIES, outT, o0 + 3 * LANES);
            FloatVector a10 = FloatVector.fromArray(SPECIES, outT, o1);
            FloatVector a11 = FloatVector.fromArray(SPECIES, outT, o1 + LANES);
            FloatVector a12 = FloatVector.fromArray(SPECIES, outT, o1 + 2 * LANES);
            FloatVector a13 = FloatVector.fromArray(SPECIES, outT, o1 + 3 * LANES);
            for (int j = 0; j < cols; j++) {
                int at = j * QUERY_BLOCK;
                FloatVector p0 = FloatVector.fromArray(SPECIES, weights, at);
                FloatVector p1 = FloatVector.fromArray(SPECIES, weights, at + LANES);
                FloatVector p2 = FloatVector.fromArray(SPECIES, weights, at + 2 * LANES);
                FloatVector p3 = FloatVector.fromArray(SPECIES, weights, at + 3 * LANES);
                int vj = vBase + j * dv + e;
                FloatVector b = FloatVector.broadcast(SPECIES, values[vj]);
                a00 = p0.fma(b, a00);
                a01 = p1.fma(b, a01);
                a02 = p2.fma(b, a02);
                a03 = p3.fma(b, a03);
                b = FloatVector.broadcast(SPECIES, values[vj + 1]);
                a10 = p0.fma(b, a10);
                a11 = p1.fma(b, a11);
                a12 = p2.fma(b, a12);
                a13 = p3.fma(b, a13);
            }
            a00.intoArray(outT, o0);
            a01.intoArray(outT, o0 + LANES);
            a02.intoArray(outT, o0 + 2 * LANES);
            a03.intoArray(outT, o0 + 3 * LANES);
            a10.intoArray(outT, o1);
            a11.intoArray(outT, o1 + LANES);
            a12.intoArray(outT, o1 + 2 * LANES);
            a13.intoArray(outT, o1 + 3 * LANES);
        }
        return e;
    }

    /** {@code out[row r] = outT[·][r] / l[r] · 1/(1-p)}, or zeros for a row that saw only -∞. */
    private void finish(int problem, int rowStart, int rows) {
        int dv = plan.valueDim;
        int base = (problem * plan.queries + rowStart) * dv;
        for (int r = 0; r < rows; r++) {
            float l = rowSum[r];
            float factor = l == 0f ? 0f : (float) (plan.survivorScale / l);
            int o = base + r * dv;
            for (int e = 0; e < dv; e++) {
                out[o + e] = outT[e * QUERY_BLOCK + r] * factor;
            }
        }
    }
}
