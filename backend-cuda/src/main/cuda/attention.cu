// Fused attention forward, FlashAttention-2 style, and flash-decoding: the same tiles split over the keys.
//
// For each of the bh problems b (the flattened leading indices of q), query row i and key j:
//   s_ij = cap(scale * q_i . k_j) + addMask_ij, set to -inf where mask_ij is false or key j is not visible to row i
//   (cap(x) = softcap * tanh(x / softcap) when softcap > 0, else x)
//   w_ij = softmax_j(s_ij)                       (a row of all -inf gives w = 0)
//   w_ij = dropout(w_ij) at flat index (b * Lq + i) * Lk + j   (only when dropoutP > 0)
//   out_i = sum_j w_ij v_j
// Key j is visible to row i iff j < keys, and with causal j <= i + shift, and with window > 0
// j > i + shift - window (shift 0 aligns the diagonal top-left, keys - Lq bottom-right). Keys from `keys` to Lk
// are unused cache capacity and never read.
//
// Where the rows of q, k, v and out lie is given by an Attn4jRows each (attn4j_common.cuh): contiguous
// [bh, L, d] tensors, or the heads of a packed projection [B, L, (H + 2 H_kv) d] read in place and an output
// [B, L, H d] written head by head.
//
// Grouped queries: k and v (bh / group problems) serve `group` consecutive query heads each. Kv index kb owns
// R = group * Lq query rows: row r is query i = r % Lq of head b = kb * group + r / Lq, and its global row
// b * Lq + i is kb * R + r. Each K/V tile is loaded once for the whole group.
//
// One CTA of W warps owns a block of 4W rows (4 rows per warp) of one kv index; key/value tiles of 32 rows
// stream through shared memory. Each lane scores one key of the tile for its warp's 4 rows, then an online
// softmax keeps a running max m and sum l per row, and each lane accumulates dv/32 output columns. A CTA
// visits only the tiles that hold keys visible to one of its rows.
#include "attn4j_common.cuh"

#define ATTN4J_ATT_ROWS 4
#define ATTN4J_ATT_BN 32
#define ATTN4J_ATT_DV_PER_LANE 8
#define ATTN4J_ATT_MAX_ROWS 16

