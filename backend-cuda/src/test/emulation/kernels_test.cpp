// CPU-emulated checks of the attn4j kernels against double-precision references written from SEMANTICS.md.
// Built and run by run.sh; prints one line per case and "N passed, M failed".
#include "cuda_emu.h"

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>

#include "gen/attention.cu"
#include "gen/elementwise.cu"
#include "gen/gemm.cu"
#include "gen/norm.cu"
#include "gen/reduce.cu"
#include "gen/weights.cu"

float smem[65536];

static int passed = 0, failed = 0;
static std::mt19937 rng(42);

static std::vector<float> randn(size_t n) {
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

// Passes when every |got - want| / (1 + |want|) <= tol, or |got - want| / |want| <= tol with `relative`.
static void check(const std::string& name, const std::vector<float>& got, const std::vector<double>& want,
                  double tol = 2e-5, bool relative = false) {
    double worst = 0;
    size_t at = 0;
    bool ok = got.size() == want.size();
    for (size_t i = 0; ok && i < got.size(); ++i) {
        double g = got[i], w = want[i];
        if (std::isnan(w) || std::isnan(g)) {
            if (std::isnan(w) != std::isnan(g)) { ok = false; at = i; }
            continue;
        }
        double err = std::fabs(g - w) / ((relative ? 0.0 : 1.0) + std::fabs(w));
        if (relative && w == 0.0) err = std::fabs(g);
        if (err > worst) { worst = err; at = i; }
    }
    ok = ok && worst <= tol;
    std::printf("%-4s %-52s max rel err %.2e at %zu\n", ok ? "ok" : "FAIL", name.c_str(), worst, at);
    if (!ok && at < got.size()) std::printf("     got %.9g want %.9g\n", got[at], want[at]);
    (ok ? passed : failed)++;
}

static Attn4jShape shape_of(std::vector<int> dims) {
    Attn4jShape s{};
    s.rank = (int) dims.size();
    for (size_t i = 0; i < dims.size(); ++i) s.dims[i] = dims[i];
    return s;
}

static Attn4jStrides strides_of(std::vector<int> v) {
    Attn4jStrides s{};
    for (size_t i = 0; i < v.size(); ++i) s.v[i] = v[i];
    return s;
}

static Attn4jRows contiguous(int problems, int length, int d) { return Attn4jRows{0, problems, 0, length * d, d}; }

static double dropout_u(uint64_t seed, uint64_t i) {
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z = z ^ (z >> 31);
    return (double) (z >> 11) * 0x1.0p-53;
}

static void test_elementwise() {
    auto a = randn(2 * 3 * 4), b = randn(3);
    std::vector<float> out(24);
    Attn4jShape s = shape_of({2, 3, 4});
    emu::launch({1}, {64}, [&] {
        attn4j_div_f32(s, strides_of({12, 4, 1}), strides_of({0, 1, 0}), a.data(), b.data(), out.data(), 24);
    });
    std::vector<double> want(24);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k) want[i * 12 + j * 4 + k] = (double) a[i * 12 + j * 4 + k] / b[j];
    check("div broadcasting [2,3,4] / [3,1]", out, want);

    std::vector<float> x = {-3.0f, -0.5f, 0.0f, 0.5f, 2.0f, NAN, -5.0f, -9.0f, 12.0f}, y(9);
    std::vector<double> ge(9), gt(9), re(9);
    for (int i = 0; i < 9; ++i) {
        double v = x[i];
        ge[i] = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
        gt[i] = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
        re[i] = std::isnan(v) ? NAN : std::max(v, 0.0);
    }
    emu::launch({1}, {32}, [&] { attn4j_gelu_erf_f32(x.data(), y.data(), 9); });
    check("gelu exact erf, relative error also for large negative x", y, ge, 1e-6, true);
    emu::launch({1}, {32}, [&] { attn4j_gelu_tanh_f32(x.data(), y.data(), 9); });
    check("gelu tanh, relative error also for large negative x", y, gt, 1e-6, true);
    emu::launch({1}, {32}, [&] { attn4j_relu_f32(x.data(), y.data(), 9); });
    check("relu keeps NaN", y, re);

    std::vector<float> p(24);
    emu::launch({1}, {32}, [&] {
        attn4j_copy_strided_f32(shape_of({4, 2, 3}), strides_of({1, 12, 4}), strides_of({6, 3, 1}), a.data(), 0,
                                p.data(), 0, 24);
    });
    std::vector<double> pw(24);
    for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j) pw[k * 6 + i * 3 + j] = a[i * 12 + j * 4 + k];
    check("copy_strided permute(2, 0, 1)", p, pw);

    std::vector<float> whole(2 * 7, -1.0f), part = randn(2 * 3);
    emu::launch({1}, {32}, [&] {
        attn4j_copy_strided_f32(shape_of({2, 3}), strides_of({3, 1}), strides_of({7, 1}), part.data(), 0,
                                whole.data(), 4, 6);
    });
    std::vector<double> ww(14, -1.0);
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 3; ++c) ww[r * 7 + 4 + c] = part[r * 3 + c];
    check("copy_strided into the slab of a concat at offset 4", whole, ww);

    auto d = randn(1000);
    std::vector<float> dout(1000);
    uint64_t seed = 0xDEADBEEFCAFEULL;
    emu::launch({2}, {256}, [&] { attn4j_dropout_f32(d.data(), dout.data(), 1000, seed, 0.3, 1.0f / 0.7f); });
    std::vector<double> dw(1000);
    for (int i = 0; i < 1000; ++i) dw[i] = dropout_u(seed, i) >= 0.3 ? d[i] * (1 / 0.7) : 0.0;
    check("dropout p=0.3 splitmix mask", dout, dw);

    std::vector<float> w = randn(5 * 3), e(4 * 3);
    std::vector<int> ids = {4, 0, 2, 4};
    emu::launch({1}, {32}, [&] { attn4j_embedding_f32(w.data(), ids.data(), e.data(), 4, 3); });
    std::vector<double> ew(12);
    for (int t = 0; t < 4; ++t)
        for (int c = 0; c < 3; ++c) ew[t * 3 + c] = w[ids[t] * 3 + c];
    check("embedding gather", e, ew);
}

