package org.attn4j.backend.ejml;

import java.util.Arrays;

/**
 * Flash-decoding for F32: attention of a few query rows (at most {@link #MAX_QUERIES} per head: a decoding step, a
 * short chunk of a prompt) against a key/value cache of any length, split over the keys rather than over query
 * blocks, so that every core works even when there is one query row per head, and with its inner loops over the
 * keys and the head's dimensions, where the query-block kernels' run over the query rows. It takes calls with more
 * keys than {@link #MAX_QUERIES}: a cache, never the self-attention of a short sequence, which stays with the kernel
 * of every other length (an encoder's numbers do not change kernel at some sentence length). Each task
 * takes one (problem, key split) and, for each query row, computes over the split's visible keys
 * <pre>
 *   s_j = cap(scale · q·k_j) + additive, -∞ where masked      m = max_j s_j
 *   l   = Σ_j e^(s_j - m)                                 o = Σ_j e^(s_j - m) · v_j
 * </pre>
 * into scratch arrays; one merge per (problem, row) then combines the splits:
 * {@code M = max m_s, L = Σ l_s·e^(m_s - M), out = Σ o_s·e^(m_s - M) / L}, or zeros when every key was masked;
 * {@code cap(x) = c·tanh(x/c)} with a logit soft-cap {@code c}, else {@code x}.
 * Statistics and accumulators are float, as in {@link FlashAttentionF32}. Dot products and the value updates run
 * on {@link VectorDecodingF32} when {@link Simd#enabled()}, else as unrolled scalar loops. Dropout is not
 * handled here: calls with dropout use the query-block kernels.
 *
 * <p>The splits divide the keys that exist ({@code keyLength}), not the key tensor's length: a decoder's cache
 * holds spare capacity past its filled positions, and how much must change neither the work nor a single bit of
 * the result (a prompt's cached prefix, copied into a cache of another capacity, then gives what a fresh prefill
 * gives).
 */
final class FlashDecoding {
    /** The most query rows per problem that this kernel takes. */
    static final int MAX_QUERIES = 8;
    /** The fewest keys of one split. */
    static final int MIN_SPLIT = 128;
    /** Keys whose scores are held at once. */
    private static final int CHUNK = 256;
    /** Per thread: a chunk's scores, shifts and exponents, and the query. */
    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(
            () -> new float[][] {new float[CHUNK], new float[CHUNK], new float[CHUNK], new float[0]});

    private final AttentionPlan plan;
    private final float[] q;
    private final float[] k;
    private final float[] v;
    private final int splitKeys;
    private final int splits;
    private final float[] partialMax;
    private final float[] partialSum;
    private final float[] partialOut;

    private FlashDecoding(AttentionPlan plan, float[] q, float[] k, float[] v, int threads) {
        this.plan = plan;
        this.q = q;
        this.k = k;
        this.v = v;
        int wanted = Math.max(1, (4 * threads + plan.problems - 1) / plan.problems);
        int size = Math.max(MIN_SPLIT, (plan.existingKeys + wanted - 1) / wanted);
        this.splitKeys = (size + 63) / 64 * 64;
        this.splits = (plan.existingKeys + splitKeys - 1) / splitKeys;
        int partials = plan.problems * splits * plan.queries;
        this.partialMax = ArrayPool.floats(partials, true);
        this.partialSum = ArrayPool.floats(partials, true);
        this.partialOut = ArrayPool.floats(partials * plan.valueDim, true);
    }

    /**
     * @param plan the call
     * @param f32 whether the operands are F32
     * @return whether this kernel computes the call
     */
    static boolean applies(AttentionPlan plan, boolean f32) {
        return f32 && plan.queries <= MAX_QUERIES && plan.existingKeys > MAX_QUERIES && plan.dropoutP == 0;
    }

