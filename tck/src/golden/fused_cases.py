"""Golden cases of the weight-reading and fused ops, imported by generate_goldens.py.

    linear(x, W, b, epilogue)   W stored as F32, F16, BF16, Q8_0 or Q4_0: the inputs hold W's values after that
                                storage (so a backend binds exactly them), the reference computes in float64:
        plain: act(x·Wᵀ + b) + residual
        gated: act(x·W_gᵀ + b_g) * (x·W_uᵀ + b_u) + residual        W = [W_g; W_u]
    embedding(table, ids)       the table stored likewise
    layerNorm(x, residual, ...) = layerNorm(x + residual, ...);  rmsNorm(x, residual, ...) likewise
    packedAttention(qkv, H, H_kv, options): attention over q, k, v cut from [B, L, (H + 2·H_kv)·d], heads side by side

Quantization follows GGUF's reference (quantize_row_q8_0_ref / quantize_row_q4_0_ref) in float32 arithmetic, the
scale stored as binary16 (round to nearest even), exactly as org.attn4j.api.WeightType.encode does.
"""
import numpy as np
import torch
import torch.nn.functional as F

WEIGHT_TYPES = ("F32", "F16", "BF16", "Q8_0", "Q4_0")


def stored(w, weight_type):
    """The values of float64 matrix w after storing them as weight_type, as float64."""
    if weight_type == "F32":
        return w.to(torch.float32).to(torch.float64)
    if weight_type == "F16":
        return w.to(torch.float16).to(torch.float64)
    if weight_type == "BF16":
        return w.to(torch.bfloat16).to(torch.float64)
    x = w.numpy().astype(np.float32).reshape(-1, 32)
    n = x.shape[0]
    if weight_type == "Q8_0":
        amax = np.abs(x).max(axis=1)
        d = (amax / np.float32(127.0)).astype(np.float32)
        inv = np.where(d != 0, np.float32(1.0) / np.where(d != 0, d, np.float32(1.0)), np.float32(0.0))
        v = (x * inv.astype(np.float32)[:, None]).astype(np.float32).astype(np.float64)
        q = np.sign(v) * np.floor(np.abs(v) + 0.5)
    elif weight_type == "Q4_0":
        extreme = x[np.arange(n), np.argmax(np.abs(x), axis=1)]
        d = (extreme / np.float32(-8.0)).astype(np.float32)
        inv = np.where(d != 0, np.float32(1.0) / np.where(d != 0, d, np.float32(1.0)), np.float32(0.0))
        v = ((x * inv.astype(np.float32)[:, None]).astype(np.float32) + np.float32(8.5)).astype(np.float32)
        q = np.minimum(15.0, np.trunc(v.astype(np.float64))) - 8.0
    else:
        raise ValueError(weight_type)
    scale = d.astype(np.float16).astype(np.float64)
    return torch.tensor(q * scale[:, None]).reshape(w.shape)


def activate(y, activation):
    if activation == "IDENTITY":
        return y
    if activation == "RELU":
        return F.relu(y)
    if activation == "GELU":
        return F.gelu(y, approximate="none")
    if activation == "GELU_TANH":
        return F.gelu(y, approximate="tanh")
    if activation == "SILU":
        return F.silu(y)
    raise ValueError(activation)


