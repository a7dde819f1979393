#!/usr/bin/python3
"""Re-derive every golden case from the committed files with numpy alone (no torch).

It reads the safetensors files with its own parser and recomputes each output from the stored inputs and
parameters, the way a backend or the models module has to: it checks the file format, the manifest and the
conventions documented in README.md (mask polarities, parameter layouts). Exit status 1 on any mismatch.

Usage: /usr/bin/python3 verify_goldens.py [DIR]
"""

import json
import math
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIR = os.path.normpath(os.path.join(HERE, "..", "main", "resources", "org", "attn4j", "tck", "golden"))
NEG_INF = -np.inf
M64 = (1 << 64) - 1


def load_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    if n % 8:
        raise ValueError(f"{path}: header length {n} not a multiple of 8")
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    header.pop("__metadata__", None)
    out, end = {}, 0
    for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        begin, stop = info["data_offsets"]
        if info["dtype"] != "F64" or begin != end:
            raise ValueError(f"{path}: {name} {info}")
        end = stop
        out[name] = np.frombuffer(raw[8 + n + begin:8 + n + stop], dtype="<f8").reshape(info["shape"])
    if 8 + n + end != len(raw):
        raise ValueError(f"{path}: trailing bytes")
    return out


# --- primitives per the attn4j semantics -----------------------------------------------------

def softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    all_neg = np.all(x == NEG_INF, axis=axis, keepdims=True)
    m = np.where(all_neg, 0.0, m)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - m)
        s = e / np.sum(e, axis=axis, keepdims=True)
    return np.where(all_neg, 0.0, s)


def matmul(a, b, ta=False, tb=False):
    return np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)


