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

// Where the rows of a set of [rows, d] matrices lie: row i of problem p starts at element
//   first + (p / heads) * outer + (p % heads) * head + i * row.
// Contiguous [P, L, d] is {0, P, 0, L * d, d}; head h of batch item b of H heads in a packed projection [B, L, W]
// whose head 0 starts at column c is {c, H, L * W, d, W}.
struct Attn4jRows {
    int first;
    int heads;
    int outer;
    int head;
    int row;
};

__device__ __forceinline__ long long attn4j_row(const Attn4jRows& r, int p, int i) {
    return r.first + (long long) (p / r.heads) * r.outer + (long long) (p % r.heads) * r.head + (long long) i * r.row;
}

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

// The activations of linear's epilogue and of the elementwise kernels, in the codes the host passes.
#define ATTN4J_ACT_IDENTITY 0
#define ATTN4J_ACT_RELU 1
#define ATTN4J_ACT_GELU 2
#define ATTN4J_ACT_GELU_TANH 3
#define ATTN4J_ACT_SILU 4

// max(x, 0); NaN stays NaN.
__device__ __forceinline__ float attn4j_relu(float v) { return v > 0.0f ? v : (v != v ? v : 0.0f); }

// x/2 * (1 + erf(x / sqrt(2))), evaluated as x/2 * erfc(-x / sqrt(2)) so that large negative x does not lose its
// small result to the cancellation in 1 + erf.
__device__ __forceinline__ float attn4j_gelu_erf(float v) { return 0.5f * v * erfcf(-v * 0.70710678118654752f); }

// x/2 * (1 + tanh(u)), u = sqrt(2/pi) * (x + 0.044715 x^3), evaluated as x / (1 + e^(-2u)), the same value without
// the cancellation in 1 + tanh(u) for large negative x.
__device__ __forceinline__ float attn4j_gelu_tanh(float v) {
    float u = 0.79788456080286536f * (v + 0.044715f * v * v * v);
    return v / (1.0f + expf(-2.0f * u));
}

// x / (1 + e^-x) (SiLU, swish); e^-x overflowing to inf gives -0 for large negative x.
__device__ __forceinline__ float attn4j_silu(float v) { return v / (1.0f + expf(-v)); }

// One of the ATTN4J_ACT_* codes; the code is uniform over a launch.
__device__ __forceinline__ float attn4j_activate(int activation, float v) {
    switch (activation) {
        case ATTN4J_ACT_RELU: return attn4j_relu(v);
        case ATTN4J_ACT_GELU: return attn4j_gelu_erf(v);
        case ATTN4J_ACT_GELU_TANH: return attn4j_gelu_tanh(v);
        case ATTN4J_ACT_SILU: return attn4j_silu(v);
        default: return v;
    }
}

// IEEE binary16 to float (exact): the conversion instruction on the GPU, the same arithmetic on integers elsewhere.
__device__ __forceinline__ float attn4j_half(unsigned short h) {
#ifdef __CUDA_ARCH__
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#else
    const unsigned int sign = (unsigned int) (h & 0x8000u) << 16;
    const unsigned int exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0x1fu) return __int_as_float((int) (sign | 0x7f800000u | (mantissa << 13)));
    if (exponent == 0) {
        const float subnormal = (float) mantissa * 5.9604644775390625e-8f;
        return sign ? -subnormal : subnormal;
    }
    return __int_as_float((int) (sign | ((exponent + 112u) << 23) | (mantissa << 13)));
#endif
}

// bfloat16 to float (exact): the upper half of a binary32.
__device__ __forceinline__ float attn4j_bf16(unsigned short b) { return __int_as_float((int) ((unsigned int) b << 16)); }

// The dropout hash of SEMANTICS.md: element `i` is kept iff u(seed, i) >= p, u in [0, 1).
__device__ __forceinline__ double attn4j_dropout_u(unsigned long long seed, unsigned long long i) {
    unsigned long long z = seed + (i + 1ULL) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z = z ^ (z >> 31);
    return (double) (z >> 11) * 0x1.0p-53;
}

#endif
