// Kernels that read bound weights in their storage types, accumulating in F32: linear with its epilogue (a GEMV for
// a few input rows, a tiled product beyond) and the embedding gather.
//
// A weight W [rows, K] lies in device memory as the host bound it (CudaWeight):
//   F32         float values[rows * K]
//   F16, BF16   unsigned short values[rows * K]
//   Q8_0        signed char values[rows * K] and unsigned short scales[rows * K / 32] (binary16)
//   Q4_0        unsigned char values[rows * K / 2], 16 bytes per block of 32 as in GGUF (element i < 16 is the low
//               nibble of byte i, element i >= 16 the high nibble of byte i - 16, each offset by 8), and the scales
//   Q4_K, Q6_K  unsigned char values[rows * K / 256 * 144 or 210]: GGUF's super-blocks as they are (scales null)
// Element (r, c) is q * d for Q8_0 and Q4_0, d = scales[(r * K + c) / 32]: K is a multiple of 32 for them. For Q4_K
// and Q6_K (K a multiple of 256) it is ggml's dequantize_row_q4_K / _q6_K, rounded as ggml rounds: (d * sc) * q -
// dmin * m for Q4_K, (d * sc) * (q - 32) for Q6_K, each product and the difference rounded once (never an FMA).
#include "attn4j_common.cuh"

#define ATTN4J_W_F32 0
#define ATTN4J_W_F16 1
#define ATTN4J_W_BF16 2
#define ATTN4J_W_Q8_0 3
#define ATTN4J_W_Q4_0 4
#define ATTN4J_W_Q4_K 5
#define ATTN4J_W_Q6_K 6

#define ATTN4J_LIN_BM 64
#define ATTN4J_LIN_BN 64
#define ATTN4J_LIN_BK 32
#define ATTN4J_LIN_THREADS 256
#define ATTN4J_GEMV_MAX_ROWS 8

// Element e < 256 of a Q4_K super-block b (144 bytes: d, dmin, 12 bytes of 6-bit scales and minimums, 128 of
// nibbles): group j = e / 32 has scale sc and minimum m, the number is nibble e % 32 of the 32 bytes at
// 16 + (e / 64) * 32, low for an even group, high for an odd one.
__device__ __forceinline__ float attn4j_q4_k(const unsigned char* __restrict__ b, int e) {
    const float d = attn4j_half((unsigned short) (b[0] | b[1] << 8));
    const float dmin = attn4j_half((unsigned short) (b[2] | b[3] << 8));
    const unsigned char* s = b + 4;
    const int j = e >> 5;
    const int sc = j < 4 ? s[j] & 63 : (s[j + 4] & 15) | (s[j - 4] >> 6) << 4;
    const int m = j < 4 ? s[j + 4] & 63 : (s[j + 4] >> 4) | (s[j] >> 6) << 4;
    const int q = (b[16 + (e >> 6) * 32 + (e & 31)] >> (4 * (j & 1))) & 15;
    return __fadd_rn(__fmul_rn(__fmul_rn(d, (float) sc), (float) q), -__fmul_rn(dmin, (float) m));
}

// Element e < 256 of a Q6_K super-block b (210 bytes: 128 of low nibbles, 64 of 2-bit high parts, 16 int8 scales,
// d): half h = e / 128, l = e % 128; the low 4 bits are nibble l / 64 of byte h * 64 + l % 64, the high 2 bits the
// pair l / 32 of byte 128 + h * 32 + l % 32; the scale is group e / 16's.
__device__ __forceinline__ float attn4j_q6_k(const unsigned char* __restrict__ b, int e) {
    const float d = attn4j_half((unsigned short) (b[208] | b[209] << 8));
    const int h = e >> 7;
    const int l = e & 127;
    const int lo = (b[h * 64 + (l & 63)] >> (4 * (l >> 6))) & 15;
    const int hi = (b[128 + h * 32 + (l & 31)] >> (2 * (l >> 5))) & 3;
    const float sc = (float) (signed char) b[192 + (e >> 4)];
    return __fmul_rn(__fmul_rn(d, sc), (float) ((lo | hi << 4) - 32));
}