def layer_norm(x, gamma=None, beta=None, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def gelu(x, approx="NONE"):
    if approx == "TANH":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def linear(x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


def dropout(x, p, seed):
    if p == 0.0:
        return x.copy()
    if p == 1.0:
        return np.zeros_like(x)
    flat = x.reshape(-1)
    out = np.zeros_like(flat)
    for i in range(flat.size):
        z = ((seed & M64) + (i + 1) * 0x9E3779B97F4A7C15) & M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        z ^= z >> 31
        if (z >> 11) * 2.0 ** -53 >= p:
            out[i] = flat[i] * (1.0 / (1.0 - p))
    return out.reshape(x.shape)


def causal(lq, lk):
    return np.tril(np.ones((lq, lk), dtype=bool))


def attention(q, k, v, is_causal=False, mask=None, additive=None, scale=None, p=0.0, seed=0):
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    logits = matmul(q, k, tb=True) * scale
    if additive is not None:
        logits = logits + additive
    if mask is not None:
        logits = np.where(mask, logits, NEG_INF)
    if is_causal:
        logits = np.where(causal(q.shape[-2], k.shape[-2]), logits, NEG_INF)
    w = softmax(logits)
    if p > 0:
        w = dropout(w, p, seed)
    return w @ v, w


def torch_mask_to_additive(mask01, kind):
    """PyTorch module masks: bool True (stored 1.0) = masked out; float masks are added."""
    if kind == "bool":
        return np.where(mask01 == 1.0, NEG_INF, 0.0)
    return mask01


# --- models ----------------------------------------------------------------------------------

def mha_forward(P, prefix, query, key, value, e, h, kpm=None, kpm_kind=None, am=None, am_kind=None):
    w, b = P[prefix + "in_proj_weight"], P[prefix + "in_proj_bias"]
    q = linear(query, w[:e], b[:e])
    k = linear(key, w[e:2 * e], b[e:2 * e])
    v = linear(value, w[2 * e:], b[2 * e:])
    bsz, lq, _ = q.shape
    lk = k.shape[1]
    d = e // h

    def heads(t, n):
        return t.reshape(bsz, n, h, d).transpose(0, 2, 1, 3)
    add = np.zeros((bsz, 1, lq, lk))
    if am is not None:
        add = add + torch_mask_to_additive(am, am_kind)
    if kpm is not None:
        add = add + torch_mask_to_additive(kpm, kpm_kind)[:, None, None, :]
    o, wts = attention(heads(q, lq), heads(k, lk), heads(v, lk), additive=add)
    o = o.transpose(0, 2, 1, 3).reshape(bsz, lq, e)
    return linear(o, P[prefix + "out_proj.weight"], P[prefix + "out_proj.bias"]), wts


def encoder_layer(P, pre, x, prm, kpm=None, src_mask=None):
    e, h, eps = prm["dModel"], prm["nhead"], prm["layerNormEps"]
    act = (lambda t: np.maximum(t, 0.0)) if prm["activation"] == "relu" else gelu

    def sa(t):
        return mha_forward(P, pre + "self_attn.", t, t, t, e, h, kpm, prm["srcKeyPaddingMaskKind"],
                           src_mask, prm["srcMaskKind"])[0]

    def ff(t):
        return linear(act(linear(t, P[pre + "linear1.weight"], P[pre + "linear1.bias"])),
                      P[pre + "linear2.weight"], P[pre + "linear2.bias"])

    def n1(t):
        return layer_norm(t, P[pre + "norm1.weight"], P[pre + "norm1.bias"], eps)

    def n2(t):
        return layer_norm(t, P[pre + "norm2.weight"], P[pre + "norm2.bias"], eps)
    if prm["normFirst"]:
        x = x + sa(n1(x))
        return x + ff(n2(x))
    x = n1(x + sa(x))
    return n2(x + ff(x))


def sinusoidal(max_len, d):
    pos = np.arange(max_len, dtype=np.float64)[:, None]
    col = np.arange(d)
    angle = pos / np.power(10000.0, (col // 2 * 2) / d)
    return np.where(col % 2 == 0, np.sin(angle), np.cos(angle))


def rms_norm(x, w, eps):
    y = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return y if w is None else y * w


def rope(x, layout, base, offset):
    rows, d = x.shape[-2], x.shape[-1]
    angles = np.outer(np.arange(offset, offset + rows, dtype=np.float64), base ** (-2.0 * np.arange(d // 2) / d))
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.empty_like(x)
    if layout == "HALF_SPLIT":
        a, b = x[..., :d // 2], x[..., d // 2:]
        out[..., :d // 2], out[..., d // 2:] = a * cos - b * sin, b * cos + a * sin
    else:
        a, b = x[..., 0::2], x[..., 1::2]
        out[..., 0::2], out[..., 1::2] = a * cos - b * sin, b * cos + a * sin
    return out


def rope_frequencies(x, inverse_frequencies, scaling, layout, offset):
    """The first 2n features of each row turned by (offset + p) * inverse_frequencies, cos and sin scaled."""
    rows, n = x.shape[-2], len(inverse_frequencies)
    angles = np.outer(np.arange(offset, offset + rows, dtype=np.float64), inverse_frequencies)
    cos, sin = np.cos(angles) * scaling, np.sin(angles) * scaling
    out = x.copy()
    if layout == "HALF_SPLIT":
        a, b = x[..., :n], x[..., n:2 * n]
        out[..., :n], out[..., n:2 * n] = a * cos - b * sin, b * cos + a * sin
    else:
        a, b = x[..., 0:2 * n:2], x[..., 1:2 * n:2]
        out[..., 0:2 * n:2], out[..., 1:2 * n:2] = a * cos - b * sin, b * cos + a * sin
    return out


def softcap(x, cap):
    return cap * np.tanh(x / cap)


def np_rope_parameters(cfg, layer_type="full_attention"):
    """transformers' standardize_rope_params: the rotary parameters of one layer type."""
    given = cfg.get("rope_scaling") or cfg.get("rope_parameters") or {}
    if given and set(given) <= {"full_attention", "sliding_attention"}:
        given = given[layer_type]
    q = dict(given)
    q.setdefault("rope_type", q.get("type", "default"))
    q["rope_type"] = "longrope" if q["rope_type"] == "su" else q["rope_type"]
    q.setdefault("rope_theta", cfg.get("rope_theta", 10000.0))
    if "partial_rotary_factor" in cfg:
        q["partial_rotary_factor"] = cfg["partial_rotary_factor"]
    if q["rope_type"] in ("llama3", "yarn", "longrope"):
        q["original_max_position_embeddings"] = cfg.get("original_max_position_embeddings",
                                                        q.get("original_max_position_embeddings",
                                                              cfg["max_position_embeddings"]))
    return q


def np_head_dim(cfg):
    default = {"qwen3": 128, "gemma": 256, "gemma2": 256, "gemma3_text": 256}.get(cfg["model_type"])
    return cfg.get("head_dim") or default or cfg["hidden_size"] // cfg["num_attention_heads"]


def np_inverse_frequencies(cfg, q, seq_len):
    """ROPE_INIT_FUNCTIONS of transformers in float64: (inverse frequencies, attention scaling)."""
    kind, base = q["rope_type"], q["rope_theta"]
    dim = int(np_head_dim(cfg) * q.get("partial_rotary_factor", 1.0))
    exponents = np.arange(0, dim, 2, dtype=np.float64) / dim
    max_pos = cfg["max_position_embeddings"]
    if kind == "dynamic":
        s = max(seq_len, max_pos)
        base = base * ((q["factor"] * s / max_pos) - (q["factor"] - 1)) ** (dim / (dim - 2))
    inv = 1.0 / base ** exponents
    if kind in ("default", "dynamic"):
        return inv, 1.0
    if kind == "linear":
        return inv / q["factor"], 1.0
    original = q["original_max_position_embeddings"]
    if kind == "llama3":
        factor, low, high = q["factor"], q["low_freq_factor"], q["high_freq_factor"]
        wavelen = 2 * np.pi / inv
        scaled = np.where(wavelen > original / low, inv / factor, inv)
        smooth = (original / wavelen - low) / (high - low)
        medium = (wavelen >= original / high) & (wavelen <= original / low)
        return np.where(medium, (1 - smooth) * scaled / factor + smooth * scaled, scaled), 1.0
    factor = q.get("factor") or max_pos / original
    if kind == "longrope":
        attention = q.get("attention_factor") or (
            1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original)))
        ext = np.array(q["long_factor"] if seq_len > original else q["short_factor"], dtype=np.float64)
        return inv / ext, attention

    def mscale(x, m=1.0):
        return 1.0 if x <= 1 else 0.1 * m * math.log(x) + 1.0
    attention = q.get("attention_factor")
    if attention is None:
        attention = mscale(factor, q["mscale"]) / mscale(factor, q["mscale_all_dim"]) \
            if q.get("mscale") and q.get("mscale_all_dim") else mscale(factor)

    def corr(rotations):
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))
    low, high = corr(q.get("beta_fast") or 32), corr(q.get("beta_slow") or 1)
    if q.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    high = high + 0.001 if low == high else high
    keep = 1 - np.clip((np.arange(dim // 2) - low) / (high - low), 0, 1)
    return inv / factor * (1 - keep) + inv * keep, attention


def np_windows(cfg, n):
    mt = cfg["model_type"]
    if mt in ("mistral", "phi3"):
        return [cfg.get("sliding_window", 4096 if mt == "mistral" else None) or 0] * n
    if mt in ("qwen2", "qwen3", "gemma2"):
        use = mt == "gemma2" or cfg.get("use_sliding_window", False)
        w = cfg.get("sliding_window", 4096) if use else None
        types = cfg.get("layer_types") or [
            ("sliding_attention" if (i + 1) % 2 else "full_attention") if mt == "gemma2"
            else ("sliding_attention" if w is not None and i >= cfg.get("max_window_layers", 28) else "full_attention")
            for i in range(n)]
        return [(w or 0) if t == "sliding_attention" else 0 for t in types]
    if mt == "gemma3_text":
        every = cfg.get("sliding_window_pattern", 6)
        types = cfg.get("layer_types") or ["full_attention" if (i + 1) % every == 0 else "sliding_attention"
                                           for i in range(n)]
        return [cfg.get("sliding_window", 4096) or 0 if t == "sliding_attention" else 0 for t in types]
    return [0] * n


def np_activation(name, x):
    if name in ("silu", "swish"):
        return x / (1.0 + np.exp(-x))
    if name == "relu":
        return np.maximum(x, 0.0)
    return gelu(x, "NONE" if name == "gelu" else "TANH")


def causal_lm_run(cfg, P, ids, cache):
    """Logits [L, V] of ids after the cache (lists of per-layer keys and values, and the tokens), as
    decoder_families.py's forward: a second implementation in numpy."""
    mt, start, L = cfg["model_type"], len(cache["tokens"]), len(ids)
    gemma = mt in ("gemma", "gemma2", "gemma3_text")
    sandwich = mt in ("gemma2", "gemma3_text")
    if mt == "gpt2":
        E, H, eps = cfg["n_embd"], cfg["n_head"], cfg.get("layer_norm_epsilon", 1e-5)
        n, d, Hkv = cfg["n_layer"], E // H, H
        x = P["wte.weight"][ids] + P["wpe.weight"][start:start + L]
    else:
        E, H, n, d = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"], np_head_dim(cfg)
        Hkv = cfg.get("num_key_value_heads") or H
        eps = cfg.get("rms_norm_eps", 1e-5 if mt == "phi3" else 1e-6)
        x = P["model.embed_tokens.weight"][ids] * (math.sqrt(E) if gemma else 1.0)
    wins = np_windows(cfg, n)
    i = np.arange(start, start + L)[:, None]
    j = np.arange(start + L)[None, :]

    def attend(q, k, v, layer, scale, cap=None):
        k, v = np.repeat(k, H // Hkv, axis=0), np.repeat(v, H // Hkv, axis=0)
        logits = q @ k.transpose(0, 2, 1) * scale
        if cap:
            logits = cap * np.tanh(logits / cap)
        allowed = (j <= i) & ((j > i - wins[layer]) if wins[layer] else True)
        return (softmax(np.where(allowed, logits, NEG_INF)) @ v).transpose(1, 0, 2).reshape(L, H * d)

    def keep(layer, k, v):
        if cache["keys"][layer] is not None:
            k = np.concatenate([cache["keys"][layer], k], axis=1)
            v = np.concatenate([cache["values"][layer], v], axis=1)
        cache["keys"][layer], cache["values"][layer] = k, v
        return k, v

    def norm(y, w, plus=gemma):
        return rms_norm(y, (1.0 + w) if plus else w, eps)

    for layer in range(n):
        if mt == "gpt2":
            pre = f"h.{layer}."
            h = layer_norm(x, P[pre + "ln_1.weight"], P[pre + "ln_1.bias"], eps)
            qkv = h @ P[pre + "attn.c_attn.weight"] + P[pre + "attn.c_attn.bias"]
            q, k, v = (qkv[:, c * E:(c + 1) * E].reshape(L, H, d).transpose(1, 0, 2) for c in range(3))
            k, v = keep(layer, k, v)
            scale = (1 / math.sqrt(d) if cfg.get("scale_attn_weights", True) else 1.0) / (
                layer + 1 if cfg.get("scale_attn_by_inverse_layer_idx") else 1)
            x = x + attend(q, k, v, layer, scale) @ P[pre + "attn.c_proj.weight"] + P[pre + "attn.c_proj.bias"]
            h = layer_norm(x, P[pre + "ln_2.weight"], P[pre + "ln_2.bias"], eps)
            h = np_activation(cfg.get("activation_function", "gelu_new"),
                              h @ P[pre + "mlp.c_fc.weight"] + P[pre + "mlp.c_fc.bias"])
            x = x + h @ P[pre + "mlp.c_proj.weight"] + P[pre + "mlp.c_proj.bias"]
            continue
        pre = f"model.layers.{layer}."
        b = lambda name: P.get(pre + name, 0.0)
        h = norm(x, P[pre + "input_layernorm.weight"])
        if mt == "phi3":
            qkv = h @ P[pre + "self_attn.qkv_proj.weight"].T
            q, k, v = qkv[:, :H * d], qkv[:, H * d:(H + Hkv) * d], qkv[:, (H + Hkv) * d:]
        else:
            q, k, v = (h @ P[pre + f"self_attn.{c}_proj.weight"].T + b(f"self_attn.{c}_proj.bias") for c in "qkv")
        q, k, v = q.reshape(L, H, d), k.reshape(L, Hkv, d), v.reshape(L, Hkv, d)
        if mt in ("qwen3", "gemma3_text"):
            q, k = norm(q, P[pre + "self_attn.q_norm.weight"]), norm(k, P[pre + "self_attn.k_norm.weight"])
        layer_type = "sliding_attention" if wins[layer] else "full_attention"
        if mt == "gemma2" and cfg.get("layer_types"):
            layer_type = cfg["layer_types"][layer]
        if mt == "gemma3_text" and layer_type == "sliding_attention":
            local = {"rope_type": "default", "rope_theta": cfg.get("rope_local_base_freq", 10000.0)}
            inv, scaling = np_inverse_frequencies(cfg, local, start + L)
        elif mt == "gemma3_text":
            inv, scaling = np_inverse_frequencies(
                cfg, np_rope_parameters(dict(cfg, rope_theta=cfg.get("rope_theta", 1e6))), start + L)
        else:
            inv, scaling = np_inverse_frequencies(cfg, np_rope_parameters(cfg, layer_type), start + L)
        layout = "INTERLEAVED" if cfg.get("rope_interleaved") else "HALF_SPLIT"
        q = rope_frequencies(q.transpose(1, 0, 2), inv, scaling, layout, start)
        k = rope_frequencies(k.transpose(1, 0, 2), inv, scaling, layout, start)
        k, v = keep(layer, k, v.transpose(1, 0, 2))
        scale = cfg.get("query_pre_attn_scalar", 256) ** -0.5 if sandwich else 1 / math.sqrt(d)
        cap = cfg.get("attn_logit_softcapping", 50.0) if mt == "gemma2" else cfg.get("attn_logit_softcapping")
        a = attend(q, k, v, layer, scale, cap) @ P[pre + "self_attn.o_proj.weight"].T + b("self_attn.o_proj.bias")
        if sandwich:
            x = x + norm(a, P[pre + "post_attention_layernorm.weight"])
            h = norm(x, P[pre + "pre_feedforward_layernorm.weight"])
        else:
            x = x + a
            h = norm(x, P[pre + "post_attention_layernorm.weight"])
        act = (cfg.get("hidden_activation") or "gelu_pytorch_tanh") if gemma else cfg.get("hidden_act", "silu")
        if mt == "phi3":
            gu = h @ P[pre + "mlp.gate_up_proj.weight"].T
            m = (np_activation(act, gu[:, :gu.shape[1] // 2]) * gu[:, gu.shape[1] // 2:]) @ P[pre + "mlp.down_proj.weight"].T
        else:
            m = (np_activation(act, h @ P[pre + "mlp.gate_proj.weight"].T + b("mlp.gate_proj.bias"))
                 * (h @ P[pre + "mlp.up_proj.weight"].T + b("mlp.up_proj.bias"))) @ P[pre + "mlp.down_proj.weight"].T \
                + b("mlp.down_proj.bias")
        x = x + (norm(m, P[pre + "post_feedforward_layernorm.weight"]) if sandwich else m)
    cache["tokens"].extend(ids)
    if mt == "gpt2":
        x = layer_norm(x, P["ln_f.weight"], P["ln_f.bias"], eps)
        logits = x @ P.get("lm_head.weight", P["wte.weight"]).T
    else:
        x = norm(x, P["model.norm.weight"])
        logits = x @ P.get("lm_head.weight", P["model.embed_tokens.weight"]).T
    cap = cfg.get("final_logit_softcapping", 30.0) if mt == "gemma2" else cfg.get("final_logit_softcapping")
    return cap * np.tanh(logits / cap) if cap else logits


def causal_lm(cfg, P, prompt, steps):
    """Prompt logits, greedy ids, step logits and margins as transformers' generate gives them."""
    if cfg["model_type"] == "gemma3":
        cfg = dict({"max_position_embeddings": 131072}, **cfg["text_config"])  # Gemma3TextConfig's default
        P = {k[len("language_model."):]: v for k, v in P.items() if k.startswith("language_model.")}

    def empty():
        layers = cfg.get("num_hidden_layers") or cfg["n_layer"]
        return {"keys": [None] * layers, "values": [None] * layers, "tokens": []}
    cache = empty()
    logits = causal_lm_run(cfg, P, prompt, cache)
    last, ids, step_logits, margins = logits[-1], [], [], []
    original = cfg.get("original_max_position_embeddings", 4096)
    for _ in range(steps):
        top = np.sort(last)[-2:]
        margins.append(top[1] - top[0])
        token = int(np.argmax(last))
        ids.append(token)
        scaled = cfg.get("rope_scaling") or cfg.get("rope_parameters")
        if cfg["model_type"] == "phi3" and scaled and 0 < len(cache["tokens"]) <= original < len(cache["tokens"]) + 1:
            everything = cache["tokens"] + [token]
            cache = empty()
            last = causal_lm_run(cfg, P, everything, cache)[-1]
        else:
            last = causal_lm_run(cfg, P, [token], cache)[-1]
        step_logits.append(last)
    return [logits[None], np.array(ids, dtype=np.float64), np.stack(step_logits), np.array(margins)]


def decoding_attention(T, p):
    """Attention with grouped queries, causal alignment, a window and a key length (see decoder_cases.py)."""
    q, k, v = T["q"], T["k"], T["v"]
    group = q.shape[-3] // k.shape[-3]
    k, v = np.repeat(k, group, axis=-3), np.repeat(v, group, axis=-3)
    lq, lk = q.shape[-2], k.shape[-2]
    n = p["keyLength"] or lk
    i = np.arange(lq)[:, None] + (n - lq if p["causalAlignment"] == "BOTTOM_RIGHT" else 0)
    j = np.arange(lk)[None, :]
    allowed = (j < n) & (i >= -lk)
    if p["causal"]:
        allowed = allowed & (j <= i)
    if p["window"]:
        allowed = allowed & (j > i - p["window"])
    if "mask" in T:
        allowed = allowed & (T["mask"] == 1.0)
    logits = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if p.get("logitSoftcap"):
        logits = softcap(logits, p["logitSoftcap"])
    if "additiveMask" in T:
        logits = logits + T["additiveMask"]
    w = softmax(np.where(allowed, logits, NEG_INF))
    return [w @ v, w]


def activate(y, name):
    with np.errstate(all="ignore"):
        if name == "IDENTITY":
            return y
        if name == "RELU":
            return np.where(y > 0, y, 0.0)
        if name == "GELU":
            return gelu(y, "NONE")
        if name == "GELU_TANH":
            return gelu(y, "TANH")
        if name == "SILU":
            return y / (1.0 + np.exp(-y))
    raise KeyError(name)


def linear_epilogue(x, w, b, residual, p):
    y = linear(x, w, b)
    if p.get("gated"):
        out = y.shape[-1] // 2
        y = activate(y[..., :out], p["activation"]) * y[..., out:]
    else:
        y = activate(y, p.get("activation", "IDENTITY"))
    return y + residual if residual is not None else y


def packed_attention(T, p):
    qkv = T["qkv"]
    b, l, width = qkv.shape
    h, hkv = p["heads"], p["kvHeads"]
    d = width // (h + 2 * hkv)
    q = qkv[..., :h * d].reshape(b, l, h, d).transpose(0, 2, 1, 3)
    k = qkv[..., h * d:(h + hkv) * d].reshape(b, l, hkv, d).transpose(0, 2, 1, 3)
    v = qkv[..., (h + hkv) * d:].reshape(b, l, hkv, d).transpose(0, 2, 1, 3)
    k = np.repeat(k, h // hkv, axis=1)
    v = np.repeat(v, h // hkv, axis=1)
    mask = T["mask"] == 1.0 if "mask" in T else None
    o, w = attention(q, k, v, p["causal"], mask, T.get("additiveMask"), p["scale"], p["dropoutP"],
                     p["dropoutSeed"])
    o = o.transpose(0, 2, 1, 3).reshape(b, l, h * d)
    return [o, w] if p["returnWeights"] else [o]


def compute(case, T, P):
    op, p = case["op"], case["params"]
    x = T.get("x")
    if op == "matmul":
        return [matmul(T["a"], T["b"], p["transposeA"], p["transposeB"])]
    if op in ("add", "sub", "mul", "div"):
        with np.errstate(all="ignore"):
            return [getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide"}[op])(
                T["a"], T["b"])]
    if op == "rmsNorm":
        return [rms_norm(x + T["residual"] if "residual" in T else x, T.get("weight"), p["eps"])]
    if op == "silu":
        with np.errstate(all="ignore"):
            return [x / (1.0 + np.exp(-x))]
    if op == "rope" and "inverseFrequencies" in T:
        return [rope_frequencies(x, T["inverseFrequencies"], p["attentionScaling"], p["layout"], p["offset"])]
    if op == "rope":
        return [rope(x, p["layout"], p["base"], p["offset"])]
    if op == "softcap":
        return [softcap(x, p["cap"])]
    if op == "writeSlice":
        out = T["target"].copy()
        index = [slice(None)] * out.ndim
        index[p["axis"]] = slice(p["offset"], p["offset"] + T["source"].shape[p["axis"]])
        out[tuple(index)] = T["source"]
        return [out]
    if op == "CausalLM":
        return causal_lm(p["config"], P, [int(i) for i in T["ids"]], p["newTokens"])
    if op == "RopeParameters":
        cfg = p["config"]
        inv, scaling = np_inverse_frequencies(cfg, np_rope_parameters(cfg, p["layerType"]), p["seqLen"])
        return [inv, np.array(scaling)]
    if op == "scale":
        return [x * p["s"]]
    if op == "exp":
        with np.errstate(over="ignore"):
            return [np.exp(x)]
    if op in ("max", "sum", "mean", "variance"):
        fn = {"max": np.max, "sum": np.sum, "mean": np.mean, "variance": np.var}[op]
        return [fn(x, axis=p["axis"], keepdims=p["keepDims"])]
    if op == "softmax":
        return [softmax(x, p["axis"])]
    if op == "layerNorm":
        return [layer_norm(x + T["residual"] if "residual" in T else x, T.get("gamma"), T.get("beta"), p["eps"])]
    if op == "relu":
        return [np.where(x > 0, x, 0.0)]
    if op == "gelu":
        return [gelu(x, p["approximation"])]
    if op == "linear":
        return [linear_epilogue(x, T["w"], T.get("b"), T.get("residual"), p)]
    if op == "embedding":
        return [T["weight"][T["ids"].astype(np.int64)]]
    if op == "reshape":
        return [x.reshape(p["shape"])]
    if op == "permute":
        return [x.transpose(p["axes"])]
    if op == "transpose":
        return [np.swapaxes(x, p["dim0"], p["dim1"])]
    if op == "concat":
        return [np.concatenate([T[f"x{i}"] for i in range(len(case["inputs"]))], axis=p["axis"])]
    if op == "split":
        return np.split(x, np.cumsum(p["sizes"])[:-1], axis=p["axis"])
    if op == "chunk":
        size = x.shape[p["axis"]]
        c = -(-size // p["n"])
        return np.split(x, list(range(c, size, c)), axis=p["axis"])
    if op == "cast":
        with np.errstate(over="ignore"):
            return [x.astype(np.float32).astype(np.float64)]
    if op == "maskCausal":
        return [causal(p["lq"], p["lk"]).astype(np.float64)]
    if op == "maskKeyPadding":
        vl = p["validLengths"]
        m = np.arange(p["lk"])[None, :] < np.array(vl)[:, None]
        return [m.reshape(len(vl), 1, 1, p["lk"]).astype(np.float64)]
    if op == "additiveMask":
        return [np.where(T["mask"] == 1.0, 0.0, NEG_INF)]
    if op == "dropout":
        return [dropout(x, p["p"], p["seed"])]
    if op == "packedAttention":
        return packed_attention(T, p)
    if op == "attention" and "causalAlignment" in p:
        return decoding_attention(T, p)
    if op == "attention":
        mask = T["mask"] == 1.0 if "mask" in T else None
        o, w = attention(T["q"], T["k"], T["v"], p["causal"], mask, T.get("additiveMask"), p["scale"],
                         p["dropoutP"], p["dropoutSeed"])
        return [o, w] if p["returnWeights"] else [o]
    if op == "nn.MultiheadAttention":
        o, w = mha_forward(P, "", T["query"], T["key"], T["value"], p["embedDim"], p["numHeads"],
                           T.get("key_padding_mask"), p["keyPaddingMaskKind"], T.get("attn_mask"), p["attnMaskKind"])
        if not p["needWeights"]:
            return [o]
        return [o, w.mean(axis=1) if p["averageAttnWeights"] else w]
    if op == "nn.TransformerEncoderLayer":
        return [encoder_layer(P, "", T["src"], p, T.get("src_key_padding_mask"), T.get("src_mask"))]
    if op == "nn.TransformerEncoder":
        y = T["src"]
        for i in range(p["numLayers"]):
            y = encoder_layer(P, f"layers.{i}.", y, p, T.get("src_key_padding_mask"), T.get("src_mask"))
        return [y]
    if op == "nn.LayerNorm":
        return [layer_norm(x, P.get("weight"), P.get("bias"), p["eps"])]
    if op == "nn.Embedding":
        return [P["weight"][T["ids"].astype(np.int64)]]
    if op == "SinusoidalPositionalEncoding":
        return [sinusoidal(p["maxLen"], p["dModel"])]
    if op == "BahdanauAttention":
        hid = np.tanh(linear(T["query"], P["W1.weight"], P["W1.bias"])[:, :, None, :]
                      + linear(T["keys"], P["W2.weight"], P["W2.bias"])[:, None, :, :])
        scores = linear(hid, P["v.weight"])[..., 0]
        if p["validLengths"] is not None:
            ok = np.arange(scores.shape[-1])[None, :] < np.array(p["validLengths"])[:, None]
            scores = np.where(ok[:, None, :], scores, NEG_INF)
        w = softmax(scores)
        return [w @ T["values"], w]
    if op == "SelfAttentionV1":
        q, k, v = x @ P["W_query"], x @ P["W_key"], x @ P["W_value"]
        return list(attention(q, k, v))
    if op == "SelfAttentionV2":
        return list(attention(linear(x, P["W_query.weight"]), linear(x, P["W_key.weight"]),
                              linear(x, P["W_value.weight"])))
    if op == "WideSelfAttention":
        b, t, k = x.shape
        h = p["heads"]

        def split(y):
            return y.reshape(b, t, h, k).transpose(0, 2, 1, 3)
        o, w = attention(split(linear(x, P["toqueries.weight"])), split(linear(x, P["tokeys.weight"])),
                         split(linear(x, P["tovalues.weight"])), p["causal"])
        o = o.transpose(0, 2, 1, 3).reshape(b, t, h * k)
        return [linear(o, P["unifyheads.weight"], P["unifyheads.bias"]), w]
    if op == "PerHeadMultiHeadAttention":
        outs, ws = [], []
        for i in range(p["heads"]):
            pre = f"heads.{i}."
            o, w = attention(linear(x, P[pre + "W_query.weight"]), linear(x, P[pre + "W_key.weight"]),
                             linear(x, P[pre + "W_value.weight"]), p["causal"])
            outs.append(o)
            ws.append(w)
        return [linear(np.concatenate(outs, -1), P["W_o.weight"], P["W_o.bias"]), np.stack(ws, 1)]
    raise KeyError(op)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_DIR
    with open(os.path.join(d, "manifest.json"), encoding="utf-8") as f:
        cases = json.load(f)
    files = {}
    failures, worst = 0, 0.0
    for case in cases:
        fname = case["file"]
        if fname not in files:
            files[fname] = load_safetensors(os.path.join(d, fname))
        data = files[fname]
        pre = case["name"] + "/"
        T = {n[len(pre):]: data[n] for n in case["inputs"]}
        P = {n[len(pre) + len("param/"):]: data[n] for n in case.get("parameters", [])}
        got = compute(case, T, P)
        want = [data[n] for n in case["outputs"]]
        if len(got) != len(want):
            print(f"FAIL {case['name']}: {len(got)} outputs, manifest lists {len(want)}")
            failures += 1
            continue
        for name, g, w in zip(case["outputs"], got, want):
            g = np.asarray(g, dtype=np.float64)
            if g.shape != w.shape:
                print(f"FAIL {name}: shape {g.shape} vs golden {w.shape}")
                failures += 1
                continue
            same_special = (np.isnan(g) == np.isnan(w)) & (np.isinf(g) == np.isinf(w))
            fin = np.isfinite(w) & np.isfinite(g)
            same_inf = np.all(np.where(np.isinf(w), g == w, True))
            err = np.abs(g[fin] - w[fin]) / (1.0 + np.abs(w[fin]))
            e = float(err.max()) if err.size else 0.0
            worst = max(worst, e)
            if not (same_special.all() and same_inf) or e > 1e-11:
                print(f"FAIL {name}: max rel err {e:.3e}, special values match {bool(same_special.all() and same_inf)}")
                failures += 1
    print(f"{len(cases)} cases, {failures} failures, worst error {worst:.3e} (|got-want|/(1+|want|))")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