// The body of both attention kernels. Without PARTIAL, the CTA visits every tile its rows need and writes
// out [bh * Lq, dv] = o / l * keepScale (0 where l = 0). With PARTIAL it is split blockIdx.y of gridDim.y: it
// visits at most splitTiles of those tiles, starting splitTiles * blockIdx.y tiles after the first, and writes
// its unnormalised o to out [splits, bh * Lq, dv] and (m, l) to stats [splits, bh * Lq, 2]; a split without
// tiles writes (-inf, 0) and zeros.
template <bool PARTIAL>
__device__ __forceinline__ void attn4j_attend(
    const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
    float* __restrict__ out, float* __restrict__ stats, const Attn4jRows& qRows, const Attn4jRows& kRows,
    const Attn4jRows& vRows, const Attn4jRows& oRows, int lq, int lk, int keys, int dk, int dv, int group,
    float scale, float softcap, const Attn4jShape& maskShape, const unsigned char* __restrict__ mask,
    const Attn4jStrides& maskStrides, const float* __restrict__ addMask, const Attn4jStrides& addStrides,
    int causal, int shift, int window, unsigned long long seed, double dropoutP, float keepScale,
    int splitTiles) {
    extern __shared__ float smem[];
    __shared__ long long maskRow[ATTN4J_ATT_MAX_ROWS], addRow[ATTN4J_ATT_MAX_ROWS];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int bm = (blockDim.x >> 5) * ATTN4J_ATT_ROWS;
    const int rows = group * lq;
    const int rowBlocks = (rows + bm - 1) / bm;
    const int kb = blockIdx.x / rowBlocks;
    const int r0 = (blockIdx.x - kb * rowBlocks) * bm;
    const int rLast = min(r0 + bm, rows) - 1;
    const long long g0 = (long long) kb * rows;
    const int ldk = dk + 1;
    float* qs = smem;
    float* kv = smem + bm * dk;

    const float* kb0 = k + attn4j_row(kRows, kb, 0);
    const float* vb = v + attn4j_row(vRows, kb, 0);
    const int rank = maskShape.rank;
    const bool dropout = dropoutP > 0.0;

    if (tid < bm) {
        const int r = min(r0 + tid, rows - 1);
        const int b = kb * group + r / lq, i = r % lq;
        maskRow[tid] = mask ? attn4j_lead_offset(maskShape, maskStrides, rank - 2, b) +
                                  (long long) i * maskStrides.v[rank - 2] : 0;
        addRow[tid] = addMask ? attn4j_lead_offset(maskShape, addStrides, rank - 2, b) +
                                    (long long) i * addStrides.v[rank - 2] : 0;
    }
    for (int e = tid; e < bm * dk; e += blockDim.x) {
        const int r = e / dk, rr = r0 + r;
        qs[e] = rr < rows ? q[attn4j_row(qRows, kb * group + rr / lq, rr % lq) + (e - r * dk)] : 0.0f;
    }

    float m[ATTN4J_ATT_ROWS], l[ATTN4J_ATT_ROWS], o[ATTN4J_ATT_ROWS][ATTN4J_ATT_DV_PER_LANE];
    int pos[ATTN4J_ATT_ROWS];
    const int rw = r0 + warp * ATTN4J_ATT_ROWS;
#pragma unroll
    for (int r = 0; r < ATTN4J_ATT_ROWS; ++r) {
        m[r] = -INFINITY;
        l[r] = 0.0f;
        pos[r] = (rw + r) % lq + shift;
#pragma unroll
        for (int t = 0; t < ATTN4J_ATT_DV_PER_LANE; ++t) o[r][t] = 0.0f;
    }
    const float* qw = qs + warp * ATTN4J_ATT_ROWS * dk;

    // Visible keys of the block: [first(iLo), end(iHi)), every i when the block spans two heads.
    const bool oneHead = r0 / lq == rLast / lq;
    const int iLo = oneHead ? r0 % lq : 0, iHi = oneHead ? rLast % lq : lq - 1;
    const int kEnd = causal ? max(0, min(keys, iHi + shift + 1)) : keys;
    const int kBegin = window > 0 ? max(0, iLo + shift - window + 1) : 0;
    int tile0 = kBegin / ATTN4J_ATT_BN, tileEnd = (kEnd + ATTN4J_ATT_BN - 1) / ATTN4J_ATT_BN;
    if (PARTIAL) {
        tile0 += blockIdx.y * splitTiles;
        if (tileEnd - tile0 > splitTiles) tileEnd = tile0 + splitTiles;
    }

    for (int tile = tile0; tile < tileEnd; ++tile) {
        const int k0 = tile * ATTN4J_ATT_BN;
        __syncthreads();
        for (int e = tid; e < ATTN4J_ATT_BN * dk; e += blockDim.x) {
            int r = e / dk, c = e - r * dk;
            kv[r * ldk + c] = k0 + r < keys ? kb0[(long long) (k0 + r) * kRows.row + c] : 0.0f;
        }
        __syncthreads();

        float s[ATTN4J_ATT_ROWS];
#pragma unroll
        for (int r = 0; r < ATTN4J_ATT_ROWS; ++r) s[r] = 0.0f;
        const float* kr = kv + lane * ldk;
        for (int c = 0; c < dk; ++c) {
            float kc = kr[c];
#pragma unroll
            for (int r = 0; r < ATTN4J_ATT_ROWS; ++r) s[r] = fmaf(qw[r * dk + c], kc, s[r]);
        }

        const int j = k0 + lane;
        float pd[ATTN4J_ATT_ROWS];
#pragma unroll
        for (int r = 0; r < ATTN4J_ATT_ROWS; ++r) {
            const int lr = warp * ATTN4J_ATT_ROWS + r;
            const bool seen = j < keys && rw + r < rows && (!causal || j <= pos[r]) &&
                              (window <= 0 || (long long) j > (long long) pos[r] - window);
            float x = -INFINITY;
            if (seen) {
                x = s[r] * scale;
                if (softcap > 0.0f) x = softcap * tanhf(x / softcap);
                if (addMask) x += addMask[addRow[lr] + (long long) j * addStrides.v[rank - 1]];
                if (mask && !mask[maskRow[lr] + (long long) j * maskStrides.v[rank - 1]]) x = -INFINITY;
            }
            const float mNew = attn4j_nanmax(m[r], attn4j_warp_max(x));
            const float p = x == -INFINITY ? 0.0f : expf(x - mNew);
            const float alpha = m[r] == mNew ? 1.0f : expf(m[r] - mNew);
            l[r] = l[r] * alpha + attn4j_warp_sum(p);
            m[r] = mNew;
#pragma unroll
            for (int t = 0; t < ATTN4J_ATT_DV_PER_LANE; ++t) o[r][t] *= alpha;
            pd[r] = p;
            if (dropout && seen) {
                unsigned long long flat = (unsigned long long) (g0 + rw + r) * lk + j;
                if (attn4j_dropout_u(seed, flat) < dropoutP) pd[r] = 0.0f;
            }
        }

        __syncthreads();
        for (int e = tid; e < ATTN4J_ATT_BN * dv; e += blockDim.x) {
            int r = e / dv;
            kv[e] = k0 + r < keys ? vb[(long long) (k0 + r) * vRows.row + (e - r * dv)] : 0.0f;
        }
        __syncthreads();

        for (int jj = 0; jj < ATTN4J_ATT_BN; ++jj) {
            float pj[ATTN4J_ATT_ROWS];
#pragma unroll
            for (int r = 0; r < ATTN4J_ATT_ROWS; ++r) pj[r] = __shfl_sync(0xffffffffu, pd[r], jj);
            const float* vr = kv + jj * dv;
#pragma unroll
            for (int t = 0; t < ATTN4J_ATT_DV_PER_LANE; ++t) {
                int c = lane + 32 * t;
                if (c < dv) {
                    float vc = vr[c];
#pragma unroll
                    for (int r = 0; r < ATTN4J_ATT_ROWS; ++r) o[r][t] = fmaf(pj[r], vc, o[r][t]);
                }
            }
        }
    }

    const long long split = PARTIAL ? (long long) blockIdx.y * (gridDim.x / rowBlocks) * rows : 0;
#pragma unroll
    for (int r = 0; r < ATTN4J_ATT_ROWS; ++r) {
        if (rw + r >= rows) continue;
        const long long g = split + g0 + rw + r;
        float* orow = PARTIAL ? out + g * dv
                              : out + attn4j_row(oRows, kb * group + (rw + r) / lq, (rw + r) % lq);
        if (PARTIAL && lane == 0) {
            stats[2 * g] = m[r];
            stats[2 * g + 1] = l[r];
        }
#pragma unroll
        for (int t = 0; t < ATTN4J_ATT_DV_PER_LANE; ++t) {
            int c = lane + 32 * t;
            if (c < dv) orow[c] = PARTIAL ? o[r][t] : l[r] == 0.0f ? 0.0f : o[r][t] / l[r] * keepScale;
        }
    }
}

