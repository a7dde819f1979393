// Elementwise kernels: broadcasting binary ops, unary ops, rotary embedding, soft-capping, strided copy, dropout
// and embedding gather.
// Every kernel is a grid-stride loop over the n elements of its contiguous output.
#include "attn4j_common.cuh"

#define ATTN4J_GRID_STRIDE(i, n) \
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < (n); \
         i += (long long) blockDim.x * gridDim.x)

template <typename Op>
__device__ __forceinline__ void attn4j_binary(Attn4jShape shape, Attn4jStrides sa, Attn4jStrides sb,
                                              const float* __restrict__ a, const float* __restrict__ b,
                                              float* __restrict__ out, long long n, Op op) {
    ATTN4J_GRID_STRIDE(i, n) {
        out[i] = op(a[attn4j_offset(shape, sa, (int) i)], b[attn4j_offset(shape, sb, (int) i)]);
    }
}

struct Attn4jAdd { __device__ float operator()(float x, float y) const { return x + y; } };
struct Attn4jSub { __device__ float operator()(float x, float y) const { return x - y; } };
struct Attn4jMul { __device__ float operator()(float x, float y) const { return x * y; } };
struct Attn4jDiv { __device__ float operator()(float x, float y) const { return x / y; } };

// out[i] = a[i] + b[i] over the broadcast shape; sa and sb are the operands' strides (0 where broadcast).
extern "C" __global__ void attn4j_add_f32(Attn4jShape shape, Attn4jStrides sa, Attn4jStrides sb,
                                          const float* a, const float* b, float* out, long long n) {
    attn4j_binary(shape, sa, sb, a, b, out, n, Attn4jAdd());
}

extern "C" __global__ void attn4j_sub_f32(Attn4jShape shape, Attn4jStrides sa, Attn4jStrides sb,
                                          const float* a, const float* b, float* out, long long n) {
    attn4j_binary(shape, sa, sb, a, b, out, n, Attn4jSub());
}

extern "C" __global__ void attn4j_mul_f32(Attn4jShape shape, Attn4jStrides sa, Attn4jStrides sb,
                                          const float* a, const float* b, float* out, long long n) {
    attn4j_binary(shape, sa, sb, a, b, out, n, Attn4jMul());
}

extern "C" __global__ void attn4j_div_f32(Attn4jShape shape, Attn4jStrides sa, Attn4jStrides sb,
                                          const float* a, const float* b, float* out, long long n) {
    attn4j_binary(shape, sa, sb, a, b, out, n, Attn4jDiv());
}

// y = x * s
extern "C" __global__ void attn4j_scale_f32(const float* __restrict__ x, float* __restrict__ y, float s,
                                            long long n) {
    ATTN4J_GRID_STRIDE(i, n) { y[i] = x[i] * s; }
}

// y = e^x
extern "C" __global__ void attn4j_exp_f32(const float* __restrict__ x, float* __restrict__ y, long long n) {
    ATTN4J_GRID_STRIDE(i, n) { y[i] = expf(x[i]); }
}

// y = max(x, 0); NaN stays NaN.
extern "C" __global__ void attn4j_relu_f32(const float* __restrict__ x, float* __restrict__ y, long long n) {
    ATTN4J_GRID_STRIDE(i, n) { y[i] = attn4j_relu(x[i]); }
}

// y = x/2 * (1 + erf(x / sqrt(2))) (attn4j_gelu_erf).
extern "C" __global__ void attn4j_gelu_erf_f32(const float* __restrict__ x, float* __restrict__ y,
                                               long long n) {
    ATTN4J_GRID_STRIDE(i, n) { y[i] = attn4j_gelu_erf(x[i]); }
}

// y = x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) (attn4j_gelu_tanh).
extern "C" __global__ void attn4j_gelu_tanh_f32(const float* __restrict__ x, float* __restrict__ y,
                                                long long n) {
    ATTN4J_GRID_STRIDE(i, n) { y[i] = attn4j_gelu_tanh(x[i]); }
}