// Element (row, c) of a weight of K columns, as F32.
template <int T>
__device__ __forceinline__ float attn4j_w(const void* __restrict__ values, const unsigned short* __restrict__ scales,
                                          long long row, int c, int K) {
    const long long at = row * K + c;
    if (T == ATTN4J_W_Q4_K) return attn4j_q4_k((const unsigned char*) values + (at >> 8) * 144, (int) (at & 255));
    if (T == ATTN4J_W_Q6_K) return attn4j_q6_k((const unsigned char*) values + (at >> 8) * 210, (int) (at & 255));
    if (T == ATTN4J_W_F32) return ((const float*) values)[at];
    if (T == ATTN4J_W_F16) return attn4j_half(((const unsigned short*) values)[at]);
    if (T == ATTN4J_W_BF16) return attn4j_bf16(((const unsigned short*) values)[at]);
    const float d = attn4j_half(scales[at >> 5]);
    if (T == ATTN4J_W_Q8_0) return (float) ((const signed char*) values)[at] * d;
    const int i = c & 31;
    const unsigned int byte = ((const unsigned char*) values)[(at >> 5) * 16 + (i & 15)];
    return (float) ((int) (i < 16 ? byte & 15u : byte >> 4) - 8) * d;
}

// Elements (row, c .. c + 3) with one vector load: c and K are multiples of 4 (so the four share a block).
template <int T>
__device__ __forceinline__ void attn4j_w4(const void* __restrict__ values, const unsigned short* __restrict__ scales,
                                          long long row, int c, int K, float w[4]) {
    const long long at = row * K + c;
    if (T == ATTN4J_W_F32) {
        const float4 v = *(const float4*) ((const float*) values + at);
        w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
    } else if (T == ATTN4J_W_F16 || T == ATTN4J_W_BF16) {
        const uint2 v = *(const uint2*) ((const unsigned short*) values + at);
        const unsigned short h[4] = {(unsigned short) (v.x & 0xffffu), (unsigned short) (v.x >> 16),
                                     (unsigned short) (v.y & 0xffffu), (unsigned short) (v.y >> 16)};
#pragma unroll
        for (int t = 0; t < 4; ++t) w[t] = T == ATTN4J_W_F16 ? attn4j_half(h[t]) : attn4j_bf16(h[t]);
    } else if (T == ATTN4J_W_Q4_K || T == ATTN4J_W_Q6_K) {
#pragma unroll
        for (int t = 0; t < 4; ++t) w[t] = attn4j_w<T>(values, scales, row, c + t, K);
    } else if (T == ATTN4J_W_Q8_0) {
        const float d = attn4j_half(scales[at >> 5]);
        const int v = *(const int*) ((const signed char*) values + at);
#pragma unroll
        for (int t = 0; t < 4; ++t) w[t] = (float) (signed char) (v >> (8 * t)) * d;
    } else {
        const float d = attn4j_half(scales[at >> 5]);
        const int i = c & 31;
        const unsigned int v = *(const unsigned int*) ((const unsigned char*) values + (at >> 5) * 16 + (i & 15));
        const int shift = i < 16 ? 0 : 4;
#pragma unroll
        for (int t = 0; t < 4; ++t) w[t] = (float) ((int) ((v >> (8 * t + shift)) & 15u) - 8) * d;
    }
}

// act(g + b_g) (* (u + b_u) when gated) + residual: output column n of row m of out [M, N]. Not inlined: it runs
// once per output, and sixteen inlined copies of erfcf and expf per thread would multiply the kernels' code. The
// gate's product and the residual's sum are rounded one by one (__fmul_rn, __fadd_rn: never contracted into an FMA),
// as the composition's separate multiply and add kernels round them.
__device__ __noinline__ float attn4j_epilogue(float g, float u, const float* __restrict__ bias,
                                                 const float* __restrict__ residual, int m, int n, int N, int gated,
                                                 int activation) {
    float v = attn4j_activate(activation, g + (bias ? bias[n] : 0.0f));
    if (gated) v = __fmul_rn(v, u + (bias ? bias[N + n] : 0.0f));
    return residual ? __fadd_rn(v, residual[(long long) m * N + n]) : v;
}