static void test_reduce() {
    int outer = 3, n = 45, inner = 5;
    auto x = randn(outer * n * inner);
    x[7 * inner + 1] = NAN;
    std::vector<float> out(outer * inner);
    std::vector<double> mx(15), sm(15), mn(15), vr(15);
    for (int o = 0; o < outer; ++o)
        for (int t = 0; t < inner; ++t) {
            double m = -INFINITY, s = 0, q = 0;
            bool nan = false;
            for (int k = 0; k < n; ++k) {
                double v = x[(o * n + k) * inner + t];
                nan |= std::isnan(v);
                m = std::max(m, v);
                s += v;
            }
            for (int k = 0; k < n; ++k) q += std::pow(x[(o * n + k) * inner + t] - s / n, 2);
            mx[o * inner + t] = nan ? NAN : m;
            sm[o * inner + t] = s;
            mn[o * inner + t] = s / n;
            vr[o * inner + t] = q / n;
        }
    emu::launch({1}, {64}, [&] { attn4j_reduce_max_f32(x.data(), out.data(), outer, n, inner); });
    check("reduce max over middle axis, NaN propagates", out, mx);
    emu::launch({1}, {64}, [&] { attn4j_reduce_sum_f32(x.data(), out.data(), outer, n, inner); });
    check("reduce sum", out, sm);
    emu::launch({1}, {64}, [&] { attn4j_reduce_mean_f32(x.data(), out.data(), outer, n, inner); });
    check("reduce mean", out, mn);
    emu::launch({1}, {64}, [&] { attn4j_reduce_var_f32(x.data(), out.data(), outer, n, inner); });
    check("reduce population variance", out, vr);
}

static void test_norm() {
    int B = 2, L = 5, N = 7;
    auto x = randn(B * L * N), add = randn(L * N);
    std::vector<unsigned char> mask(B * N, 1);
    mask[0 * N + 6] = 0;
    for (int j = 0; j < N; ++j) mask[1 * N + j] = j < 3;
    x[(1 * L + 4) * N + 1] = NAN;
    std::vector<float> y(B * L * N);
    Attn4jShape s = shape_of({B, L, N});
    emu::launch({3}, {64}, [&] {
        attn4j_softmax_f32(x.data(), y.data(), B * L, N, 1, s, mask.data(), strides_of({N, 0, 1}), add.data(),
                           strides_of({0, N, 1}), 1, 0, 0, N);
    });
    std::vector<double> want(B * L * N);
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < L; ++i) {
            std::vector<double> l(N);
            double m = -INFINITY, sum = 0;
            bool nan = false;
            for (int j = 0; j < N; ++j) {
                double v = (double) x[(b * L + i) * N + j] + add[i * N + j];
                if (!mask[b * N + j] || j > i) v = -INFINITY;
                nan |= std::isnan(v);
                l[j] = v;
                m = std::max(m, v);
            }
            for (int j = 0; j < N; ++j) sum += std::exp(l[j] - m);
            for (int j = 0; j < N; ++j)
                want[(b * L + i) * N + j] = nan ? NAN : m == -INFINITY ? 0.0 : std::exp(l[j] - m) / sum;
        }
    check("softmax with key mask, additive mask, causal, NaN row", y, want);

    std::vector<float> allMasked = {-INFINITY, -INFINITY, -INFINITY}, z(3, 1.0f);
    emu::launch({1}, {32}, [&] {
        attn4j_softmax_f32(allMasked.data(), z.data(), 1, 3, 1, shape_of({3}), nullptr, {}, nullptr, {}, 0, 0, 0, 3);
    });
    check("softmax of an all -inf row is zeros", z, {0, 0, 0});

    int outer = 2, n = 4, inner = 3;
    auto u = randn(outer * n * inner);
    std::vector<float> v(u.size());
    emu::launch({2}, {32}, [&] {
        attn4j_softmax_f32(u.data(), v.data(), outer, n, inner, shape_of({outer, n, inner}), nullptr, {}, nullptr,
                           {}, 0, 0, 0, n);
    });
    std::vector<double> vw(u.size());
    for (int o = 0; o < outer; ++o)
        for (int t = 0; t < inner; ++t) {
            double m = -INFINITY, sum = 0;
            for (int k = 0; k < n; ++k) m = std::max(m, (double) u[(o * n + k) * inner + t]);
            for (int k = 0; k < n; ++k) sum += std::exp(u[(o * n + k) * inner + t] - m);
            for (int k = 0; k < n; ++k) vw[(o * n + k) * inner + t] = std::exp(u[(o * n + k) * inner + t] - m) / sum;
        }
    check("softmax over a middle axis", v, vw);

    // the weights of decoding: Lq = 3 rows at the end of keys = 40 of Lk = 45, bottom-right, window 9
    int lq = 3, lk = 45, keys = 40, window = 9, shift = keys - lq;
    auto dx = randn(2 * lq * lk);
    std::vector<float> dy(dx.size());
    emu::launch({4}, {64}, [&] {
        attn4j_softmax_f32(dx.data(), dy.data(), 2 * lq, lk, 1, shape_of({2, lq, lk}), nullptr, {}, nullptr, {}, 1,
                           shift, window, keys);
    });
    std::vector<double> dw(dx.size());
    for (int r = 0; r < 2 * lq; ++r) {
        int p = r % lq + shift;
        double m = -INFINITY, sum = 0;
        for (int j = p - window + 1; j <= p; ++j) m = std::max(m, (double) dx[r * lk + j]);
        for (int j = p - window + 1; j <= p; ++j) sum += std::exp(dx[r * lk + j] - m);
        for (int j = p - window + 1; j <= p; ++j) dw[r * lk + j] = std::exp(dx[r * lk + j] - m) / sum;
    }
    check("softmax bottom-right causal, window 9, keys 40 of 45", dy, dw);

    int rows = 3, d = 300;
    auto h = randn(rows * d), gamma = randn(d), beta = randn(d);
    std::vector<float> ln(rows * d), lnPlain(rows * d);
    emu::launch({2}, {256}, [&] {
        attn4j_layer_norm_f32(h.data(), nullptr, gamma.data(), beta.data(), ln.data(), rows, d, 1e-5f);
    });
    emu::launch({2}, {256}, [&] { attn4j_layer_norm_f32(h.data(), nullptr, nullptr, nullptr, lnPlain.data(), rows, d, 1e-5f); });
    std::vector<double> lw(rows * d), lp(rows * d);
    for (int r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (int c = 0; c < d; ++c) mean += h[r * d + c];
        mean /= d;
        for (int c = 0; c < d; ++c) var += std::pow(h[r * d + c] - mean, 2);
        var /= d;
        for (int c = 0; c < d; ++c) {
            double nrm = (h[r * d + c] - mean) / std::sqrt(var + 1e-5);
            lp[r * d + c] = nrm;
            lw[r * d + c] = nrm * gamma[c] + beta[c];
        }
    }
    check("layer norm with gamma and beta", ln, lw);
    check("layer norm without gamma and beta", lnPlain, lp);

    std::vector<float> far(64), farOut(64);
    std::vector<double> farWant(64);
    auto noise = randn(64);
    double fm = 0, fv = 0;
    for (int c = 0; c < 64; ++c) fm += far[c] = 1000.0f + noise[c];
    fm /= 64;
    for (int c = 0; c < 64; ++c) fv += std::pow(far[c] - fm, 2);
    fv /= 64;
    for (int c = 0; c < 64; ++c) farWant[c] = (far[c] - fm) / std::sqrt(fv + 1e-5);
    emu::launch({1}, {64}, [&] { attn4j_layer_norm_f32(far.data(), nullptr, nullptr, nullptr, farOut.data(), 1, 64, 1e-5f); });
    check("layer norm of a row near 1000 (the TCK allows 1e-4)", farOut, farWant, 1e-5);

    std::vector<float> huge(64), hugeOut(64);
    std::vector<double> hugeWant(64);
    double hm = 0, hv = 0;
    for (int c = 0; c < 64; ++c) hm += huge[c] = 1e20f * noise[c];
    hm /= 64;
    for (int c = 0; c < 64; ++c) hv += std::pow(huge[c] - hm, 2);
    hv /= 64;
    for (int c = 0; c < 64; ++c) hugeWant[c] = (huge[c] - hm) / std::sqrt(hv + 1e-5);
    emu::launch({1}, {64}, [&] { attn4j_layer_norm_f32(huge.data(), nullptr, nullptr, nullptr, hugeOut.data(), 1, 64, 1e-5f); });
    check("layer norm of a row of entries near 1e20, whose squares overflow F32", hugeOut, hugeWant);
}

