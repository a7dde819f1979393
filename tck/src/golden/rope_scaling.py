"""Rotary embedding parameters of a Hugging Face config, as transformers' ROPE_INIT_FUNCTIONS compute them.

Written from transformers' modeling_rope_utils.py (default, linear, dynamic, yarn, longrope, llama3 and the
standardisation of `rope_scaling` / `rope_parameters`), in float64 throughout where transformers computes the
frequencies in float32. Imported by decoder_cases.py for the TCK's rotary golden cases and the family references.

    inverse_frequencies(cfg, params, seq_len)  -> (inv_freq [dim/2] float64 tensor, attention scaling)
    rope_parameters(cfg, layer_type)           -> the standardised parameter dict of one layer type
"""

import math

import torch


def head_dim(cfg):
    return cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def rope_parameters(cfg, layer_type="full_attention"):
    """transformers' standardize_rope_params: rope_scaling (or rope_parameters, possibly per layer type) with
    rope_type, rope_theta, partial_rotary_factor and, for llama3/yarn/longrope, original_max_position_embeddings
    (a top-level original_max_position_embeddings wins, as for Phi-3)."""
    given = cfg.get("rope_scaling") or cfg.get("rope_parameters") or {}
    if given and set(given) <= {"full_attention", "sliding_attention"}:
        given = given[layer_type]
    params = dict(given)
    params.setdefault("rope_type", params.get("type", "default"))
    if params["rope_type"] == "su":
        params["rope_type"] = "longrope"
    params.setdefault("rope_theta", cfg.get("rope_theta", 10000.0))
    if "partial_rotary_factor" in cfg:
        params["partial_rotary_factor"] = cfg["partial_rotary_factor"]
    if params["rope_type"] in ("llama3", "yarn", "longrope"):
        if "original_max_position_embeddings" in cfg:
            params["original_max_position_embeddings"] = cfg["original_max_position_embeddings"]
        else:
            params.setdefault("original_max_position_embeddings", cfg["max_position_embeddings"])
    return params


def _dim(cfg, params):
    return int(head_dim(cfg) * params.get("partial_rotary_factor", 1.0))


def _default(base, dim):
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))


def inverse_frequencies(cfg, params, seq_len=None):
    """(inverse frequencies, attention scaling) for a forward whose largest position is seq_len - 1."""
    kind = params["rope_type"]
    base = params["rope_theta"]
    dim = _dim(cfg, params)
    if kind == "default":
        return _default(base, dim), 1.0
    if kind == "linear":
        return _default(base, dim) / params["factor"], 1.0
    if kind == "dynamic":
        factor = params["factor"]
        max_pos = cfg["max_position_embeddings"]
        seq = max_pos if seq_len is None else max(seq_len, max_pos)
        base = base * ((factor * seq / max_pos) - (factor - 1)) ** (dim / (dim - 2))
        return _default(base, dim), 1.0
    if kind == "yarn":
        return _yarn(cfg, params, base, dim)
    if kind == "longrope":
        original = params["original_max_position_embeddings"]
        factor = params.get("factor")
        if factor is None:
            factor = cfg["max_position_embeddings"] / original
        attention = params.get("attention_factor")
        if attention is None:
            attention = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))
        ext = params["long_factor"] if seq_len is not None and seq_len > original else params["short_factor"]
        ext = torch.tensor(ext, dtype=torch.float64)
        return 1.0 / (ext * base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)), attention
    if kind == "llama3":
        inv = _default(base, dim)
        factor = params["factor"]
        low, high = params["low_freq_factor"], params["high_freq_factor"]
        old = params["original_max_position_embeddings"]
        low_wavelen, high_wavelen = old / low, old / high
        wavelen = 2 * math.pi / inv
        llama = torch.where(wavelen > low_wavelen, inv / factor, inv)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * llama / factor + smooth * llama
        medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
        return torch.where(medium, smoothed, llama), 1.0
    raise ValueError("rope_type " + kind)


def _yarn(cfg, params, base, dim):
    original = params["original_max_position_embeddings"]
    factor = params.get("factor")
    if factor is None:
        factor = cfg["max_position_embeddings"] / original

    def mscale(scale, m=1.0):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    attention = params.get("attention_factor")
    if attention is None:
        if params.get("mscale") and params.get("mscale_all_dim"):
            attention = mscale(factor, params["mscale"]) / mscale(factor, params["mscale_all_dim"])
        else:
            attention = mscale(factor)
    beta_fast = params.get("beta_fast") or 32
    beta_slow = params.get("beta_slow") or 1

    def correction_dim(rotations):
        return (dim * math.log(original / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if params.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)
    extrapolation = 1 - ramp
    pos = base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    inv = (1.0 / (factor * pos)) * (1 - extrapolation) + (1.0 / pos) * extrapolation
    return inv, attention


def rope_angles(inv_freq, positions):
    """[len(positions), n] angles p * inv_freq."""
    return torch.outer(torch.as_tensor(positions, dtype=torch.float64), inv_freq)


def apply_rope(x, inv_freq, scaling, positions, layout="HALF_SPLIT"):
    """x [..., L, d]: the first 2n features turned as transformers' apply_rotary_pos_emb (partial rotary: the rest
    passes), cos and sin multiplied by the attention scaling, from angles computed in float64 and taken to x's
    dtype."""
    n = inv_freq.shape[0]
    angles = rope_angles(inv_freq, positions).to(x.dtype)
    rot, rest = x[..., :2 * n], x[..., 2 * n:]
    if layout == "HALF_SPLIT":
        cos = torch.cat([angles.cos(), angles.cos()], dim=-1) * scaling
        sin = torch.cat([angles.sin(), angles.sin()], dim=-1) * scaling
        turned = rot * cos + torch.cat([-rot[..., n:], rot[..., :n]], dim=-1) * sin
    else:
        cos = angles.cos().repeat_interleave(2, dim=-1) * scaling
        sin = angles.sin().repeat_interleave(2, dim=-1) * scaling
        pairs = torch.stack([-rot[..., 1::2], rot[..., 0::2]], dim=-1).flatten(-2)
        turned = rot * cos + pairs * sin
    return torch.cat([turned, rest], dim=-1)