// Dynamic shared memory: (4W * dk + 32 * max(dk + 1, dv)) floats. Grid: (bh / group) * ceil(group * Lq / 4W)
// CTAs. maskShape is [..., Lq, Lk] (leading dims those of q, product bh); mask (1 = may attend) and addMask are
// read through their strides over it and may be null. keepScale is 1/(1-p) for p < 1 and 0 for p = 1. The rows
// of q and out are over the bh problems, those of k and v over the bh / group kv problems.
extern "C" __global__ void attn4j_flash_attention_f32(
    const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
    float* __restrict__ out, Attn4jRows qRows, Attn4jRows kRows, Attn4jRows vRows, Attn4jRows oRows, int lq,
    int lk, int keys, int dk, int dv, int group, float scale, float softcap,
    Attn4jShape maskShape, const unsigned char* __restrict__ mask, Attn4jStrides maskStrides,
    const float* __restrict__ addMask, Attn4jStrides addStrides, int causal, int shift, int window,
    unsigned long long seed, double dropoutP, float keepScale) {
    attn4j_attend<false>(q, k, v, out, nullptr, qRows, kRows, vRows, oRows, lq, lk, keys, dk, dv, group, scale,
                         softcap, maskShape, mask, maskStrides, addMask, addStrides, causal, shift, window, seed,
                         dropoutP, keepScale, 0);
}