static void test_gemm() {
    int M = 70, N = 45, K = 33;
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            // batch dims [2, 3]: A varies over dim 0 only, B over dim 1 only
            auto A = randn(2 * M * K), B = randn(3 * K * N);
            std::vector<float> C(6 * M * N);
            Attn4jShape batch = shape_of({2, 3});
            auto grid = dim3{(unsigned) ((N + 63) / 64), (unsigned) ((M + 63) / 64), 4};
            emu::launch(grid, {256}, [&] {
                attn4j_gemm_f32(A.data(), B.data(), C.data(), M, N, K, ta, tb, 0.5f, batch,
                                strides_of({M * K, 0}), strides_of({0, K * N}), 6);
            });
            std::vector<double> want(6 * M * N);
            for (int b0 = 0; b0 < 2; ++b0)
                for (int b1 = 0; b1 < 3; ++b1)
                    for (int m = 0; m < M; ++m)
                        for (int n = 0; n < N; ++n) {
                            double s = 0;
                            for (int k = 0; k < K; ++k) {
                                double a = ta ? A[b0 * M * K + k * M + m] : A[b0 * M * K + m * K + k];
                                double bb = tb ? B[b1 * K * N + n * K + k] : B[b1 * K * N + k * N + n];
                                s += a * bb;
                            }
                            want[((b0 * 3 + b1) * M + m) * N + n] = 0.5 * s;
                        }
            check("gemm transA=" + std::to_string(ta) + " transB=" + std::to_string(tb) +
                      " broadcast batch, alpha, z-loop", C, want);
        }
}

struct AttnCase {
    std::string name;
    std::vector<int> lead;
    int lq, lk, dk, dv, warps;
    bool causal;
    float scale;
    bool boolMask, addMask;
    double p;
    bool nanQ;
    float softcap = 0.0f;
};

static void test_attention(const AttnCase& c) {
    int bh = 1;
    for (int d : c.lead) bh *= d;
    auto q = randn((size_t) bh * c.lq * c.dk), k = randn((size_t) bh * c.lk * c.dk), v = randn((size_t) bh * c.lk * c.dv);
    if (c.nanQ) q[(size_t) c.dk * 1 + 2] = NAN;
    std::vector<int> full = c.lead;
    full.push_back(c.lq);
    full.push_back(c.lk);
    int rank = (int) full.size();
    // boolean key-padding mask [lead0, 1, ..., 1, Lk]: lead0 index 1 is fully masked, others keep a prefix
    std::vector<unsigned char> mask((size_t) c.lead[0] * c.lk);
    for (int b = 0; b < c.lead[0]; ++b)
        for (int j = 0; j < c.lk; ++j) mask[b * c.lk + j] = b == 1 ? 0 : j < c.lk - b - 1;
    std::vector<int> ms(8, 0), as(8, 0);
    ms[0] = c.lk;
    ms[rank - 1] = 1;
    // additive mask [Lq, Lk]
    auto add = randn((size_t) c.lq * c.lk);
    as[rank - 2] = c.lk;
    as[rank - 1] = 1;
    std::vector<float> out((size_t) bh * c.lq * c.dv, 7.0f);
    int bm = 4 * c.warps;
    int qBlocks = (c.lq + bm - 1) / bm;
    float keep = c.p < 1 ? (float) (1 / (1 - c.p)) : 0.0f;
    uint64_t seed = 1234567;
    emu::launch({(unsigned) (bh * qBlocks)}, {(unsigned) (32 * c.warps)}, [&] {
        attn4j_flash_attention_f32(q.data(), k.data(), v.data(), out.data(), contiguous(bh, c.lq, c.dk),
                                   contiguous(bh, c.lk, c.dk), contiguous(bh, c.lk, c.dv), contiguous(bh, c.lq, c.dv),
                                   c.lq, c.lk, c.lk, c.dk, c.dv, 1, c.scale, c.softcap, shape_of(full),
                                   c.boolMask ? mask.data() : nullptr, strides_of(ms),
                                   c.addMask ? add.data() : nullptr, strides_of(as), c.causal, 0, 0, seed, c.p,
                                   keep);
    });
    std::vector<double> want((size_t) bh * c.lq * c.dv);
    int inner = bh / c.lead[0];
    for (int b = 0; b < bh; ++b)
        for (int i = 0; i < c.lq; ++i) {
            std::vector<double> l(c.lk), w(c.lk);
            double m = -INFINITY, sum = 0;
            bool nan = false;
            for (int j = 0; j < c.lk; ++j) {
                double s = 0;
                for (int t = 0; t < c.dk; ++t)
                    s += (double) q[((size_t) b * c.lq + i) * c.dk + t] * k[((size_t) b * c.lk + j) * c.dk + t];
                s *= c.scale;
                if (c.softcap > 0) s = c.softcap * std::tanh(s / c.softcap);
                if (c.addMask) s += add[i * c.lk + j];
                if (c.boolMask && !mask[(b / inner) * c.lk + j]) s = -INFINITY;
                if (c.causal && j > i) s = -INFINITY;
                nan |= std::isnan(s);
                l[j] = s;
                m = std::max(m, s);
            }
            for (int j = 0; j < c.lk; ++j) sum += l[j] == -INFINITY ? 0 : std::exp(l[j] - m);
            for (int j = 0; j < c.lk; ++j) {
                w[j] = nan ? NAN : m == -INFINITY ? 0.0 : (l[j] == -INFINITY ? 0 : std::exp(l[j] - m)) / sum;
                if (c.p > 0) {
                    uint64_t flat = ((uint64_t) b * c.lq + i) * c.lk + j;
                    w[j] = dropout_u(seed, flat) >= c.p ? w[j] / (1 - c.p) : 0.0;
                }
            }
            for (int t = 0; t < c.dv; ++t) {
                double o = 0;
                for (int j = 0; j < c.lk; ++j) o += w[j] * v[((size_t) b * c.lk + j) * c.dv + t];
                want[((size_t) b * c.lq + i) * c.dv + t] = o;
            }
        }
    check("attention " + c.name, out, want, 5e-5);
}