    /**
     * @param plan the call, accepted by {@link #applies}
     * @param q {@code [problems, Lq, d_k]}
     * @param k {@code [kvProblems, Lk, d_k]}
     * @param v {@code [kvProblems, Lk, d_v]}
     * @param out the output {@code [problems, Lq, d_v]}, overwritten
     * @param parallel the pool
     */
    static void run(AttentionPlan plan, float[] q, float[] k, float[] v, float[] out, Parallel parallel) {
        FlashDecoding d = new FlashDecoding(plan, q, k, v, parallel.threads());
        long work = (long) d.splitKeys * plan.queries * (plan.keyDim + plan.valueDim);
        parallel.forRange(plan.problems * d.splits, work, (from, to) -> {
            float[][] s = SCRATCH.get();
            if (s[3].length < plan.keyDim) {
                s[3] = new float[plan.keyDim];
            }
            for (int t = from; t < to; t++) {
                d.split(t / d.splits, t % d.splits, s[0], s[1], s[2], s[3]);
            }
        });
        parallel.forRange(plan.problems * plan.queries, (long) d.splits * plan.valueDim,
                (from, to) -> {
                    for (int t = from; t < to; t++) {
                        d.merge(t, out);
                    }
                });
        ArrayPool.recycle(d.partialMax);
        ArrayPool.recycle(d.partialSum);
        ArrayPool.recycle(d.partialOut);
    }

    /** Computes the partial statistics and output of every query row of one problem over one key split. */
    private void split(int problem, int split, float[] scores, float[] shift, float[] exponents, float[] query) {
        int dk = plan.keyDim;
        int dv = plan.valueDim;
        int kvProblem = plan.kvProblem(problem);
        float scale = (float) plan.scale;
        for (int row = 0; row < plan.queries; row++) {
            int partial = (problem * splits + split) * plan.queries + row;
            int outBase = partial * dv;
            Arrays.fill(partialOut, outBase, outBase + dv, 0f);
            int qBase = (problem * plan.queries + row) * dk;
            for (int d = 0; d < dk; d++) {
                query[d] = q[qBase + d] * scale;
            }
            int from = Math.max(split * splitKeys, plan.firstKey(problem, row));
            int to = Math.min((split + 1) * splitKeys, plan.keyEnd(problem, row));
            float max = Float.NEGATIVE_INFINITY;
            float sum = 0f;
            for (int start = from; start < to; start += CHUNK) {
                int n = Math.min(CHUNK, to - start);
                int kBase = (kvProblem * plan.keys + start) * dk;
                if (Simd.enabled()) {
                    VectorDecodingF32.scores(query, 0, k, kBase, dk, scores, 0, n);
                } else {
                    scalarScores(query, k, kBase, dk, scores, n);
                }
                applyMasks(problem, row, start, scores, n);
                float chunkMax = max;
                for (int j = 0; j < n; j++) {
                    chunkMax = Math.max(chunkMax, scores[j]);
                }
                if (chunkMax == Float.NEGATIVE_INFINITY) {
                    continue;
                }
                if (chunkMax != max) {
                    float correction = max == Float.NEGATIVE_INFINITY ? 0f : (float) Math.exp(max - chunkMax);
                    sum *= correction;
                    for (int e = 0; e < dv; e++) {
                        partialOut[outBase + e] *= correction;
                    }
                    max = chunkMax;
                }
                Arrays.fill(shift, 0, n, max);
                FastExp.exp(scores, shift, scores, exponents, n);
                int vBase = (kvProblem * plan.keys + start) * dv;
                for (int j = 0; j < n; j++) {
                    sum += scores[j];
                }
                if (Simd.enabled()) {
                    VectorDecodingF32.accumulate(scores, v, vBase, dv, partialOut, outBase, n);
                } else {
                    scalarAccumulate(scores, v, vBase, dv, partialOut, outBase, n);
                }
            }
            partialMax[partial] = max;
            partialSum[partial] = sum;
        }
    }

