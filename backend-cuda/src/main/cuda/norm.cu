// Row-wise kernels: numerically stable softmax (with optional masks), layer norm and RMS norm.
// One thread block handles one row at a time; blocks stride over the rows.
#include "attn4j_common.cuh"

// Masked logit of element j of row r: x + additive mask, or -inf where the boolean mask is false or key j is
// not visible at position p = i + shift (j >= keys, or causal and j > p, or window > 0 and j <= p - window),
// i being the row's index along dim rank-2 of `shape`.
__device__ __forceinline__ float attn4j_masked_logit(float v, int j, int p, long long maskBase,
                                                     long long addBase, const unsigned char* mask,
                                                     const Attn4jStrides& maskStrides, const float* addMask,
                                                     const Attn4jStrides& addStrides, int lastDim, int causal,
                                                     int window, int keys) {
    if (addMask) v += addMask[addBase + (long long) j * addStrides.v[lastDim]];
    if (mask && !mask[maskBase + (long long) j * maskStrides.v[lastDim]]) v = -INFINITY;
    if (j >= keys || (causal && j > p) || (window > 0 && (long long) j <= (long long) p - window)) v = -INFINITY;
    return v;
}

// Softmax over the middle axis of x viewed as [outer, n, inner]:
//   y[o, j, t] = exp(l_j - max_k l_k) / sum_k exp(l_k - max_k l_k),  l_j = masked logit of x[o, j, t].
// Masks are allowed only when inner == 1; `shape` is then the full shape of x and maskStrides/addStrides
// the strides of the broadcast boolean mask (1 = may attend) and additive mask over it, either pointer may
// be null; causal, shift, window and keys hide keys as attention's VisibleKeys do (plain softmax: 0, 0, 0, n).
// A row whose logits are all -inf yields zeros; NaN anywhere in a row makes the row NaN.
extern "C" __global__ void attn4j_softmax_f32(const float* __restrict__ x, float* __restrict__ y, int outer,
                                              int n, int inner, Attn4jShape shape,
                                              const unsigned char* __restrict__ mask,
                                              Attn4jStrides maskStrides, const float* __restrict__ addMask,
                                              Attn4jStrides addStrides, int causal, int shift, int window,
                                              int keys) {
    __shared__ float scratch[32];
    const int rows = outer * inner;
    int last = shape.rank - 1;
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        const int base = (r / inner) * n * inner + (r % inner);
        const long long maskBase = mask ? attn4j_lead_offset(shape, maskStrides, last, r) : 0;
        const long long addBase = addMask ? attn4j_lead_offset(shape, addStrides, last, r) : 0;
        const int p = causal || window > 0 ? r % shape.dims[last - 1] + shift : 0;
        float m = -INFINITY;
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            float l = attn4j_masked_logit(x[base + j * inner], j, p, maskBase, addBase, mask,
                                          maskStrides, addMask, addStrides, last, causal, window, keys);
            m = attn4j_nanmax(m, l);
        }
        m = attn4j_block_max(m, scratch);
        if (m == -INFINITY) {
            for (int j = threadIdx.x; j < n; j += blockDim.x) y[base + j * inner] = 0.0f;
            continue;
        }
        float s = 0.0f;
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            float l = attn4j_masked_logit(x[base + j * inner], j, p, maskBase, addBase, mask,
                                          maskStrides, addMask, addStrides, last, causal, window, keys);
            s += expf(l - m);
        }
        s = attn4j_block_sum(s, scratch);
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            float l = attn4j_masked_logit(x[base + j * inner], j, p, maskBase, addBase, mask,
                                          maskStrides, addMask, addStrides, last, causal, window, keys);
            y[base + j * inner] = expf(l - m) / s;
        }
    }
}

// Element c of row xr, with the residual row rr added first when there is one (as the composition's add, in F32).
__device__ __forceinline__ float attn4j_sum_at(const float* __restrict__ xr, const float* __restrict__ rr, int c) {
    return rr ? xr[c] + rr[c] : xr[c];
}

// 1 / sqrt(mean_c(dev_c^2) + eps) over a row of d values, dev_c = (s_c - a) - b, s the row plus its residual. The
// deviations are divided by their largest magnitude before squaring when it exceeds 1, so that rows of entries past
// 1.8e19 (whose squares overflow F32) normalise as in float64. Every thread of the block receives the result.
__device__ __forceinline__ float attn4j_inverse_rms(const float* __restrict__ xr, const float* __restrict__ rr,
                                                    int d, float a, float b, float eps, float* scratch) {
    float big = 0.0f;
    for (int c = threadIdx.x; c < d; c += blockDim.x) big = attn4j_nanmax(big, fabsf((attn4j_sum_at(xr, rr, c) - a) - b));
    const float amax = attn4j_block_max(big, scratch);
    const float inv = amax > 1.0f && amax < INFINITY ? 1.0f / amax : 1.0f;
    float q = 0.0f;
    for (int c = threadIdx.x; c < d; c += blockDim.x) {
        float dlt = ((attn4j_sum_at(xr, rr, c) - a) - b) * inv;
        q += dlt * dlt;
    }
    return inv / sqrtf(attn4j_block_sum(q, scratch) / (float) d + eps * inv * inv);
}

// Layer norm over the last dim of s = x + residual, [rows, d] (residual may be null):
//   y = (s - mean) / sqrt(var + eps) * gamma + beta,  var the biased variance;
// gamma and beta [d] may be null (1 and 0). Deviations are taken from the row's first element, then from the
// mean of those, so that rows far from zero (values near 1000) keep the precision of their spread.
extern "C" __global__ void attn4j_layer_norm_f32(const float* __restrict__ x, const float* __restrict__ residual,
                                                 const float* __restrict__ gamma, const float* __restrict__ beta,
                                                 float* __restrict__ y, int rows, int d, float eps) {
    __shared__ float scratch[32];
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + (long long) r * d;
        const float* rr = residual ? residual + (long long) r * d : nullptr;
        float* yr = y + (long long) r * d;
        const float shift = attn4j_sum_at(xr, rr, 0);
        float s = 0.0f;
        for (int c = threadIdx.x; c < d; c += blockDim.x) s += attn4j_sum_at(xr, rr, c) - shift;
        const float meanShifted = attn4j_block_sum(s, scratch) / (float) d;
        const float rstd = attn4j_inverse_rms(xr, rr, d, shift, meanShifted, eps, scratch);
        for (int c = threadIdx.x; c < d; c += blockDim.x) {
            float v = ((attn4j_sum_at(xr, rr, c) - shift) - meanShifted) * rstd;
            if (gamma) v *= gamma[c];
            if (beta) v += beta[c];
            yr[c] = v;
        }
    }
}

// RMS norm over the last dim of s = x + residual, [rows, d] (residual may be null), as Llama's RMSNorm:
//   y = s / sqrt(mean(s^2) + eps) * weight;  weight [d] may be null (1).
extern "C" __global__ void attn4j_rms_norm_f32(const float* __restrict__ x, const float* __restrict__ residual,
                                               const float* __restrict__ weight, float* __restrict__ y, int rows,
                                               int d, float eps) {
    __shared__ float scratch[32];
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + (long long) r * d;
        const float* rr = residual ? residual + (long long) r * d : nullptr;
        float* yr = y + (long long) r * d;
        const float rstd = attn4j_inverse_rms(xr, rr, d, 0.0f, 0.0f, eps, scratch);
        for (int c = threadIdx.x; c < d; c += blockDim.x) {
            float v = attn4j_sum_at(xr, rr, c) * rstd;
            yr[c] = weight ? v * weight[c] : v;
        }
    }
}