// Decoding-shaped attention: q [B, H, Lq, D], k and v [B, H / group, Lk, D] of which the first `keys` exist,
// causal aligned top-left or bottom-right, a sliding window, a key-padding mask [B, 1, 1, Lk] (batch 1 fully
// masked when allMasked), an additive mask [1, H, Lq, Lk], dropout, NaN in one query row. With splits > 0 the
// flash-decoding pair runs with that many key splits of ceil(tiles / splits) tiles, else the fused kernel.
struct DecodeCase {
    std::string name;
    int batch, kvHeads, group, lq, lk, keys, d, warps;
    bool causal, bottomRight;
    int window;
    bool boolMask, addMask, allMasked;
    double p;
    bool nanQ;
    int splits;
    float softcap = 0.0f;
};

static void test_decode(const DecodeCase& c) {
    const int heads = c.kvHeads * c.group, bh = c.batch * heads, bkv = c.batch * c.kvHeads;
    auto q = randn((size_t) bh * c.lq * c.d), k = randn((size_t) bkv * c.lk * c.d), v = randn((size_t) bkv * c.lk * c.d);
    for (size_t e = (size_t) bkv * c.keys * c.d; e < k.size(); ++e) k[e] = v[e] = NAN;  // unused capacity
    if (c.nanQ) q[(size_t) c.d * (c.lq > 1 ? 1 : 0) + 3] = NAN;
    std::vector<unsigned char> mask((size_t) c.batch * c.lk);
    for (int b = 0; b < c.batch; ++b)
        for (int j = 0; j < c.lk; ++j) mask[b * c.lk + j] = !(c.allMasked && b == 1) && (j % 7 != 3);
    auto add = randn((size_t) heads * c.lq * c.lk);
    const int shift = c.bottomRight ? c.keys - c.lq : 0;
    const float scale = 1.0f / std::sqrt((float) c.d);
    const float keep = c.p < 1 ? (float) (1 / (1 - c.p)) : 0.0f;
    const uint64_t seed = 99;
    Attn4jShape ms = shape_of({c.batch, heads, c.lq, c.lk});
    Attn4jStrides mst = strides_of({c.lk, 0, 0, 1}), ast = strides_of({0, c.lq * c.lk, c.lk, 1});
    const unsigned char* mp = c.boolMask ? mask.data() : nullptr;
    const float* ap = c.addMask ? add.data() : nullptr;
    const int rows = bh * c.lq, bm = 4 * c.warps, rowBlocks = (c.group * c.lq + bm - 1) / bm;
    std::vector<float> out((size_t) rows * c.d, 7.0f);
    dim3 block{(unsigned) (32 * c.warps)};
    if (c.splits > 0) {
        const int tiles = (c.keys + 31) / 32, splitTiles = (tiles + c.splits - 1) / c.splits;
        std::vector<float> partial((size_t) c.splits * rows * c.d, 5.0f), stats((size_t) c.splits * rows * 2, 5.0f);
        emu::launch({(unsigned) (bkv * rowBlocks), (unsigned) c.splits}, block, [&] {
            attn4j_flash_decode_f32(q.data(), k.data(), v.data(), partial.data(), stats.data(),
                                    contiguous(bh, c.lq, c.d), contiguous(bkv, c.lk, c.d), contiguous(bkv, c.lk, c.d),
                                    c.lq, c.lk, c.keys, c.d, c.d, c.group, scale, c.softcap, ms, mp, mst, ap, ast,
                                    c.causal, shift, c.window, seed, c.p, splitTiles);
        });
        emu::launch({(unsigned) ((rows + 7) / 8)}, {256}, [&] {
            attn4j_flash_decode_merge_f32(partial.data(), stats.data(), out.data(), contiguous(bh, c.lq, c.d), rows,
                                          c.lq, c.d, c.splits, keep);
        });
    } else {
        emu::launch({(unsigned) (bkv * rowBlocks)}, block, [&] {
            attn4j_flash_attention_f32(q.data(), k.data(), v.data(), out.data(), contiguous(bh, c.lq, c.d),
                                       contiguous(bkv, c.lk, c.d), contiguous(bkv, c.lk, c.d),
                                       contiguous(bh, c.lq, c.d), c.lq, c.lk, c.keys, c.d, c.d, c.group, scale,
                                       c.softcap, ms, mp, mst, ap, ast, c.causal, shift, c.window, seed, c.p, keep);
        });
    }
    std::vector<double> want((size_t) rows * c.d);
    for (int b = 0; b < bh; ++b) {
        const int kvb = b / c.group, h = b % heads, batch = b / heads;
        for (int i = 0; i < c.lq; ++i) {
            std::vector<double> l(c.keys, -INFINITY), w(c.keys, 0.0);
            double m = -INFINITY, sum = 0;
            bool nan = false;
            const long long at = (long long) i + shift;
            for (int j = 0; j < c.keys; ++j) {
                bool seen = (!c.causal || j <= at) && (c.window <= 0 || j > at - c.window);
                if (c.boolMask && !mask[batch * c.lk + j]) seen = false;
                if (!seen) continue;
                double s = 0;
                for (int t = 0; t < c.d; ++t)
                    s += (double) q[((size_t) b * c.lq + i) * c.d + t] * k[((size_t) kvb * c.lk + j) * c.d + t];
                s *= scale;
                if (c.softcap > 0) s = c.softcap * std::tanh(s / c.softcap);
                s += c.addMask ? add[((size_t) h * c.lq + i) * c.lk + j] : 0.0;
                nan |= std::isnan(s);
                l[j] = s;
                m = std::max(m, s);
            }
            for (int j = 0; j < c.keys; ++j) sum += l[j] == -INFINITY ? 0 : std::exp(l[j] - m);
            for (int j = 0; j < c.keys; ++j) {
                w[j] = nan ? NAN : m == -INFINITY ? 0.0 : (l[j] == -INFINITY ? 0 : std::exp(l[j] - m)) / sum;
                if (c.p > 0 && dropout_u(seed, ((uint64_t) b * c.lq + i) * c.lk + j) < c.p) w[j] = 0;
                else if (c.p > 0) w[j] /= 1 - c.p;
            }
            for (int t = 0; t < c.d; ++t) {
                double o = 0;
                for (int j = 0; j < c.keys; ++j)
                    if (w[j] != 0 || std::isnan(w[j])) o += w[j] * v[((size_t) kvb * c.lk + j) * c.d + t];
                want[((size_t) b * c.lq + i) * c.d + t] = o;
            }
        }
    }
    check((c.splits > 0 ? "decode " + std::to_string(c.splits) + " splits " : std::string("fused ")) + c.name, out,
          want, 5e-5);
}

