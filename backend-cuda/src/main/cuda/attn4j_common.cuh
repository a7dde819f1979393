// Shared definitions for the attn4j CUDA kernels (F32, row-major).
#ifndef ATTN4J_COMMON_CUH
#define ATTN4J_COMMON_CUH

#define ATTN4J_MAX_RANK 8

// A tensor shape of at most ATTN4J_MAX_RANK dims, passed to kernels by value (1 + 8 ints).
struct Attn4jShape {
    int rank;
    int dims[ATTN4J_MAX_RANK];
};

// Element strides of one operand over an Attn4jShape; 0 on a broadcast dim (8 ints).
struct Attn4jStrides {
    int v[ATTN4J_MAX_RANK];
};

// Offset of the first `lead` dims of `shape`, given their flat row-major index. The loop is unrolled over
// ATTN4J_MAX_RANK so that the by-value structs are indexed by constants and stay out of local memory.
__device__ __forceinline__ long long attn4j_lead_offset(const Attn4jShape& shape, const Attn4jStrides& s,
                                                        int lead, int flat) {
    long long off = 0;
#pragma unroll
    for (int d = ATTN4J_MAX_RANK - 1; d >= 0; --d) {
        if (d < lead) {
            int n = shape.dims[d];
            off += (long long) (flat % n) * s.v[d];
            flat /= n;
        }
    }
    return off;
}

// Offset of flat row-major index `flat` of `shape` in an operand with strides `s`. Index arithmetic is 32-bit:
// the host keeps every tensor below 2^31 elements.
__device__ __forceinline__ long long attn4j_offset(const Attn4jShape& shape, const Attn4jStrides& s,
                                                   int flat) {
    return attn4j_lead_offset(shape, s, shape.rank, flat);
}

// max that returns NaN when either argument is NaN (torch.max semantics; fmaxf would drop the NaN).
__device__ __forceinline__ float attn4j_nanmax(float a, float b) {
    return (a != a || a > b) ? a : b;
}

__device__ __forceinline__ float attn4j_warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float attn4j_warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = attn4j_nanmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Block-wide sum; every thread receives the result. `scratch` holds at least 32 floats.
__device__ __forceinline__ float attn4j_block_sum(float v, float* scratch) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
    v = attn4j_warp_sum(v);
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < warps ? scratch[lane] : 0.0f;
    return attn4j_warp_sum(v);
}

// Block-wide NaN-propagating max; every thread receives the result.
__device__ __forceinline__ float attn4j_block_max(float v, float* scratch) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
    v = attn4j_warp_max(v);
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < warps ? scratch[lane] : -INFINITY;
    return attn4j_warp_max(v);
}

// The dropout hash of SEMANTICS.md: element `i` is kept iff u(seed, i) >= p, u in [0, 1).
__device__ __forceinline__ double attn4j_dropout_u(unsigned long long seed, unsigned long long i) {
    unsigned long long z = seed + (i + 1ULL) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z = z ^ (z >> 31);
    return (double) (z >> 11) * 0x1.0p-53;
}

#endif