// y = x / (1 + e^-x) (SiLU, swish; attn4j_silu).
extern "C" __global__ void attn4j_silu_f32(const float* __restrict__ x, float* __restrict__ y, long long n) {
    ATTN4J_GRID_STRIDE(i, n) { y[i] = attn4j_silu(x[i]); }
}

// Rotary embedding of x [outer, rows, d]: row p sits at position offset + p; pair t < pairs of the first 2*pairs
// features, (t, t + pairs) half-split or (2t, 2t + 1) interleaved, turns by theta = (offset + p) * invFreq[t]:
// (a, b) -> (a c - b s, b c + a s) with c = scaling cos(theta), s = scaling sin(theta) computed in double once per
// (position, pair) and rounded to float. Features 2*pairs .. d-1 are copied. Launch over
// max(rows * pairs, outer * rows * (d - 2 * pairs)) elements.
extern "C" __global__ void attn4j_rope_f32(const float* __restrict__ x, float* __restrict__ y, int outer,
                                           int rows, int d, int pairs, int interleaved,
                                           const double* __restrict__ invFreq, double scaling, int offset) {
    const long long n = (long long) rows * pairs;
    ATTN4J_GRID_STRIDE(e, n) {
        const int p = (int) (e / pairs), t = (int) (e - (long long) p * pairs);
        const double theta = (double) (offset + (long long) p) * invFreq[t];
        const float c = (float) (cos(theta) * scaling), s = (float) (sin(theta) * scaling);
        const int ia = interleaved ? 2 * t : t, ib = interleaved ? 2 * t + 1 : t + pairs;
        for (int o = 0; o < outer; ++o) {
            const long long row = ((long long) o * rows + p) * d;
            const float a = x[row + ia], b = x[row + ib];
            y[row + ia] = a * c - b * s;
            y[row + ib] = b * c + a * s;
        }
    }
    const int rest = d - 2 * pairs;
    const long long m = (long long) outer * rows * rest;
    ATTN4J_GRID_STRIDE(e, m) {
        const long long row = e / rest;
        const long long at = row * d + 2 * pairs + (e - row * rest);
        y[at] = x[at];
    }
}

// y = cap * tanh(x / cap); +-inf gives +-cap, NaN stays NaN. x and y may be the same memory.
extern "C" __global__ void attn4j_softcap_f32(const float* x, float* y, float cap, long long n) {
    ATTN4J_GRID_STRIDE(i, n) { y[i] = cap * tanhf(x[i] / cap); }
}

// y[dstBase + dst offset of i] = x[srcBase + src offset of i] for every flat index i of `shape`
// (permute, and concat/split through the slab of the larger tensor that starts at an element offset).
extern "C" __global__ void attn4j_copy_strided_f32(Attn4jShape shape, Attn4jStrides src, Attn4jStrides dst,
                                                   const float* __restrict__ x, long long srcBase,
                                                   float* __restrict__ y, long long dstBase, long long n) {
    ATTN4J_GRID_STRIDE(i, n) {
        y[dstBase + attn4j_offset(shape, dst, (int) i)] = x[srcBase + attn4j_offset(shape, src, (int) i)];
    }
}

// y[i] = x[i] * keepScale if u(seed, i) >= p else 0, with u the hash of SEMANTICS.md.
extern "C" __global__ void attn4j_dropout_f32(const float* __restrict__ x, float* __restrict__ y,
                                              long long n, unsigned long long seed, double p,
                                              float keepScale) {
    ATTN4J_GRID_STRIDE(i, n) {
        y[i] = attn4j_dropout_u(seed, (unsigned long long) i) >= p ? x[i] * keepScale : 0.0f;
    }
}

// out[t, c] = w[ids[t], c] for t < tokens, c < d; ids are checked on the host to lie in [0, V).
extern "C" __global__ void attn4j_embedding_f32(const float* __restrict__ w, const int* __restrict__ ids,
                                                float* __restrict__ out, int tokens, int d) {
    long long n = (long long) tokens * d;
    ATTN4J_GRID_STRIDE(i, n) {
        int t = (int) i / d;
        out[i] = w[(long long) ids[t] * d + ((int) i - t * d)];
    }
}
