// Tiled batched GEMM: C[b] = alpha * op(A[b]) . op(B[b]), op = identity or transpose.
#include "attn4j_common.cuh"

#define ATTN4J_GEMM_BM 64
#define ATTN4J_GEMM_BN 64
#define ATTN4J_GEMM_BK 16
#define ATTN4J_GEMM_THREADS 256

// A is [M, K] (stored [K, M] if transA), B is [K, N] (stored [N, K] if transB), C is [M, N], all row-major.
// Batch b (0 <= b < batches, flat row-major over `batch`) reads A at the offset given by batchA and B at the
// offset given by batchB (stride 0 on a broadcast batch dim) and writes C at b * M * N.
// Launch with 256 threads, grid (ceil(N/64), ceil(M/64), min(batches, 65535)). Four blocks per SM cap it at 64
// registers, which it fits without spilling on sm_75, sm_80 and sm_90 (left to itself, ptxas 13.0 chose 48 and
// spilled on sm_80).
extern "C" __global__ void __launch_bounds__(ATTN4J_GEMM_THREADS, 4)
attn4j_gemm_f32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K, int transA, int transB, float alpha,
                Attn4jShape batch, Attn4jStrides batchA, Attn4jStrides batchB, int batches) {
    __shared__ float As[ATTN4J_GEMM_BK][ATTN4J_GEMM_BM + 1];
    __shared__ float Bs[ATTN4J_GEMM_BK][ATTN4J_GEMM_BN + 1];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int m0 = blockIdx.y * ATTN4J_GEMM_BM, n0 = blockIdx.x * ATTN4J_GEMM_BN;
    for (int b = blockIdx.z; b < batches; b += gridDim.z) {
        const float* a = A + attn4j_offset(batch, batchA, b);
        const float* bm = B + attn4j_offset(batch, batchB, b);
        float acc[4][4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
        for (int k0 = 0; k0 < K; k0 += ATTN4J_GEMM_BK) {
#pragma unroll
            for (int t = 0; t < 4; ++t) {
                int e = tid + t * ATTN4J_GEMM_THREADS;
                int mm, kk;
                if (transA) { mm = e % ATTN4J_GEMM_BM; kk = e / ATTN4J_GEMM_BM; }
                else { kk = e % ATTN4J_GEMM_BK; mm = e / ATTN4J_GEMM_BK; }
                int gm = m0 + mm, gk = k0 + kk;
                float va = 0.0f;
                if (gm < M && gk < K) va = transA ? a[(long long) gk * M + gm] : a[(long long) gm * K + gk];
                As[kk][mm] = va;
                int nn;
                if (transB) { kk = e % ATTN4J_GEMM_BK; nn = e / ATTN4J_GEMM_BK; }
                else { nn = e % ATTN4J_GEMM_BN; kk = e / ATTN4J_GEMM_BN; }
                int gn = n0 + nn;
                gk = k0 + kk;
                float vb = 0.0f;
                if (gn < N && gk < K) vb = transB ? bm[(long long) gn * K + gk] : bm[(long long) gk * N + gn];
                Bs[kk][nn] = vb;
            }
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < ATTN4J_GEMM_BK; ++kk) {
                float ra[4], rb[4];
#pragma unroll
                for (int i = 0; i < 4; ++i) ra[i] = As[kk][ty + 16 * i];
#pragma unroll
                for (int j = 0; j < 4; ++j) rb[j] = Bs[kk][tx + 16 * j];
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
            }
            __syncthreads();
        }
        float* c = C + (long long) b * M * N;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            int gm = m0 + ty + 16 * i;
            if (gm >= M) continue;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                int gn = n0 + tx + 16 * j;
                if (gn < N) c[(long long) gm * N + gn] = alpha * acc[i][j];
            }
        }
    }
}
