// Reductions over one axis of a tensor viewed as [outer, n, inner]; the output is [outer, inner].
// One warp computes one output; lanes stride over the n reduced elements. outer * n * inner < 2^31.
#include "attn4j_common.cuh"

#define ATTN4J_REDUCE_MAX 0
#define ATTN4J_REDUCE_SUM 1
#define ATTN4J_REDUCE_MEAN 2
#define ATTN4J_REDUCE_VAR 3

template <int KIND>
__device__ __forceinline__ void attn4j_reduce(const float* __restrict__ x, float* __restrict__ out,
                                              int outer, int n, int inner) {
    const int warpsTotal = gridDim.x * (blockDim.x >> 5);
    const int lane = threadIdx.x & 31;
    const int outputs = outer * inner;
    for (int o = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); o < outputs; o += warpsTotal) {
        const int base = (o / inner) * n * inner + (o % inner);
        float r;
        if (KIND == ATTN4J_REDUCE_MAX) {
            float m = -INFINITY;
            for (int k = lane; k < n; k += 32) m = attn4j_nanmax(m, x[base + k * inner]);
            r = attn4j_warp_max(m);
        } else {
            float s = 0.0f;
            for (int k = lane; k < n; k += 32) s += x[base + k * inner];
            s = attn4j_warp_sum(s);
            r = KIND == ATTN4J_REDUCE_SUM ? s : s / (float) n;
            if (KIND == ATTN4J_REDUCE_VAR) {
                float mean = r, q = 0.0f;
                for (int k = lane; k < n; k += 32) {
                    float dlt = x[base + k * inner] - mean;
                    q += dlt * dlt;
                }
                r = attn4j_warp_sum(q) / (float) n;
            }
        }
        if (lane == 0) out[o] = r;
    }
}

// out[o, i] = max_k x[o, k, i] (NaN if any element is NaN)
extern "C" __global__ void attn4j_reduce_max_f32(const float* x, float* out, int outer, int n, int inner) {
    attn4j_reduce<ATTN4J_REDUCE_MAX>(x, out, outer, n, inner);
}

// out[o, i] = sum_k x[o, k, i]
extern "C" __global__ void attn4j_reduce_sum_f32(const float* x, float* out, int outer, int n, int inner) {
    attn4j_reduce<ATTN4J_REDUCE_SUM>(x, out, outer, n, inner);
}

// out[o, i] = sum_k x[o, k, i] / n
extern "C" __global__ void attn4j_reduce_mean_f32(const float* x, float* out, int outer, int n, int inner) {
    attn4j_reduce<ATTN4J_REDUCE_MEAN>(x, out, outer, n, inner);
}

// out[o, i] = sum_k (x[o, k, i] - mean)^2 / n   (population variance, two passes)
extern "C" __global__ void attn4j_reduce_var_f32(const float* x, float* out, int outer, int n, int inner) {
    attn4j_reduce<ATTN4J_REDUCE_VAR>(x, out, outer, n, inner);
}