    /**
     * Soft-caps the logits of keys {@code [start, start + n)} if asked, adds the additive mask and sets the masked
     * ones to -∞.
     */
    private void applyMasks(int problem, int row, int start, float[] scores, int n) {
        if (plan.softcap > 0) {
            BlockMasks.softcap(scores, 0, n, plan.softcap);
        }
        if (plan.additive != null) {
            float[] additive = (float[]) plan.additive;
            int base = plan.additiveOffset(problem, row);
            int stride = plan.additiveColumnStride();
            for (int j = 0; j < n; j++) {
                scores[j] += additive[base + (start + j) * stride];
            }
        }
        if (plan.mask != null) {
            int base = plan.maskOffset(problem, row);
            int stride = plan.maskColumnStride();
            for (int j = 0; j < n; j++) {
                if (!plan.mask[base + (start + j) * stride]) {
                    scores[j] = Float.NEGATIVE_INFINITY;
                }
            }
        }
    }

    /** Combines the splits of output row {@code t = problem · Lq + row}. */
    private void merge(int t, float[] out) {
        int problem = t / plan.queries;
        int row = t % plan.queries;
        int dv = plan.valueDim;
        float max = Float.NEGATIVE_INFINITY;
        boolean nan = false;
        for (int s = 0; s < splits; s++) {
            float m = partialMax[(problem * splits + s) * plan.queries + row];
            nan |= Float.isNaN(m);
            max = Math.max(max, m);
        }
        int outBase = t * dv;
        if (nan) {
            Arrays.fill(out, outBase, outBase + dv, Float.NaN);
            return;
        }
        if (max == Float.NEGATIVE_INFINITY) {
            return;
        }
        float sum = 0f;
        for (int s = 0; s < splits; s++) {
            int partial = (problem * splits + s) * plan.queries + row;
            float m = partialMax[partial];
            if (m == Float.NEGATIVE_INFINITY) {
                continue;
            }
            float w = (float) Math.exp(m - max);
            sum += partialSum[partial] * w;
            int base = partial * dv;
            for (int e = 0; e < dv; e++) {
                out[outBase + e] += partialOut[base + e] * w;
            }
        }
        float inverse = 1f / sum;
        for (int e = 0; e < dv; e++) {
            out[outBase + e] *= inverse;
        }
    }

    /** {@code scores[j] = query · k[kBase + j·dk ..]} for {@code j < n}, four keys at a time. */
    private static void scalarScores(float[] query, float[] k, int kBase, int dk, float[] scores, int n) {
        int j = 0;
        for (; j + 4 <= n; j += 4) {
            int k0 = kBase + j * dk;
            int k1 = k0 + dk;
            int k2 = k1 + dk;
            int k3 = k2 + dk;
            float s0 = 0f;
            float s1 = 0f;
            float s2 = 0f;
            float s3 = 0f;
            for (int d = 0; d < dk; d++) {
                float a = query[d];
                s0 += a * k[k0 + d];
                s1 += a * k[k1 + d];
                s2 += a * k[k2 + d];
                s3 += a * k[k3 + d];
            }
            scores[j] = s0;
            scores[j + 1] = s1;
            scores[j + 2] = s2;
            scores[j + 3] = s3;
        }
        for (; j < n; j++) {
            int kj = kBase + j * dk;
            float s = 0f;
            for (int d = 0; d < dk; d++) {
                s += query[d] * k[kj + d];
            }
            scores[j] = s;
        }
    }

    /** {@code out[outBase + e] += Σ_j p[j] · v[vBase + j·dv + e]} for {@code j < n}. */
    private static void scalarAccumulate(float[] p, float[] v, int vBase, int dv, float[] out, int outBase, int n) {
        for (int j = 0; j < n; j++) {
            float w = p[j];
            int vj = vBase + j * dv;
            for (int e = 0; e < dv; e++) {
                out[outBase + e] += w * v[vj + e];
            }
        }
    }
}