static void test_rows_ops() {
    int rows = 5, d = 300;
    auto x = randn(rows * d), w = randn(d);
    x[2 * d] = 1e20f;  // a row whose squares overflow F32
    x[4 * d + 7] = NAN;
    std::vector<float> y(rows * d), yPlain(rows * d);
    emu::launch({2}, {256}, [&] { attn4j_rms_norm_f32(x.data(), nullptr, w.data(), y.data(), rows, d, 1e-6f); });
    emu::launch({3}, {128}, [&] { attn4j_rms_norm_f32(x.data(), nullptr, nullptr, yPlain.data(), rows, d, 1e-6f); });
    std::vector<double> rw(rows * d), rp(rows * d);
    for (int r = 0; r < rows; ++r) {
        double big = 0, ms = 0;
        for (int c = 0; c < d; ++c) big = std::max(big, std::fabs((double) x[r * d + c]));
        for (int c = 0; c < d; ++c) ms += std::pow(x[r * d + c] / big, 2);
        double rstd = 1 / (big * std::sqrt(ms / d + 1e-6 / (big * big)));
        for (int c = 0; c < d; ++c) {
            rp[r * d + c] = x[r * d + c] * rstd;
            rw[r * d + c] = rp[r * d + c] * w[c];
        }
        if (std::isnan(big) || r == 4)
            for (int c = 0; c < d; ++c) rp[r * d + c] = rw[r * d + c] = NAN;
    }
    check("rms norm with weight, a row near 1e20, a NaN row", y, rw);
    check("rms norm without weight", yPlain, rp);

    std::vector<float> sx = {-80.0f, -20.0f, -1.5f, -0.0f, 0.0f, 0.75f, 3.0f, 50.0f, NAN, INFINITY}, sy(10);
    std::vector<double> sw(10);
    for (int i = 0; i < 10; ++i) sw[i] = sx[i] / (1 + std::exp(-(double) sx[i]));
    sw[9] = INFINITY;
    emu::launch({1}, {32}, [&] { attn4j_silu_f32(sx.data(), sy.data(), 10); });
    check("silu (e^80 overflows F32: -0 for -80)", sy, sw, 1e-6);

    // the original embedding over every feature, and a partial one (20 of 32 features) with scaled frequencies
    // and an attention scaling, as YaRN and LongRoPE give
    for (int partial = 0; partial < 2; ++partial)
        for (int interleaved = 0; interleaved < 2; ++interleaved) {
            int outer = 3, L = 5, D = partial ? 32 : 64, pairs = partial ? 10 : 32, offset = 17;
            double base = 10000, scaling = partial ? 1.1386 : 1.0;
            std::vector<double> freq(pairs);
            for (int t = 0; t < pairs; ++t)
                freq[t] = std::pow(base, -2.0 * t / (2 * pairs)) / (partial && t > 4 ? 8.0 : 1.0);
            auto rx = randn(outer * L * D);
            std::vector<float> ry(rx.size(), 7.0f);
            emu::launch({2}, {64}, [&] {
                attn4j_rope_f32(rx.data(), ry.data(), outer, L, D, pairs, interleaved, freq.data(), scaling, offset);
            });
            std::vector<double> want(rx.begin(), rx.end());
            for (int o = 0; o < outer; ++o)
                for (int p = 0; p < L; ++p)
                    for (int t = 0; t < pairs; ++t) {
                        double th = (offset + p) * freq[t], cs = scaling * std::cos(th), sn = scaling * std::sin(th);
                        size_t row = ((size_t) o * L + p) * D;
                        size_t ia = interleaved ? 2 * t : t, ib = interleaved ? 2 * t + 1 : t + pairs;
                        want[row + ia] = rx[row + ia] * cs - rx[row + ib] * sn;
                        want[row + ib] = rx[row + ib] * cs + rx[row + ia] * sn;
                    }
            check(std::string("rope ") + (interleaved ? "interleaved" : "half-split") +
                      (partial ? ", 20 of 32 features, scaled frequencies, attention scaling 1.1386" : "") +
                      ", offset 17", ry, want, 2e-6);
        }

    std::vector<float> cx = {-1e30f, -200.0f, -30.0f, -1.0f, -1e-6f, 0.0f, 1e-6f, 0.5f, 45.0f, 300.0f, NAN,
                             INFINITY, -INFINITY}, cy(13);
    std::vector<double> cw(13);
    for (int i = 0; i < 13; ++i) cw[i] = 30.0 * std::tanh(cx[i] / 30.0);
    emu::launch({1}, {32}, [&] { attn4j_softcap_f32(cx.data(), cy.data(), 30.0f, 13); });
    check("softcap 30 of -1e30 .. 300, NaN and infinities", cy, cw, 1e-6, true);
    emu::launch({1}, {32}, [&] { attn4j_softcap_f32(cx.data(), cx.data(), 30.0f, 13); });
    check("softcap in place", cx, cw, 1e-6, true);
}

// ---- weights.cu: every storage type, both linear kernels, the epilogues, the gather ----

static double half_value(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? std::ldexp((double) m, -24) : std::ldexp((double) (1024 + m), e - 25);
    return h >> 15 ? -v : v;
}