def fused_ops_cases(r, gen, randn):
    G = "ops"

    def linear(name, rows, fin, fout, weight_type="F32", activation="IDENTITY", gated=False, bias=True,
               residual=False):
        g = gen(name)
        x = randn(g, *rows, fin)
        w_rows = 2 * fout if gated else fout
        w = stored(randn(g, w_rows, fin, scale=1.0 / np.sqrt(fin)), weight_type)
        b = randn(g, w_rows, scale=0.5)
        y = F.linear(x, w, b if bias else None)
        if gated:
            out = activate(y[..., :fout], activation) * y[..., fout:]
        else:
            out = activate(y, activation)
        res = randn(g, *rows, fout)
        if residual:
            out = out + res
        ins = [("x", x), ("w", w)] + ([("b", b)] if bias else []) + ([("residual", res)] if residual else [])
        params = {"hasBias": bias, "weightType": weight_type, "activation": activation, "gated": gated,
                  "hasResidual": residual}
        r.add(G, name, "linear", params, ins, [("out", out)])

    for t in WEIGHT_TYPES:
        low = t.lower()
        linear(f"linear_w{low}_1x64_7", (1,), 64, 7, t)
        linear(f"linear_w{low}_3x5x96_33", (3, 5), 96, 33, t, bias=False)
        linear(f"linear_w{low}_37x128_40", (37,), 128, 40, t)
    for a in ("RELU", "GELU", "GELU_TANH", "SILU"):
        linear(f"linear_epilogue_{a.lower()}_2x9x32_20", (2, 9), 32, 20, "F32", a)
        linear(f"linear_epilogue_{a.lower()}_1x64_130_q8", (1,), 64, 130, "Q8_0", a, bias=False)
    linear("linear_epilogue_residual_2x7x32_24", (2, 7), 32, 24, "F32", residual=True)
    linear("linear_epilogue_residual_1x64_48_bf16", (1,), 64, 48, "BF16", bias=False, residual=True)
    linear("linear_epilogue_gelu_residual_40x32_17", (40,), 32, 17, "F32", "GELU", residual=True)
    linear("linear_epilogue_gated_silu_2x6x64_44", (2, 6), 64, 44, "F32", "SILU", gated=True, bias=False)
    linear("linear_epilogue_gated_silu_1x64_96_q4", (1,), 64, 96, "Q4_0", "SILU", gated=True, bias=False)
    linear("linear_epilogue_gated_gelu_tanh_bias_3x32_5", (3,), 32, 5, "F16", "GELU_TANH", gated=True)
    linear("linear_epilogue_gated_identity_residual_33x32_9", (33,), 32, 9, "F32", "IDENTITY", gated=True,
           residual=True)

    for t in WEIGHT_TYPES:
        name = f"embedding_w{t.lower()}_v11_d64_2x3"
        g = gen(name)
        table = stored(randn(g, 11, 64), t)
        ids = torch.randint(0, 11, (2, 3), generator=g)
        ids.view(-1)[0] = 0
        ids.view(-1)[-1] = 10
        r.add(G, name, "embedding", {"weightType": t}, [("weight", table), ("ids", ids.to(torch.float64))],
              [("out", F.embedding(ids, table))])

    for label, shape, hg, hb in (("both_2x3x8", (2, 3, 8), True, True), ("neither_5x33", (5, 33), False, False),
                                 ("gamma_1x384", (1, 384), True, False)):
        name = f"layerNorm_residual_{label}"
        g = gen(name)
        d = shape[-1]
        x = randn(g, *shape) * 2.0
        res = randn(g, *shape)
        gamma = 1.0 + 0.3 * randn(g, d)
        beta = 0.3 * randn(g, d)
        out = F.layer_norm(x + res, (d,), gamma if hg else None, beta if hb else None, 1e-12)
        ins = [("x", x), ("residual", res)] + ([("gamma", gamma)] if hg else []) + ([("beta", beta)] if hb else [])
        r.add(G, name, "layerNorm", {"eps": 1e-12, "hasGamma": hg, "hasBeta": hb, "hasResidual": True}, ins,
              [("out", out)])

    for label, shape, has_weight, eps in (("3x5x8_w", (3, 5, 8), True, 1e-6), ("4x70_now", (4, 70), False, 1e-5)):
        name = f"rmsNorm_residual_{label}"
        g = gen(name)
        x = randn(g, *shape)
        res = randn(g, *shape)
        w = randn(g, shape[-1]) if has_weight else None
        s = x + res
        out = s / torch.sqrt((s * s).mean(-1, keepdim=True) + eps)
        if w is not None:
            out = out * w
        ins = [("x", x), ("residual", res)] + ([("weight", w)] if has_weight else [])
        r.add(G, name, "rmsNorm", {"eps": eps, "hasWeight": has_weight, "hasResidual": True}, ins, [("out", out)])


def packed_attention_cases(r, gen, randn, attention_ref, b01, key_padding_allowed):
    G = "attention"

    def case(name, b, l, heads, kv_heads, d, causal=False, mask=None, additive=None, scale=None, dropout_p=0.0,
             seed=0, return_weights=True):
        g = gen(name)
        qkv = randn(g, b, l, (heads + 2 * kv_heads) * d)
        q = qkv[..., :heads * d].reshape(b, l, heads, d).permute(0, 2, 1, 3)
        k = qkv[..., heads * d:(heads + kv_heads) * d].reshape(b, l, kv_heads, d).permute(0, 2, 1, 3)
        v = qkv[..., (heads + kv_heads) * d:].reshape(b, l, kv_heads, d).permute(0, 2, 1, 3)
        group = heads // kv_heads
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        mask_t = mask(g) if callable(mask) else mask
        add_t = additive(g) if callable(additive) else additive
        out, w = attention_ref(q, k, v, causal, mask_t, add_t, scale, dropout_p, seed)
        out = out.permute(0, 2, 1, 3).reshape(b, l, heads * d)
        ins = [("qkv", qkv)]
        if mask_t is not None:
            ins.append(("mask", b01(mask_t)))
        if add_t is not None:
            ins.append(("additiveMask", add_t))
        outs = [("out", out)] + ([("weights", w)] if return_weights else [])
        params = {"heads": heads, "kvHeads": kv_heads, "causal": causal, "scale": scale, "dropoutP": dropout_p,
                  "dropoutSeed": seed, "returnWeights": return_weights}
        r.add(G, name, "packedAttention", params, ins, outs)

    case("packed_b1_l7_h2", 1, 7, 2, 2, 8)
    case("packed_b2_l9_h3_padding", 2, 9, 3, 3, 16, mask=key_padding_allowed([9, 4], 9).reshape(2, 1, 1, 9))
    case("packed_b2_l6_gqa4x2_causal", 2, 6, 4, 2, 8, causal=True)
    case("packed_b1_l5_mqa6x1_additive", 1, 5, 6, 1, 4, additive=lambda g: randn(g, 5, 5))
    case("packed_b1_l33_h12_d32_noweights", 1, 33, 12, 12, 32, return_weights=False)
    case("packed_b3_l4_h2_scale1", 3, 4, 2, 2, 4, scale=1.0)
    case("packed_b2_l6_h2_dropout", 2, 6, 2, 2, 4, dropout_p=0.25, seed=7)
    case("packed_fully_masked_row", 2, 4, 2, 1, 4, mask=key_padding_allowed([0, 3], 4).reshape(2, 1, 1, 4))