// out [M, N] = act(x [M, K] . W[0, N)^T + b) (* (x . W[N, 2N)^T + b_u) when gated) + residual, for M of at most
// ATTN4J_GEMV_MAX_ROWS: one warp per output column n reads weight row n (and N + n) once for every input row, four
// elements per lane at a time with one vector load when K is a multiple of 4. Grid-stride over the columns.
template <int T>
__device__ __forceinline__ void attn4j_linear_gemv(const float* __restrict__ x, const void* __restrict__ values,
                                                   const unsigned short* __restrict__ scales,
                                                   const float* __restrict__ bias, const float* __restrict__ residual,
                                                   float* __restrict__ out, int M, int N, int K, int gated,
                                                   int activation) {
    const int lane = threadIdx.x & 31;
    const int warps = gridDim.x * (blockDim.x >> 5);
    const bool vector = (K & 3) == 0;
    for (int n = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); n < N; n += warps) {
        float acc[ATTN4J_GEMV_MAX_ROWS], up[ATTN4J_GEMV_MAX_ROWS];
#pragma unroll
        for (int m = 0; m < ATTN4J_GEMV_MAX_ROWS; ++m) acc[m] = up[m] = 0.0f;
        for (int c0 = 0; c0 < K; c0 += 128) {
            const int c = c0 + 4 * lane;
            float w[4], u[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            if (vector) {
                if (c >= K) continue;
                attn4j_w4<T>(values, scales, n, c, K, w);
                if (gated) attn4j_w4<T>(values, scales, (long long) N + n, c, K, u);
            } else {
#pragma unroll
                for (int t = 0; t < 4; ++t) {
                    w[t] = c + t < K ? attn4j_w<T>(values, scales, n, c + t, K) : 0.0f;
                    u[t] = gated && c + t < K ? attn4j_w<T>(values, scales, (long long) N + n, c + t, K) : 0.0f;
                }
            }
#pragma unroll
            for (int m = 0; m < ATTN4J_GEMV_MAX_ROWS; ++m) {
                if (m >= M) break;
                const float* xr = x + (long long) m * K;
                float xv[4];
                if (vector) {
                    const float4 v = *(const float4*) (xr + c);
                    xv[0] = v.x; xv[1] = v.y; xv[2] = v.z; xv[3] = v.w;
                } else {
#pragma unroll
                    for (int t = 0; t < 4; ++t) xv[t] = c + t < K ? xr[c + t] : 0.0f;
                }
#pragma unroll
                for (int t = 0; t < 4; ++t) {
                    acc[m] = fmaf(xv[t], w[t], acc[m]);
                    if (gated) up[m] = fmaf(xv[t], u[t], up[m]);
                }
            }
        }
#pragma unroll
        for (int m = 0; m < ATTN4J_GEMV_MAX_ROWS; ++m) {
            if (m >= M) break;
            const float g = attn4j_warp_sum(acc[m]);
            const float u = gated ? attn4j_warp_sum(up[m]) : 0.0f;
            if (lane == m) out[(long long) m * N + n] = attn4j_epilogue(g, u, bias, residual, m, n, N, gated, activation);
        }
    }
}