static double bf16_value(uint16_t b) {
    uint32_t u = (uint32_t) b << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

enum { W_F32, W_F16, W_BF16, W_Q8_0, W_Q4_0, W_Q4_K, W_Q6_K };
static const char* TYPE_NAMES[] = {"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_K", "Q6_K"};

// A weight in the device layout of weights.cu with random bits, and its values decoded independently in double.
struct DeviceWeight {
    int type, rows, k;
    std::vector<uint8_t> values;
    std::vector<uint16_t> scales;
    std::vector<double> decoded;
};

// Random binary16 bits of a normal number 2^(e - 15) (1 + m / 1024) with e in [lo, hi], and now and then a
// subnormal or a zero.
static uint16_t random_half(int lo, int hi) {
    uint32_t r = rng();
    if (r % 53 == 0) return (uint16_t) ((r >> 8) & 0x83ffu);
    return (uint16_t) (((r >> 31) << 15) | ((lo + (int) ((r >> 10) % (uint32_t) (hi - lo + 1))) << 10) | (r & 1023u));
}

static DeviceWeight random_weight(int type, int rows, int k) {
    DeviceWeight w{type, rows, k, {}, {}, std::vector<double>((size_t) rows * k)};
    const size_t n = (size_t) rows * k;
    const double spread = 1.0 / std::sqrt((double) k);
    if (type == W_F32) {
        auto f = randn(n);
        for (auto& v : f) v = (float) (v * spread);
        w.values.resize(4 * n);
        std::memcpy(w.values.data(), f.data(), 4 * n);
        for (size_t i = 0; i < n; ++i) w.decoded[i] = f[i];
    } else if (type == W_F16 || type == W_BF16) {
        w.values.resize(2 * n);
        for (size_t i = 0; i < n; ++i) {
            uint16_t h = type == W_F16 ? random_half(9, 15)
                                       : (uint16_t) (((rng() & 1u) << 15) | ((118u + rng() % 8u) << 7) | (rng() & 127u));
            std::memcpy(&w.values[2 * i], &h, 2);
            w.decoded[i] = type == W_F16 ? half_value(h) : bf16_value(h);
        }
    } else if (type == W_Q4_K || type == W_Q6_K) {
        // GGUF's super-blocks of 256 as they are: random bytes, binary16 d (and dmin) where ggml keeps them, small
        // enough (2^-14 to 2^-12) that the up to 63 · 15 (Q4_K) or 127 · 32 (Q6_K) multiples stay near 1/sqrt(K)
        const size_t bytes = type == W_Q4_K ? 144 : 210;
        w.values.resize(n / 256 * bytes);
        for (auto& b : w.values) b = (uint8_t) rng();
        for (size_t block = 0; block < n / 256; ++block) {
            uint8_t* b = &w.values[block * bytes];
            const uint16_t d = random_half(1, 2), dmin = random_half(1, 2);
            std::memcpy(b + (type == W_Q4_K ? 0 : 208), &d, 2);
            if (type == W_Q4_K) std::memcpy(b + 2, &dmin, 2);
            for (int e = 0; e < 256; ++e) {
                double v;
                if (type == W_Q4_K) {
                    // dequantize_row_q4_K: group j of 32 has a 6-bit scale and minimum packed in b[4..15]
                    const uint8_t* s = b + 4;
                    const int j = e / 32;
                    const int sc = j < 4 ? s[j] & 63 : (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
                    const int m = j < 4 ? s[j + 4] & 63 : (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
                    const int q = (b[16 + 32 * (e / 64) + e % 32] >> (j % 2 == 0 ? 0 : 4)) & 15;
                    v = (float) (half_value(d) * sc * q - half_value(dmin) * m);
                } else {
                    // dequantize_row_q6_K: 4 low bits in b[0..127], 2 high bits in b[128..191], int8 scales per 16
                    const int half = e / 128, l = e % 128;
                    const int lo = (b[64 * half + l % 64] >> (l < 64 ? 0 : 4)) & 15;
                    const int hi = (b[128 + 32 * half + l % 32] >> (2 * (l / 32))) & 3;
                    v = (float) (half_value(d) * (int8_t) b[192 + e / 16] * ((lo | (hi << 4)) - 32));
                }
                w.decoded[block * 256 + e] = v;
            }
        }
    } else {
        w.scales.resize(n / 32);
        for (auto& d : w.scales) d = random_half(3, 6);
        w.values.resize(type == W_Q8_0 ? n : n / 2);
        for (auto& b : w.values) b = (uint8_t) rng();
        for (size_t i = 0; i < n; ++i) {
            const size_t block = i / 32, j = i % 32;
            int q;
            if (type == W_Q8_0) {
                q = (int8_t) w.values[i];
            } else {
                uint8_t byte = w.values[block * 16 + j % 16];
                q = (j < 16 ? byte & 15 : byte >> 4) - 8;
            }
            w.decoded[i] = q * half_value(w.scales[block]);
        }
    }
    return w;
}

using LinearKernel = void (*)(const float*, const void*, const unsigned short*, const float*, const float*, float*,
                              int, int, int, int, int);
static const LinearKernel GEMV[] = {attn4j_linear_gemv_f32, attn4j_linear_gemv_f16, attn4j_linear_gemv_bf16,
                                    attn4j_linear_gemv_q8_0, attn4j_linear_gemv_q4_0, attn4j_linear_gemv_q4_k,
                                    attn4j_linear_gemv_q6_k};
static const LinearKernel TILED[] = {attn4j_linear_tiled_f32, attn4j_linear_tiled_f16, attn4j_linear_tiled_bf16,
                                     attn4j_linear_tiled_q8_0, attn4j_linear_tiled_q4_0, attn4j_linear_tiled_q4_k,
                                     attn4j_linear_tiled_q6_k};
using GatherKernel = void (*)(const void*, const unsigned short*, const int*, float*, int, int);
static const GatherKernel GATHER[] = {attn4j_gather_f32, attn4j_gather_f16, attn4j_gather_bf16, attn4j_gather_q8_0,
                                      attn4j_gather_q4_0, attn4j_gather_q4_k, attn4j_gather_q6_k};

static double activate(int act, double v) {
    switch (act) {
        case ATTN4J_ACT_RELU: return std::isnan(v) ? v : std::max(v, 0.0);
        case ATTN4J_ACT_GELU: return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
        case ATTN4J_ACT_GELU_TANH: return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
        case ATTN4J_ACT_SILU: return v / (1 + std::exp(-v));
        default: return v;
    }
}

// linear over one storage type: M rows of x [M, K] (K columns of the weight), N outputs (2N weight rows when
// gated); the GEMV kernel for M <= 8 (the host's grid of ceil(N / 8) blocks of 256 threads, or with `strided` one
// block of two warps striding over the columns), the tiled one beyond, against the double reference of the decoded
// weight.
static void test_linear(int type, int M, int N, int K, bool gated, int act, bool bias, bool residual,
                        bool strided = true) {
    DeviceWeight w = random_weight(type, gated ? 2 * N : N, K);
    auto x = randn((size_t) M * K), b = randn(gated ? 2 * N : N), r = randn((size_t) M * N);
    std::vector<float> out((size_t) M * N, 7.0f);
    const unsigned short* scales = w.scales.empty() ? nullptr : w.scales.data();
    const bool gemv = M <= 8;
    if (gemv) {
        emu::launch({strided ? 1u : (unsigned) ((N + 7) / 8)}, {strided ? 64u : 256u}, [&] {
            GEMV[type](x.data(), w.values.data(), scales, bias ? b.data() : nullptr, residual ? r.data() : nullptr,
                       out.data(), M, N, K, gated, act);
        });
    } else {
        emu::launch({(unsigned) ((N + 63) / 64), (unsigned) ((M + 63) / 64)}, {256}, [&] {
            TILED[type](x.data(), w.values.data(), scales, bias ? b.data() : nullptr, residual ? r.data() : nullptr,
                        out.data(), M, N, K, gated, act);
        });
    }
    std::vector<double> want((size_t) M * N);
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            double g = bias ? b[n] : 0, u = bias && gated ? b[N + n] : 0;
            for (int c = 0; c < K; ++c) {
                g += (double) x[(size_t) m * K + c] * w.decoded[(size_t) n * K + c];
                if (gated) u += (double) x[(size_t) m * K + c] * w.decoded[(size_t) (N + n) * K + c];
            }
            double v = activate(act, g) * (gated ? u : 1.0);
            want[(size_t) m * N + n] = v + (residual ? r[(size_t) m * N + n] : 0.0);
        }
    static const char* ACTS[] = {"identity", "relu", "gelu", "gelu_tanh", "silu"};
    check(std::string("linear ") + (gemv ? "gemv " : "tiled ") + TYPE_NAMES[type] + " M=" + std::to_string(M) +
              " N=" + std::to_string(N) + " K=" + std::to_string(K) + " " + ACTS[act] + (gated ? " gated" : "") +
              (bias ? " bias" : "") + (residual ? " residual" : ""),
          out, want, 2e-5);
}

static void test_weights() {
    for (int type = W_F32; type <= W_Q6_K; ++type) {
        const bool quantized = type >= W_Q8_0;
        const bool super = type >= W_Q4_K;
        // K = 96: lanes past K in the last 128-column step; 160: five blocks; 99 (float types): no vector loads;
        // 256 and 768: one and three super-blocks
        std::vector<int> ks = super ? std::vector<int>{256, 768}
                              : quantized ? std::vector<int>{96, 160} : std::vector<int>{96, 99};
        for (int k : ks) {
            test_linear(type, 1, 45, k, false, ATTN4J_ACT_GELU, true, false, false);
            test_linear(type, 3, 13, k, true, ATTN4J_ACT_SILU, false, true);
            test_linear(type, 8, 45, k, false, ATTN4J_ACT_IDENTITY, true, true);
            test_linear(type, 9, 45, k, true, ATTN4J_ACT_GELU_TANH, true, true);
            test_linear(type, 70, 67, k, false, ATTN4J_ACT_RELU, false, false);
        }
        DeviceWeight table = random_weight(type, 11, super ? 256 : quantized ? 64 : 36);
        std::vector<int> ids = {10, 0, 3, 3, 7};
        std::vector<float> out(ids.size() * table.k, 7.0f);
        emu::launch({1}, {256}, [&] {
            GATHER[type](table.values.data(), table.scales.empty() ? nullptr : table.scales.data(), ids.data(),
                         out.data(), (int) ids.size(), table.k);
        });
        std::vector<double> want(out.size());
        for (size_t t = 0; t < ids.size(); ++t)
            for (int c = 0; c < table.k; ++c) want[t * table.k + c] = table.decoded[(size_t) ids[t] * table.k + c];
        check(std::string("gather ") + TYPE_NAMES[type] + " rows with repeats and both ends", out, want, 0.0);
    }
}

// ---- norm.cu: the residual added inside layer norm and RMS norm ----

static void test_norms_with_residual() {
    int rows = 4, d = 300;
    auto x = randn(rows * d), r = randn(rows * d), g = randn(d), b = randn(d);
    x[2 * d + 5] = 1e20f;  // a sum whose squares overflow F32
    std::vector<float> ln(rows * d), rms(rows * d);
    emu::launch({2}, {256}, [&] {
        attn4j_layer_norm_f32(x.data(), r.data(), g.data(), b.data(), ln.data(), rows, d, 1e-5f);
    });
    emu::launch({3}, {128}, [&] { attn4j_rms_norm_f32(x.data(), r.data(), g.data(), rms.data(), rows, d, 1e-6f); });
    std::vector<double> lw(rows * d), rw(rows * d);
    for (int i = 0; i < rows; ++i) {
        std::vector<double> s(d);
        double mean = 0, var = 0, ms = 0;
        for (int c = 0; c < d; ++c) s[c] = (double) (x[i * d + c] + r[i * d + c]), mean += s[c] / d;
        for (int c = 0; c < d; ++c) var += (s[c] - mean) * (s[c] - mean) / d, ms += s[c] * s[c] / d;
        for (int c = 0; c < d; ++c) {
            lw[i * d + c] = (s[c] - mean) / std::sqrt(var + 1e-5) * g[c] + b[c];
            rw[i * d + c] = s[c] / std::sqrt(ms + 1e-6) * g[c];
        }
    }
    check("layer norm of x + residual, a row near 1e20", ln, lw);
    check("rms norm of x + residual, a row near 1e20", rms, rw);
}

// ---- attention.cu: heads read in place from a packed projection [B, L, (H + 2 H_kv) d], out [B, L, H d] ----

static void test_packed_attention(int batch, int heads, int kvHeads, int length, int d, bool causal, int splits,
                                  int warps) {
    const int width = (heads + 2 * kvHeads) * d, group = heads / kvHeads, bh = batch * heads;
    auto qkv = randn((size_t) batch * length * width);
    std::vector<float> out((size_t) batch * length * heads * d, 7.0f);
    Attn4jRows qRows{0, heads, length * width, d, width}, kRows{heads * d, kvHeads, length * width, d, width};
    Attn4jRows vRows{(heads + kvHeads) * d, kvHeads, length * width, d, width};
    Attn4jRows oRows{0, heads, length * heads * d, d, heads * d};
    const float scale = 1.0f / std::sqrt((float) d);
    Attn4jShape ms = shape_of({batch, heads, length, length});
    const int rowBlocks = (group * length + 4 * warps - 1) / (4 * warps);
    dim3 grid{(unsigned) (batch * kvHeads * rowBlocks)};
    if (splits > 0) {
        const int tiles = (length + 31) / 32, splitTiles = (tiles + splits - 1) / splits;
        std::vector<float> partial((size_t) splits * bh * length * d), stats((size_t) splits * bh * length * 2);
        grid.y = splits;
        emu::launch(grid, {(unsigned) (32 * warps)}, [&] {
            attn4j_flash_decode_f32(qkv.data(), qkv.data(), qkv.data(), partial.data(), stats.data(), qRows, kRows,
                                    vRows, length, length, length, d, d, group, scale, 0.0f, ms, nullptr, {}, nullptr,
                                    {}, causal, 0, 0, 0, 0.0, splitTiles);
        });
        emu::launch({(unsigned) ((bh * length + 7) / 8)}, {256}, [&] {
            attn4j_flash_decode_merge_f32(partial.data(), stats.data(), out.data(), oRows, bh * length, length, d,
                                          splits, 1.0f);
        });
    } else {
        emu::launch(grid, {(unsigned) (32 * warps)}, [&] {
            attn4j_flash_attention_f32(qkv.data(), qkv.data(), qkv.data(), out.data(), qRows, kRows, vRows, oRows,
                                       length, length, length, d, d, group, scale, 0.0f, ms, nullptr, {}, nullptr,
                                       {}, causal, 0, 0, 0, 0.0, 1.0f);
        });
    }
    std::vector<double> want(out.size());
    for (int b = 0; b < batch; ++b)
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < length; ++i) {
                const float* q = &qkv[((size_t) b * length + i) * width + h * d];
                std::vector<double> l(length, -INFINITY);
                double m = -INFINITY, sum = 0;
                for (int j = 0; j < length && (!causal || j <= i); ++j) {
                    const float* k = &qkv[((size_t) b * length + j) * width + (heads + h / group) * d];
                    double s = 0;
                    for (int t = 0; t < d; ++t) s += (double) q[t] * k[t];
                    l[j] = s * scale;
                    m = std::max(m, l[j]);
                }
                for (int j = 0; j < length; ++j) sum += l[j] == -INFINITY ? 0 : std::exp(l[j] - m);
                for (int t = 0; t < d; ++t) {
                    double o = 0;
                    for (int j = 0; j < length; ++j)
                        if (l[j] != -INFINITY)
                            o += std::exp(l[j] - m) / sum *
                                 qkv[((size_t) b * length + j) * width + (heads + kvHeads + h / group) * d + t];
                    want[((size_t) b * length + i) * heads * d + h * d + t] = o;
                }
            }
    check("packed attention B=" + std::to_string(batch) + " H=" + std::to_string(heads) + " H_kv=" +
              std::to_string(kvHeads) + " L=" + std::to_string(length) + " d=" + std::to_string(d) +
              (causal ? " causal" : "") + (splits > 0 ? ", " + std::to_string(splits) + " key splits" : ", fused"),
          out, want, 5e-5);
}

int main() {
    test_elementwise();
    test_reduce();
    test_norm();
    test_gemm();
    std::vector<AttnCase> cases = {
        {"cross Lq=37 Lk=53 dk=24 dv=40", {2, 3}, 37, 53, 24, 40, 4, false, 0.2f, false, false, 0, false},
        {"causal square L=70 d=64", {1, 2}, 70, 70, 64, 64, 4, true, 0.125f, false, false, 0, false},
        {"causal Lq=40 > Lk=20", {1, 1}, 40, 20, 16, 16, 4, true, 0.25f, false, false, 0, false},
        {"key padding mask, one batch fully masked -> zeros", {3, 2}, 9, 33, 8, 8, 4, false, 0.3f, true, false, 0,
         false},
        {"additive mask and causal, scale 1", {2, 1}, 17, 17, 8, 12, 4, true, 1.0f, false, true, 0, false},
        {"dropout p=0.25 on the weights", {2, 2}, 21, 45, 16, 16, 4, false, 0.25f, false, false, 0.25, false},
        {"dropout p=1 gives zeros", {1, 1}, 5, 5, 4, 4, 4, false, 0.5f, false, false, 1.0, false},
        {"dk=dv=256 with 3 warps", {1, 2}, 13, 40, 256, 256, 3, true, 0.0625f, true, true, 0, false},
        {"dk=256 dv=64, 2 warps", {2, 1}, 11, 35, 256, 64, 2, false, 0.0625f, false, false, 0, false},
        {"single query and key", {1, 1}, 1, 1, 3, 5, 1, false, 0.5f, false, false, 0, false},
        {"causal Lq=7 < Lk=40 with key mask, 1 warp", {2, 1}, 7, 40, 8, 8, 1, true, 0.3f, true, false, 0, false},
        {"NaN in a query row makes that row NaN", {1, 1}, 6, 8, 4, 4, 1, false, 0.5f, false, false, 0, true},
        {"logit soft-cap 1.5 before additive and key masks, causal", {3, 2}, 19, 33, 16, 8, 2, true, 2.0f, true,
         true, 0, false, 1.5f},
    };
    for (const auto& c : cases) test_attention(c);
    test_rows_ops();
    //  name                                              B  Hkv g  Lq  Lk keys  d  W causal BR  win  bool  add  allM  p   nan splits
    std::vector<DecodeCase> decode = {
        {"MHA Lq=1 bottom-right, 1 warp", 1, 2, 1, 1, 300, 300, 64, 1, true, true, 0, false, false, false, 0, false, 4},
        {"uneven splits, keys < Lk (unused NaN capacity)", 2, 1, 1, 1, 300, 233, 64, 1, true, true, 0, false, false,
         false, 0, false, 3},
        {"GQA group 4 Lq=2 bottom-right", 1, 2, 4, 2, 260, 260, 128, 2, true, true, 0, true, true, false, 0, false, 5},
        {"GQA group 8 Lq=3 bottom-right, 4 warps", 1, 1, 8, 3, 200, 190, 64, 4, true, true, 0, false, true, false, 0,
         false, 2},
        {"GQA group 4 Lq=4 window 50", 1, 2, 4, 4, 257, 257, 64, 4, true, true, 50, false, false, false, 0, false, 4},
        {"MQA group 8 Lq=1, fully masked batch -> zeros", 2, 1, 8, 1, 130, 130, 64, 2, true, true, 0, true, false,
         true, 0, false, 3},
        {"NaN query row, group 4", 1, 1, 4, 2, 100, 100, 64, 2, true, true, 0, false, false, false, 0, true, 2},
        {"dropout p=0.2, group 4, Lq=2", 1, 2, 4, 2, 170, 170, 64, 2, true, true, 0, false, false, false, 0.2, false,
         3},
        {"dk=dv=256, group 4, Lq=1", 1, 1, 4, 1, 180, 180, 256, 1, true, true, 0, false, true, false, 0, false, 3},
        {"not causal Lq=3, more splits than tiles", 1, 2, 1, 3, 64, 64, 64, 1, false, false, 0, true, false, false, 0,
         false, 3},
        {"logit soft-cap 2, GQA group 2, window 70, additive mask", 1, 2, 2, 1, 240, 230, 64, 1, true, true, 70,
         true, true, false, 0, false, 3, 2.0f},
    };
    for (const auto& c : decode) test_decode(c);
    std::vector<DecodeCase> fused = {
        {"GQA group 4 Lq=Lk=40 causal", 1, 2, 4, 40, 40, 40, 64, 4, true, false, 0, true, true, false, 0, false, 0},
        {"GQA group 8 bottom-right Lq=20 Lk=70 window 16", 2, 1, 8, 20, 70, 70, 128, 4, true, true, 16, false, true,
         false, 0, false, 0},
        {"top-left Lq=30 keys=50 of Lk=64, dropout", 1, 1, 1, 30, 64, 50, 64, 2, true, false, 0, false, false, false,
         0.3, false, 0},
        {"bottom-right Lq=3 Lk=45, group 1", 1, 3, 1, 3, 45, 45, 64, 1, true, true, 0, true, false, false, 0, false,
         0},
        {"bottom-right Lq > keys: early rows see nothing", 1, 1, 2, 12, 16, 8, 64, 3, true, true, 0, false, false,
         false, 0, false, 0},
        {"logit soft-cap 0.5, GQA group 2 bottom-right window 6", 1, 2, 2, 9, 20, 20, 32, 2, true, true, 6, true,
         true, false, 0, false, 0, 0.5f},
    };
    for (const auto& c : fused) test_decode(c);
    test_weights();
    test_norms_with_residual();
    test_packed_attention(2, 4, 4, 37, 16, false, 0, 4);
    test_packed_attention(2, 4, 2, 40, 32, true, 0, 2);
    test_packed_attention(1, 8, 1, 12, 64, true, 0, 4);
    test_packed_attention(2, 4, 2, 70, 16, false, 3, 1);
    test_packed_attention(1, 4, 1, 9, 32, true, 2, 1);
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
