// Fused attention forward, FlashAttention-2 style.
//
// For each of the bh flattened leading indices b, query row i and key j:
//   s_ij = scale * q_i . k_j + addMask_ij, set to -inf where mask_ij is false or (causal and j > i)
//   w_ij = softmax_j(s_ij)                       (a row of all -inf gives w = 0)
//   w_ij = dropout(w_ij) at flat index (b * Lq + i) * Lk + j   (only when dropoutP > 0)
//   out_i = sum_j w_ij v_j
// q [bh, Lq, dk], k [bh, Lk, dk], v [bh, Lk, dv] and out [bh, Lq, dv] are contiguous; dk, dv <= 256.
//
// One CTA of W warps owns a block of 4W query rows (4 rows per warp) for one b; key/value tiles of 32 rows
// stream through shared memory. Each lane scores one key of the tile for its warp's 4 rows, then an online
// softmax keeps a running max m and sum l per row, and each lane accumulates dv/32 output columns.
// With causal, tiles whose first key lies beyond the block's last query row are never loaded.
#include "attn4j_common.cuh"

#define ATTN4J_ATT_ROWS 4
#define ATTN4J_ATT_BN 32
#define ATTN4J_ATT_DV_PER_LANE 8

// Dynamic shared memory: (4W * dk + 32 * max(dk + 1, dv)) floats. Grid: bh * ceil(Lq / 4W) CTAs.
// maskShape is [..., Lq, Lk] (leading dims those of q, product bh); mask (1 = may attend) and addMask are
// read through their strides over it and may be null. keepScale is 1/(1-p) for p < 1 and 0 for p = 1.
extern "C" __global__ void attn4j_flash_attention_f32(
    const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
    float* __restrict__ out, int lq, int lk, int dk, int dv, float scale, Attn4jShape maskShape,
    const unsigned char* __restrict__ mask, Attn4jStrides maskStrides, const float* __restrict__ addMask,
    Attn4jStrides addStrides, int causal, unsigned long long seed, double dropoutP, float keepScale) {
    extern __shared__ float smem[];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int bm = (blockDim.x >> 5) * ATTN4J_ATT_ROWS;
    const int qBlocks = (lq + bm - 1) / bm;
    const int b = blockIdx.x / qBlocks;
    const int q0 = (blockIdx.x - b * qBlocks) * bm;
    const int ldk = dk + 1;
    float* qs = smem;
    float* kv = smem + bm * dk;

    const float* qb = q + (long long) b * lq * dk;
    const float* kb = k + (long long) b * lk * dk;
    const float* vb = v + (long long) b * lk * dv;
    const int rank = maskShape.rank;
    const long long maskBase = mask ? attn4j_lead_offset(maskShape, maskStrides, rank - 2, b) : 0;
    const long long addBase = addMask ? attn4j_lead_offset(maskShape, addStrides, rank - 2, b) : 0;
    const bool dropout = dropoutP > 0.0;

    for (int e = tid; e < bm * dk; e += blockDim.x) {
        int r = e / dk;
        qs[e] = q0 + r < lq ? qb[(long long) (q0 + r) * dk + (e - r * dk)] : 0.0f;
    }

    float m[ATTN4J_ATT_ROWS], l[ATTN4J_ATT_ROWS], o[ATTN4J_ATT_ROWS][ATTN4J_ATT_DV_PER_LANE];
#pragma unroll
    for (int r = 0; r < ATTN4J_ATT_ROWS; ++r) {
        m[r] = -INFINITY;
        l[r] = 0.0f;
#pragma unroll
        for (int t = 0; t < ATTN4J_ATT_DV_PER_LANE; ++t) o[r][t] = 0.0f;
    }
    const int row0 = q0 + warp * ATTN4J_ATT_ROWS;
    const float* qw = qs + warp * ATTN4J_ATT_ROWS * dk;

    int kTiles = (lk + ATTN4J_ATT_BN - 1) / ATTN4J_ATT_BN;
    if (causal) kTiles = min(kTiles, (min(q0 + bm, lq) - 1) / ATTN4J_ATT_BN + 1);

    for (int tile = 0; tile < kTiles; ++tile) {
        const int k0 = tile * ATTN4J_ATT_BN;
        __syncthreads();
        for (int e = tid; e < ATTN4J_ATT_BN * dk; e += blockDim.x) {
            int r = e / dk, c = e - r * dk;
            kv[r * ldk + c] = k0 + r < lk ? kb[(long long) (k0 + r) * dk + c] : 0.0f;
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
            const int i = row0 + r;
            float x = -INFINITY;
            if (j < lk && i < lq) {
                x = s[r] * scale;
                if (addMask)
                    x += addMask[addBase + (long long) i * addStrides.v[rank - 2] +
                                 (long long) j * addStrides.v[rank - 1]];
                if (mask && !mask[maskBase + (long long) i * maskStrides.v[rank - 2] +
                                  (long long) j * maskStrides.v[rank - 1]])
                    x = -INFINITY;
                if (causal && j > i) x = -INFINITY;
            }
            const float mNew = attn4j_nanmax(m[r], attn4j_warp_max(x));
            const float p = x == -INFINITY ? 0.0f : expf(x - mNew);
            const float alpha = m[r] == mNew ? 1.0f : expf(m[r] - mNew);
            l[r] = l[r] * alpha + attn4j_warp_sum(p);
            m[r] = mNew;
#pragma unroll
            for (int t = 0; t < ATTN4J_ATT_DV_PER_LANE; ++t) o[r][t] *= alpha;
            pd[r] = p;
            if (dropout && j < lk && i < lq) {
                unsigned long long flat = ((unsigned long long) b * lq + i) * lk + j;
                if (attn4j_dropout_u(seed, flat) < dropoutP) pd[r] = 0.0f;
            }
        }

        __syncthreads();
        for (int e = tid; e < ATTN4J_ATT_BN * dv; e += blockDim.x) {
            int r = e / dv;
            kv[e] = k0 + r < lk ? vb[(long long) (k0 + r) * dv + (e - r * dv)] : 0.0f;
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

#pragma unroll
    for (int r = 0; r < ATTN4J_ATT_ROWS; ++r) {
        const int i = row0 + r;
        if (i >= lq) continue;
        float* orow = out + ((long long) b * lq + i) * dv;
#pragma unroll
        for (int t = 0; t < ATTN4J_ATT_DV_PER_LANE; ++t) {
            int c = lane + 32 * t;
            if (c < dv) orow[c] = l[r] == 0.0f ? 0.0f : o[r][t] / l[r] * keepScale;
        }
    }
}
