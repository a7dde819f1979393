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
 *     Sᵀ  = log₂e · (cap(scale · K_blk · Q_blkᵀ) + additive), -∞ where masked   [keys × rows]
 *     m'  = max(m, colmax Sᵀ);  Pᵀ = 2^(Sᵀ - m');  c = 2^(m - m')
 *     l   = l·c + colsum Pᵀ;    Oᵀ = Oᵀ·diag(c) + V_blkᵀ · dropout(Pᵀ)          [d_v × rows]
 *   O = O / l · 1/(1-p), or 0 for a row whose logits were all -∞
 * </pre>
 * which is the softmax of the natural-base logits, since {@code 2^(log₂e · x) = e^x}. Both products run on the
 * register tile of {@link VectorGemmF32} ({@link VectorGemmF32#MR} × {@link VectorGemmF32#NR}: 6 × 16 on 256-bit
 * vectors, 12 × 32 on 512-bit ones), so every operand is laid out as that kernel's panels: {@link #pack} copies
 * {@code K} into panels of {@code MR} keys and {@code V} into panels of {@code MR} value columns once per call;
 * the scaled query block and the logits are kept in panels of {@code NR} query rows. A query block is
 * {@link #QUERY_BLOCK} rows; a shorter one runs over its rows rounded up to whole panels of {@code NR}, padded
 * with zero queries whose results are dropped. Statistics and
 * accumulators are float. Only {@link Simd} (once it has found the {@code jdk.incubator.vector} module) and callers
 * of a kernel that {@link Simd#enabled()} chose may load this class: without that module it cannot be linked.
 *
 * <p>Written for C2 as {@link VectorGemmF32}'s class comment explains: no vector crosses a method boundary (where C2
 * does not inline a helper that takes or returns a vector, it allocates an object for every vector passed; a helper
 * once compiled on its own is often not inlined any more), the softmax step is a few short passes over arrays, and
 * loop-carried vectors are only arguments, stored from their loop's last step.
 */
final class VectorFlashAttentionF32 {
    private static final VectorSpecies<Float> SPECIES = Vectors.F32;
    private static final int LANES = SPECIES.length();
    private static final int MR = VectorGemmF32.MR;
    private static final int NR = VectorGemmF32.NR;
    /** Query rows per block: three panels of {@code NR}. */
    static final int QUERY_BLOCK = 3 * NR;
    /** Keys per block, a multiple of {@code MR}. */
    static final int KEY_BLOCK = 96;

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

    /**
     * The keys and values of a call as micro-kernel panels, per (batch × kv head): {@code keys} holds panels of
     * {@code MR} keys, key {@code i} of panel {@code s}, dimension {@code d} at {@code s·MR·d_k + d·MR + i};
     * {@code values} holds panels of {@code MR} value columns, column {@code i} of panel {@code t}, key {@code j}
     * at {@code t·paddedKeys·MR + j·MR + i}; both zero beyond the real keys and columns. Only the keys some query
     * row can see are packed ({@link #visibleKeys}): a decoder's preallocated cache is packed up to its key length.
     *
     * @param paddedKeys the visible keys rounded up to a multiple of {@code MR}
     * @param valuePanels {@code ⌈d_v / MR⌉}
     */
    record Packed(float[] keys, float[] values, int paddedKeys, int valuePanels) {
    }

    private final AttentionPlan plan;
    private final float[] q;
    private final Packed packed;
    private final float[] out;
    /** {@code scale · log₂e · Q} of the block: row {@code r}, dimension {@code d} at {@code (r/NR)·d_k·NR + d·NR + r%NR}. */
    private final float[] queries;
    /** Logits, then weights, of the key block: key {@code j}, row {@code r} at {@code (r/NR)·KEY_BLOCK·NR + j·NR + r%NR}. */
    private final float[] scores;
    /** {@code Oᵀ} of the block, {@code [valuePanels·MR][QUERY_BLOCK]}. */
    private final float[] outT;
    private final float[] rowMax;
    private final float[] rowSum;
    /** Per row of the block: the logits' shift {@code max(m', lowest)}, and the rescale of the previous sums. */
    private final float[] shift;
    private final float[] correction;
    private final float[] column;
    private final BlockMasks masks;
    /** The block's rows rounded up to whole panels of {@code NR}: the rows every pass of the block runs over. */
    private int active;

    /**
     * @param plan the call
     * @return whether its keys and values fit the panels of {@link #pack} in Java arrays
     */
    static boolean fits(AttentionPlan plan) {
        long kv = kvProblems(plan);
        long paddedKeys = (visibleKeys(plan) + MR - 1L) / MR * MR;
        long valueColumns = (plan.valueDim + MR - 1L) / MR * MR;
        return kv * paddedKeys * Math.max(plan.keyDim, valueColumns) <= Integer.MAX_VALUE - 8;
    }

    /** @return the keys before the end of the last query row's visible range, the most any row sees up to */
    private static int visibleKeys(AttentionPlan plan) {
        return plan.keyLimit(plan.queries);
    }

    private static int kvProblems(AttentionPlan plan) {
        return plan.problems == 0 ? 0 : plan.kvProblem(plan.problems - 1) + 1;
    }

    /**
     * Copies the keys and values of a call that some query row sees into panels, one (batch × kv head) per task.
     *
     * @param plan the call, which {@link #fits}
     * @param k the keys, where {@code plan.k} says
     * @param v the values, where {@code plan.v} says
     * @param parallel the pool
     * @return the panels
     */
    static Packed pack(AttentionPlan plan, float[] k, float[] v, Parallel parallel) {
        int keys = visibleKeys(plan);
        int dk = plan.keyDim;
        int dv = plan.valueDim;
        int paddedKeys = (keys + MR - 1) / MR * MR;
        int valuePanels = (dv + MR - 1) / MR;
        int kvProblems = kvProblems(plan);
        float[] packedK = ArrayPool.floats(kvProblems * paddedKeys * dk, true);
        float[] packedV = ArrayPool.floats(kvProblems * valuePanels * paddedKeys * MR, true);
        parallel.forRange(kvProblems, (long) keys * (dk + dv), (from, to) -> {
            int kStride = plan.k.rowStride();
            int vStride = plan.v.rowStride();
            for (int p = from; p < to; p++) {
                int kOut = p * paddedKeys * dk;
                int kIn = plan.k.base(p);
                for (int j = 0; j < keys; j++) {
                    int at = kOut + (j / MR) * MR * dk + j % MR;
                    int row = kIn + j * kStride;
                    for (int d = 0; d < dk; d++) {
                        packedK[at + d * MR] = k[row + d];
                    }
                }
                int vOut = p * valuePanels * paddedKeys * MR;
                int vIn = plan.v.base(p);
                for (int t = 0; t < valuePanels; t++) {
                    int width = Math.min(MR, dv - t * MR);
                    int panel = vOut + t * paddedKeys * MR;
                    for (int j = 0; j < keys; j++) {
                        System.arraycopy(v, vIn + j * vStride + t * MR, packedV, panel + j * MR, width);
                    }
                }
            }
        });
        return new Packed(packedK, packedV, paddedKeys, valuePanels);
    }

    /** The scratch arrays of a kernel for one key and value width, kept per thread from call to call. */
    private static final class Scratch {
        final int keyDim;
        final int valuePanels;
        final float[] queries;
        final float[] scores = new float[KEY_BLOCK * QUERY_BLOCK];
        final float[] outT;
        final float[] rowMax = new float[QUERY_BLOCK];
        final float[] rowSum = new float[QUERY_BLOCK];
        final float[] shift = new float[QUERY_BLOCK];
        final float[] correction = new float[QUERY_BLOCK];
        final float[] column = new float[QUERY_BLOCK];

        Scratch(int keyDim, int valuePanels) {
            this.keyDim = keyDim;
            this.valuePanels = valuePanels;
            this.queries = new float[keyDim * QUERY_BLOCK];
            this.outT = new float[valuePanels * MR * QUERY_BLOCK];
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = new ThreadLocal<>();

    VectorFlashAttentionF32(AttentionPlan plan, float[] q, Packed packed, float[] out) {
        this.plan = plan;
        this.q = q;
        this.packed = packed;
        this.out = out;
        Scratch s = SCRATCH.get();
        if (s == null || s.keyDim != plan.keyDim || s.valuePanels != packed.valuePanels()) {
            s = new Scratch(plan.keyDim, packed.valuePanels());
            SCRATCH.set(s);
        }
        this.queries = s.queries;
        this.scores = s.scores;
        this.outT = s.outT;
        this.rowMax = s.rowMax;
        this.rowSum = s.rowSum;
        this.shift = s.shift;
        this.correction = s.correction;
        this.column = s.column;
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
        int kv = plan.kvProblem(problem);
        for (int keyStart = 0; keyStart < keyEnd; keyStart += KEY_BLOCK) {
            int cols = Math.min(KEY_BLOCK, keyEnd - keyStart);
            scores(kv, keyStart, cols);
            if (masks.touch(keyStart, cols)) {
                for (int j = 0; j < cols; j++) {
                    gather(j);
                    masks.apply(column, 0, keyStart + j, LOG2E);
                    scatter(j);
                }
            }
            softmaxStep(cols);
            if (plan.dropoutP > 0) {
                for (int j = 0; j < cols; j++) {
                    gather(j);
                    masks.drop(column, 0, keyStart + j);
                    scatter(j);
                }
            }
            accumulate(kv, keyStart, cols);
        }
        finish(problem, rowStart, rows);
    }

    /**
     * Loads {@code scale · log₂e · Q} into panels with zero padding rows, resets the statistics and accumulator,
     * finds the mask rows.
     */
    private void start(int problem, int rowStart, int rows) {
        int dk = plan.keyDim;
        float scale = (float) (plan.scale * LOG2E);
        int stride = plan.q.rowStride();
        int base = plan.q.base(problem) + rowStart * stride;
        active = (rows + NR - 1) / NR * NR;
        if (rows < active) {
            Arrays.fill(queries, 0f);
        }
        for (int r = 0; r < rows; r++) {
            int at = (r / NR) * dk * NR + r % NR;
            int row = base + r * stride;
            for (int d = 0; d < dk; d++) {
                queries[at + d * NR] = q[row + d] * scale;
            }
        }
        Arrays.fill(rowMax, Float.NEGATIVE_INFINITY);
        Arrays.fill(rowSum, 0f);
        Arrays.fill(outT, 0f);
        masks.start(problem, rowStart, rows);
    }

    /** Logits of keys {@code [keyStart, keyStart + cols)}, whole key panels, every query panel. */
    private void scores(int kv, int keyStart, int cols) {
        int dk = plan.keyDim;
        float[] keys = packed.keys();
        int kBase = (kv * packed.paddedKeys() + keyStart) * dk;
        for (int j = 0; j < cols; j += MR) {
            for (int r = 0; r < active; r += NR) {
                VectorGemmF32.tile(dk, keys, kBase + j * dk, queries, r * dk, scores, r * KEY_BLOCK + j * NR, NR,
                        false);
            }
        }
    }

    /** {@code Oᵀ += V_blkᵀ · Pᵀ} over keys {@code [keyStart, keyStart + cols)}. */
    private void accumulate(int kv, int keyStart, int cols) {
        float[] values = packed.values();
        int stride = packed.paddedKeys() * MR;
        int vBase = kv * packed.valuePanels() * stride + keyStart * MR;
        for (int t = 0; t < packed.valuePanels(); t++) {
            for (int r = 0; r < active; r += NR) {
                VectorGemmF32.tile(cols, values, vBase + t * stride, scores, r * KEY_BLOCK, outT,
                        t * MR * QUERY_BLOCK + r, QUERY_BLOCK, true);
            }
        }
    }

    /** Copies key {@code j}'s logits (or weights) of every row into {@link #column}. */
    private void gather(int j) {
        for (int r = 0; r < active; r += NR) {
            System.arraycopy(scores, r * KEY_BLOCK + j * NR, column, r, NR);
        }
    }

    /** Copies {@link #column} back into key {@code j}'s logits (or weights). */
    private void scatter(int j) {
        for (int r = 0; r < active; r += NR) {
            System.arraycopy(column, r, scores, r * KEY_BLOCK + j * NR, NR);
        }
    }

    /**
     * The online-softmax step in base 2 over the block's logits, as passes over arrays (the class comment says why):
     * the new running max and, per row, the shift {@code max(m', lowest float)} ({@link #maxPass}); the logits minus
     * their row's shift ({@link #shiftPass}); {@code P = 2^(S - shift)} in place, and the correction
     * {@code 2^(m - shift)} ({@link #exp2}); the running sums and the rescaled accumulator ({@link #sumPass}). A row
     * that has seen only -∞ keeps a zero sum (its shift is the lowest float rather than -∞); a NaN in a row makes its
     * max, sum and output NaN.
     */
    private void softmaxStep(int cols) {
        for (Step step : SOFTMAX) {
            step.run(this, cols);
        }
    }

    /** One pass of the softmax step over the block's first {@code cols} keys. */
    @FunctionalInterface
    private interface Step {
        void run(VectorFlashAttentionF32 kernel, int cols);
    }

    /**
     * The passes, called from the one call site of {@link #softmaxStep}, which so sees several classes and inlines
     * none of them: each pass is compiled on its own, within the budget that keeps its vector calls intrinsified.
     */
    private static final Step[] SOFTMAX = {
        VectorFlashAttentionF32::maxPass, VectorFlashAttentionF32::shiftPass, VectorFlashAttentionF32::exp2Scores,
        VectorFlashAttentionF32::exp2Correction, VectorFlashAttentionF32::sumPass,
    };

    private void exp2Scores(int cols) {
        for (int r = 0; r < active; r += NR) {
            exp2(scores, r * KEY_BLOCK, cols * NR);
        }
    }

    private void exp2Correction(int cols) {
        exp2(correction, 0, active);
    }

    /**
     * Per vector of rows: {@code m' = max(m, max_j S[j])} into {@link #rowMax}, {@code shift = max(m', lowest)}
     * into {@link #shift}, and {@code m - shift} into {@link #correction}; stored from the last key's step, where
     * {@code m'} is a fresh result.
     */
    private void maxPass(int cols) {
        int last = cols - 1;
        for (int r = 0; r < active; r += LANES) {
            int at0 = (r / NR) * NR * KEY_BLOCK + r % NR;
            FloatVector old = FloatVector.fromArray(SPECIES, rowMax, r);
            FloatVector max = old;
            for (int j = 0; j < cols; j++) {
                max = FloatVector.fromArray(SPECIES, scores, at0 + j * NR).max(max);
                if (j == last) {
                    max.intoArray(rowMax, r);
                    FloatVector shift = max.max(-Float.MAX_VALUE);
                    shift.intoArray(this.shift, r);
                    old.sub(shift).intoArray(correction, r);
                }
            }
        }
    }

    /** {@code S[j][r] -= shift[r]} for the block's keys. */
    private void shiftPass(int cols) {
        for (int r = 0; r < active; r += LANES) {
            int at0 = (r / NR) * NR * KEY_BLOCK + r % NR;
            FloatVector s = FloatVector.fromArray(SPECIES, shift, r);
            for (int j = 0; j < cols; j++) {
                int at = at0 + j * NR;
                FloatVector.fromArray(SPECIES, scores, at).sub(s).intoArray(scores, at);
            }
        }
    }

    /**
     * Per vector of rows: {@code l = l·c + Σ_j P[j]} with {@code c} the correction, and {@code Oᵀ·diag(c)}, skipped
     * when no lane's max moved.
     */
    private void sumPass(int cols) {
        int valueRows = packed.valuePanels() * MR;
        int last = cols - 1;
        for (int r = 0; r < active; r += LANES) {
            int at0 = (r / NR) * NR * KEY_BLOCK + r % NR;
            FloatVector sum = FloatVector.zero(SPECIES);
            for (int j = 0; j < cols; j++) {
                sum = FloatVector.fromArray(SPECIES, scores, at0 + j * NR).add(sum);
                if (j == last) {
                    FloatVector c = FloatVector.fromArray(SPECIES, correction, r);
                    c.fma(FloatVector.fromArray(SPECIES, rowSum, r), sum).intoArray(rowSum, r);
                }
            }
            boolean moved = false;
            for (int i = r; i < r + LANES; i++) {
                moved |= correction[i] != 1f;
            }
            if (moved) {
                FloatVector c = FloatVector.fromArray(SPECIES, correction, r);
                for (int e = 0; e < valueRows; e++) {
                    int at = e * QUERY_BLOCK + r;
                    FloatVector.fromArray(SPECIES, outT, at).mul(c).intoArray(outT, at);
                }
            }
        }
    }

    /**
     * {@code a[at + i] = 2^a[at + i]} for {@code i < n}, a multiple of the vector length, for {@code x ≤ 0}:
     * {@code n = round(max(x, -127))} by adding {@link #ROUND_BIASED}, {@code f = x - n} in {@code [-½, ½]},
     * {@code 2^f} by a degree-6 polynomial (Chebyshev fit, relative error 3e-9 before rounding), times {@code 2ⁿ} made
     * from the low bits of the rounded sum. Arguments below -126.5, including -∞, give 0; NaN gives NaN.
     *
     * @param a the values, modified
     * @param at where they start
     * @param n how many
     */
    static void exp2(float[] a, int at, int n) {
        for (int i = at; i < at + n; i += LANES) {
            FloatVector x = FloatVector.fromArray(SPECIES, a, i).max(LOWEST);
            FloatVector rounded = x.add(ROUND_BIASED);
            FloatVector f = x.sub(rounded.sub(ROUND_BIASED));
            FloatVector p = f.mul(C6).add(C5);
            p = f.fma(p, FloatVector.broadcast(SPECIES, C4));
            p = f.fma(p, FloatVector.broadcast(SPECIES, C3));
            p = f.fma(p, FloatVector.broadcast(SPECIES, C2));
            p = f.fma(p, FloatVector.broadcast(SPECIES, C1));
            p = f.fma(p, FloatVector.broadcast(SPECIES, 1f));
            FloatVector scale = rounded.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
            scale.mul(p).intoArray(a, i);
        }
    }

    /** {@code out[row r] = Oᵀ[·][r] / l[r] · 1/(1-p)}, or zeros for a row that saw only -∞. */
    private void finish(int problem, int rowStart, int rows) {
        int dv = plan.valueDim;
        int stride = plan.out.rowStride();
        int base = plan.out.base(problem) + rowStart * stride;
        for (int r = 0; r < rows; r++) {
            float l = rowSum[r];
            float factor = l == 0f ? 0f : (float) (plan.survivorScale / l);
            int o = base + r * stride;
            for (int e = 0; e < dv; e++) {
                out[o + e] = outT[e * QUERY_BLOCK + r] * factor;
            }
        }
    }
}