// Flash-decoding, first kernel: the grid of attn4j_flash_attention_f32 with gridDim.y = splits; split y of a
// CTA covers at most splitTiles of its key tiles. Writes partial [splits, bh * Lq, dv] (unnormalised, dropout
// applied) and stats [splits, bh * Lq, 2] (running max m, sum l); attn4j_flash_decode_merge_f32 finishes.
extern "C" __global__ void attn4j_flash_decode_f32(
    const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
    float* __restrict__ partial, float* __restrict__ stats, Attn4jRows qRows, Attn4jRows kRows, Attn4jRows vRows,
    int lq, int lk, int keys, int dk, int dv, int group, float scale, float softcap, Attn4jShape maskShape,
    const unsigned char* __restrict__ mask, Attn4jStrides maskStrides, const float* __restrict__ addMask,
    Attn4jStrides addStrides, int causal, int shift, int window, unsigned long long seed, double dropoutP,
    int splitTiles) {
    attn4j_attend<true>(q, k, v, partial, stats, qRows, kRows, vRows, qRows, lq, lk, keys, dk, dv, group, scale,
                        softcap, maskShape, mask, maskStrides, addMask, addStrides, causal, shift, window, seed,
                        dropoutP, 1.0f, splitTiles);
}

// Flash-decoding, second kernel: one warp per output row g = b * Lq + i, written where oRows puts row i of
// problem b:
//   M = max_s m_s,  w_s = e^(m_s - M) (0 where m_s = -inf),  L = sum_s w_s l_s
//   out_g = sum_s w_s partial_s,g / L * keepScale, or zeros when L = 0 (every key masked); NaN propagates.
extern "C" __global__ void attn4j_flash_decode_merge_f32(const float* __restrict__ partial,
                                                         const float* __restrict__ stats,
                                                         float* __restrict__ out, Attn4jRows oRows, int rows,
                                                         int lq, int dv, int splits, float keepScale) {
    const int lane = threadIdx.x & 31;
    const int warps = gridDim.x * (blockDim.x >> 5);
    for (int g = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); g < rows; g += warps) {
        float mMax = -INFINITY;
        for (int s = 0; s < splits; ++s) mMax = attn4j_nanmax(mMax, stats[2 * ((long long) s * rows + g)]);
        float sum = 0.0f;
        for (int s = 0; s < splits; ++s) {
            const long long at = 2 * ((long long) s * rows + g);
            const float ms = stats[at];
            sum += ms == -INFINITY ? 0.0f : expf(ms - mMax) * stats[at + 1];
        }
        for (int c = lane; c < dv; c += 32) {
            float acc = 0.0f;
            for (int s = 0; s < splits; ++s) {
                const long long at = (long long) s * rows + g;
                const float ms = stats[2 * at];
                if (ms != -INFINITY) acc = fmaf(expf(ms - mMax), partial[at * dv + c], acc);
            }
            out[attn4j_row(oRows, g / lq, g % lq) + c] = sum == 0.0f ? 0.0f : acc / sum * keepScale;
        }
    }
}