// The same map for any M: 64 x 64 output tiles, 256 threads of 4 x 4 outputs (and 4 x 4 of the up rows when
// gated), 32-column slices of x and of the weight rows (one quantized block each) staged in shared memory as F32.
template <int T>
__device__ __forceinline__ void attn4j_linear_tiled(const float* __restrict__ x, const void* __restrict__ values,
                                                    const unsigned short* __restrict__ scales,
                                                    const float* __restrict__ bias, const float* __restrict__ residual,
                                                    float* __restrict__ out, int M, int N, int K, int gated,
                                                    int activation) {
    __shared__ float As[ATTN4J_LIN_BK][ATTN4J_LIN_BM + 1];
    __shared__ float Bs[ATTN4J_LIN_BK][ATTN4J_LIN_BN + 1];
    __shared__ float Bu[ATTN4J_LIN_BK][ATTN4J_LIN_BN + 1];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int m0 = blockIdx.y * ATTN4J_LIN_BM, n0 = blockIdx.x * ATTN4J_LIN_BN;
    float acc[4][4], accUp[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = accUp[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += ATTN4J_LIN_BK) {
#pragma unroll
        for (int t = 0; t < ATTN4J_LIN_BM * ATTN4J_LIN_BK / ATTN4J_LIN_THREADS; ++t) {
            const int e = tid + t * ATTN4J_LIN_THREADS;
            const int kk = e % ATTN4J_LIN_BK, r = e / ATTN4J_LIN_BK;
            const int gk = k0 + kk, gm = m0 + r, gn = n0 + r;
            As[kk][r] = gm < M && gk < K ? x[(long long) gm * K + gk] : 0.0f;
            Bs[kk][r] = gn < N && gk < K ? attn4j_w<T>(values, scales, gn, gk, K) : 0.0f;
            if (gated) Bu[kk][r] = gn < N && gk < K ? attn4j_w<T>(values, scales, (long long) N + gn, gk, K) : 0.0f;
        }
        __syncthreads();
#pragma unroll 8
        for (int kk = 0; kk < ATTN4J_LIN_BK; ++kk) {
            float ra[4], rb[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) ra[i] = As[kk][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; ++j) rb[j] = Bs[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
            if (gated) {
#pragma unroll
                for (int j = 0; j < 4; ++j) rb[j] = Bu[kk][tx + 16 * j];
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int j = 0; j < 4; ++j) accUp[i][j] = fmaf(ra[i], rb[j], accUp[i][j]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int gm = m0 + ty + 16 * i;
        if (gm >= M) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int gn = n0 + tx + 16 * j;
            if (gn < N) {
                out[(long long) gm * N + gn] = attn4j_epilogue(acc[i][j], accUp[i][j], bias, residual, gm, gn, N,
                                                               gated, activation);
            }
        }
    }
}

// out[t, c] = W[ids[t], c] as F32 for t < tokens, c < d; ids are checked on the host to lie in [0, rows).
template <int T>
__device__ __forceinline__ void attn4j_gather(const void* __restrict__ values, const unsigned short* __restrict__ scales,
                                              const int* __restrict__ ids, float* __restrict__ out, int tokens, int d) {
    const long long n = (long long) tokens * d;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) blockDim.x * gridDim.x) {
        const int t = (int) (i / d);
        out[i] = attn4j_w<T>(values, scales, ids[t], (int) (i - (long long) t * d), d);
    }
}

// Per storage type: attn4j_linear_gemv_<type> (grid ceil(N / 8) blocks of 256 threads, at most 8 input rows),
// attn4j_linear_tiled_<type> (grid (ceil(N / 64), ceil(M / 64)), 256 threads) and attn4j_gather_<type>
// (grid-stride, 256 threads). scales is null for the float types, bias and residual may be null, gated is 0 or 1
// (then the weight has 2N rows: the gate's, then the up projection's), activation one of ATTN4J_ACT_*.
#define ATTN4J_WEIGHT_KERNELS(NAME, T)                                                                             \
    extern "C" __global__ void __launch_bounds__(ATTN4J_LIN_THREADS) attn4j_linear_gemv_##NAME(                    \
        const float* __restrict__ x, const void* __restrict__ values, const unsigned short* __restrict__ scales,   \
        const float* __restrict__ bias, const float* __restrict__ residual, float* __restrict__ out, int M, int N, \
        int K, int gated, int activation) {                                                                        \
        attn4j_linear_gemv<T>(x, values, scales, bias, residual, out, M, N, K, gated, activation);                 \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(ATTN4J_LIN_THREADS) attn4j_linear_tiled_##NAME(                   \
        const float* __restrict__ x, const void* __restrict__ values, const unsigned short* __restrict__ scales,   \
        const float* __restrict__ bias, const float* __restrict__ residual, float* __restrict__ out, int M, int N, \
        int K, int gated, int activation) {                                                                        \
        attn4j_linear_tiled<T>(x, values, scales, bias, residual, out, M, N, K, gated, activation);                \
    }                                                                                                              \
    extern "C" __global__ void attn4j_gather_##NAME(const void* __restrict__ values,                               \
                                                    const unsigned short* __restrict__ scales,                     \
                                                    const int* __restrict__ ids, float* __restrict__ out,          \
                                                    int tokens, int d) {                                           \
        attn4j_gather<T>(values, scales, ids, out, tokens, d);                                                     \
    }

ATTN4J_WEIGHT_KERNELS(f32, ATTN4J_W_F32)
ATTN4J_WEIGHT_KERNELS(f16, ATTN4J_W_F16)
ATTN4J_WEIGHT_KERNELS(bf16, ATTN4J_W_BF16)
ATTN4J_WEIGHT_KERNELS(q8_0, ATTN4J_W_Q8_0)
ATTN4J_WEIGHT_KERNELS(q4_0, ATTN4J_W_Q4_0)
ATTN4J_WEIGHT_KERNELS(q4_k, ATTN4J_W_Q4_K)
ATTN4J_WEIGHT_KERNELS(q6_k, ATTN4J_W_Q6_K)
