"""Golden cases of the decoder ops (rmsNorm, silu, rope, writeSlice), imported by generate_goldens.py.

Reference semantics (attn4j javadoc of Ops):
    rmsNorm(x, w, eps) = x / sqrt(mean(x^2, -1) + eps) * w
    silu(x)            = x * sigmoid(x)
    rope(x, layout, base, offset): row p of [..., L, d] at position offset + p; pair i < d/2 turns by
        (offset + p) * base^(-2i/d); HALF_SPLIT pairs (x[i], x[i + d/2]) (GPT-NeoX, Llama rotate_half),
        INTERLEAVED pairs (x[2i], x[2i + 1]) (GPT-J rotate_every_two)
    writeSlice(target, source, axis, offset): target with target[..., offset:offset+n, ...] = source
    rope(x, rotary, offset): the first 2n features of each row turned by (offset + p) * inverseFrequencies[i], cos and
        sin scaled by attentionScaling, the other features copied (a RotaryEmbedding: inputs x and
        inverseFrequencies, params layout, attentionScaling, offset)
    softcap(x, cap)    = cap * tanh(x / cap)
    attention with logitSoftcap c: the scaled logits become c * tanh(logits / c) before any mask
"""

import torch
import torch.nn.functional as F

from rope_scaling import apply_rope, inverse_frequencies, rope_parameters


def rms_norm_ref(x, weight, eps):
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return y if weight is None else y * weight


def rope_angles(rows, d, base, offset):
    i = torch.arange(d // 2, dtype=torch.float64)
    frequency = base ** (-2.0 * i / d)
    positions = torch.arange(offset, offset + rows, dtype=torch.float64)
    return torch.outer(positions, frequency)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def rotate_every_two(x):
    even = x[..., 0::2]
    odd = x[..., 1::2]
    return torch.stack([-odd, even], dim=-1).flatten(-2)


def rope_ref(x, layout, base, offset):
    angles = rope_angles(x.shape[-2], x.shape[-1], base, offset)
    if layout == "HALF_SPLIT":
        cos = torch.cat([angles.cos(), angles.cos()], dim=-1)
        sin = torch.cat([angles.sin(), angles.sin()], dim=-1)
        return x * cos + rotate_half(x) * sin
    cos = angles.cos().repeat_interleave(2, dim=-1)
    sin = angles.sin().repeat_interleave(2, dim=-1)
    return x * cos + rotate_every_two(x) * sin


def write_slice_ref(target, source, axis, offset):
    out = target.clone()
    index = [slice(None)] * target.dim()
    index[axis] = slice(offset, offset + source.shape[axis])
    out[tuple(index)] = source
    return out


def decoder_ops_cases(r, gen, randn):
    G = "ops"
    for label, shape, has_weight, eps in (("3x5x8_w", (3, 5, 8), True, 1e-6), ("4x7_now", (4, 7), False, 1e-5),
                                          ("2x1x64_w_eps0", (2, 1, 64), True, 0.0)):
        name = f"rmsNorm_{label}"
        g = gen(name)
        x = randn(g, *shape)
        w = randn(g, shape[-1]) if has_weight else None
        ins = [("x", x)] + ([("weight", w)] if has_weight else [])
        r.add(G, name, "rmsNorm", {"eps": eps, "hasWeight": has_weight}, ins, [("out", rms_norm_ref(x, w, eps))])

    x = torch.cat([randn(gen("silu"), 40, scale=3.0), torch.tensor([0.0, -0.0, 30.0, -30.0, 700.0, -700.0,
                                                                    float("inf"), float("nan"), 1e-30, -1e-30])])
    r.add(G, "silu", "silu", {}, [("x", x.reshape(5, 10))], [("out", F.silu(x).reshape(5, 10))])

    for label, shape, layout, base, offset in (("half_2x3x5x8_o0", (2, 3, 5, 8), "HALF_SPLIT", 10000.0, 0),
                                               ("inter_2x3x5x8_o0", (2, 3, 5, 8), "INTERLEAVED", 10000.0, 0),
                                               ("half_1x4x1x16_o37", (1, 4, 1, 16), "HALF_SPLIT", 10000.0, 37),
                                               ("inter_1x2x3x6_o11", (1, 2, 3, 6), "INTERLEAVED", 10000.0, 11),
                                               ("half_3x64_o1000_b5e5", (3, 64), "HALF_SPLIT", 500000.0, 1000),
                                               ("inter_7x2_o3_b10", (7, 2), "INTERLEAVED", 10.0, 3)):
        name = f"rope_{label}"
        x = randn(gen(name), *shape)
        r.add(G, name, "rope", {"layout": layout, "base": base, "offset": offset}, [("x", x)],
              [("out", rope_ref(x, layout, base, offset))])

    for label, tshape, sshape, axis, offset in (("cache_2x3x8x4_at5", (2, 3, 8, 4), (2, 3, 2, 4), 2, 5),
                                                ("cache_1x2x6x3_at0", (1, 2, 6, 3), (1, 2, 1, 3), -2, 0),
                                                ("last_4x5_at4", (4, 5), (4, 1), -1, 4),
                                                ("whole_3x2", (3, 2), (3, 2), 0, 0)):
        name = f"writeSlice_{label}"
        g = gen(name)
        target = randn(g, *tshape)
        source = randn(g, *sshape)
        r.add(G, name, "writeSlice", {"axis": axis, "offset": offset}, [("target", target), ("source", source)],
              [("out", write_slice_ref(target, source, axis, offset))])


# Scaled rotary embeddings: the inverse frequencies and attention scaling of transformers' ROPE_INIT_FUNCTIONS for
# configs shaped like real checkpoints', given to the op as a RotaryEmbedding.
SCALED_ROPE = (
    # name, config, seq_len (dynamic/longrope), x shape, offset, layout
    ("linear_f4_d16", {"hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 64,
                       "rope_scaling": {"type": "linear", "factor": 4.0}}, None, (2, 3, 5, 16), 100, "HALF_SPLIT"),
    ("dynamic_f2_seq300", {"hidden_size": 128, "num_attention_heads": 4, "max_position_embeddings": 128,
                           "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}, 300, (1, 2, 4, 32), 296,
     "HALF_SPLIT"),
    ("yarn_qwen25_f4_d128", {"hidden_size": 1024, "num_attention_heads": 8, "max_position_embeddings": 32768,
                             "rope_theta": 1000000.0, "rope_scaling": {"type": "yarn", "factor": 4.0,
                                                                       "original_max_position_embeddings": 32768}},
     None, (1, 2, 3, 128), 40000, "HALF_SPLIT"),
    ("yarn_mscale_beta_untruncated_d64", {"hidden_size": 256, "num_attention_heads": 4,
                                          "max_position_embeddings": 163840,
                                          "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0,
                                                              "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 0.5,
                                                              "beta_fast": 16, "beta_slow": 2, "truncate": False,
                                                              "original_max_position_embeddings": 4096}},
     None, (2, 1, 3, 64), 7000, "HALF_SPLIT"),
    ("longrope_phi35_long_d96", {"hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
                                 "original_max_position_embeddings": 4096,
                                 "rope_scaling": {"type": "longrope",
                                                  "long_factor": [1.0 + 0.9 * i ** 1.5 for i in range(48)],
                                                  "short_factor": [1.0 + 0.002 * i for i in range(48)]}},
     5000, (1, 2, 3, 96), 4990, "HALF_SPLIT"),
    ("longrope_phi4mini_short_partial_d128", {"hidden_size": 3072, "num_attention_heads": 24,
                                              "max_position_embeddings": 131072, "partial_rotary_factor": 0.75,
                                              "original_max_position_embeddings": 4096,
                                              "rope_scaling": {"type": "su",
                                                               "long_factor": [1.0 + i for i in range(48)],
                                                               "short_factor": [1.0 + 0.01 * i for i in range(48)]}},
     4000, (1, 2, 4, 128), 3990, "HALF_SPLIT"),
    ("llama3_f32_d64", {"hidden_size": 2048, "num_attention_heads": 32, "max_position_embeddings": 131072,
                        "rope_theta": 500000.0,
                        "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                         "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}},
     None, (1, 2, 3, 64), 9000, "HALF_SPLIT"),
    ("llama3_f8_d128", {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
                        "rope_theta": 500000.0,
                        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                         "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}},
     None, (1, 1, 2, 128), 100000, "HALF_SPLIT"),
    ("default_partial_half_d16", {"hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 64,
                                  "partial_rotary_factor": 0.5}, None, (2, 2, 3, 16), 5, "HALF_SPLIT"),
    ("yarn_interleaved_partial_d24", {"hidden_size": 96, "num_attention_heads": 4, "max_position_embeddings": 8192,
                                      "partial_rotary_factor": 0.5,
                                      "rope_scaling": {"rope_type": "yarn", "factor": 2.0, "attention_factor": 1.3,
                                                       "original_max_position_embeddings": 2048}},
     None, (1, 3, 4, 24), 11, "INTERLEAVED"),
)


def scaled_rope_cases(r, gen, randn):
    for label, cfg, seq_len, shape, offset, layout in SCALED_ROPE:
        name = f"rope_{label}"
        x = randn(gen(name), *shape)
        inv, scaling = inverse_frequencies(cfg, rope_parameters(cfg), seq_len)
        out = apply_rope(x, inv, scaling, torch.arange(offset, offset + shape[-2]), layout)
        r.add("ops", name, "rope", {"layout": layout, "attentionScaling": scaling, "offset": offset},
              [("x", x), ("inverseFrequencies", inv)], [("out", out)])


def softcap_ref(x, cap):
    return cap * torch.tanh(x / cap)


def softcap_cases(r, gen, randn):
    special = torch.tensor([0.0, -0.0, 1e-30, -1e-30, 49.99, -50.01, 1e30, -1e30, 3e38, float("inf"),
                            float("-inf"), float("nan")])
    for label, cap, shape, spread in (("c50_specials", 50.0, (4, 12), 80.0), ("c30_3x4x5", 30.0, (3, 4, 5), 40.0),
                                      ("c1", 1.0, (2, 9), 3.0), ("c0p25", 0.25, (7,), 1.0)):
        name = f"softcap_{label}"
        x = randn(gen(name), *shape, scale=spread)
        if label.endswith("specials"):
            x[0] = special
        r.add("ops", name, "softcap", {"cap": cap}, [("x", x)], [("out", softcap_ref(x, cap))])
    for label, shape in (("per_head_2x5x3x8", (2, 5, 3, 8)), ("per_head_1x4x2x64", (1, 4, 2, 64))):
        name = f"rmsNorm_{label}"
        g = gen(name)
        x = randn(g, *shape)
        w = 1.0 + 0.3 * randn(g, shape[-1])
        r.add("ops", name, "rmsNorm", {"eps": 1e-6, "hasWeight": True}, [("x", x), ("weight", w)],
              [("out", rms_norm_ref(x, w, 1e-6))])


# ---------------------------------------------------------------------------------------------
# Decoders: GPT-2 and a Llama-style model in plain torch, random weights under Hugging Face names
# ---------------------------------------------------------------------------------------------

def attention_probs(q, k, v, window=None):
    """softmax(q k^T / sqrt(d) + causal (+ window)) v over [B, H, L, d], keys j <= i (and j > i - window)."""
    L = q.shape[-2]
    i = torch.arange(L).reshape(L, 1)
    j = torch.arange(L).reshape(1, L)
    allowed = j <= i
    if window is not None:
        allowed = allowed & (j > i - window)
    logits = (q @ k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
    logits = logits.masked_fill(~allowed, float("-inf"))
    return torch.softmax(logits, -1) @ v


def gpt2_state(cfg, g):
    E, V, P, n = cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"], cfg["n_layer"]
    s = {"wte.weight": torch.randn(V, E, generator=g), "wpe.weight": torch.randn(P, E, generator=g) * 0.5}
    for layer in range(n):
        p = f"h.{layer}."
        for ln in ("ln_1", "ln_2"):
            s[p + ln + ".weight"] = 1.0 + 0.2 * torch.randn(E, generator=g)
            s[p + ln + ".bias"] = 0.2 * torch.randn(E, generator=g)
        for name, (fan_in, fan_out) in (("attn.c_attn", (E, 3 * E)), ("attn.c_proj", (E, E)),
                                        ("mlp.c_fc", (E, 4 * E)), ("mlp.c_proj", (4 * E, E))):
            s[p + name + ".weight"] = torch.randn(fan_in, fan_out, generator=g) / fan_in ** 0.5
            s[p + name + ".bias"] = 0.1 * torch.randn(fan_out, generator=g)
    s["ln_f.weight"] = 1.0 + 0.2 * torch.randn(E, generator=g)
    s["ln_f.bias"] = 0.2 * torch.randn(E, generator=g)
    return s


def gpt2_logits(cfg, s, ids):
    E, H, eps = cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]
    L = ids.shape[-1]
    x = s["wte.weight"][ids] + s["wpe.weight"][torch.arange(L)]
    for layer in range(cfg["n_layer"]):
        p = f"h.{layer}."
        h = F.layer_norm(x, (E,), s[p + "ln_1.weight"], s[p + "ln_1.bias"], eps)
        qkv = h @ s[p + "attn.c_attn.weight"] + s[p + "attn.c_attn.bias"]
        q, k, v = (t.reshape(1, L, H, E // H).transpose(1, 2) for t in qkv.split(E, -1))
        a = attention_probs(q, k, v).transpose(1, 2).reshape(1, L, E)
        x = x + a @ s[p + "attn.c_proj.weight"] + s[p + "attn.c_proj.bias"]
        h = F.layer_norm(x, (E,), s[p + "ln_2.weight"], s[p + "ln_2.bias"], eps)
        h = F.gelu(h @ s[p + "mlp.c_fc.weight"] + s[p + "mlp.c_fc.bias"], approximate="tanh")
        x = x + h @ s[p + "mlp.c_proj.weight"] + s[p + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (E,), s["ln_f.weight"], s["ln_f.bias"], eps)
    return x @ s["wte.weight"].t()


def llama_state(cfg, g):
    E, V, n, I = cfg["hidden_size"], cfg["vocab_size"], cfg["num_hidden_layers"], cfg["intermediate_size"]
    H, Hkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dh = E // H
    s = {"model.embed_tokens.weight": torch.randn(V, E, generator=g)}
    for layer in range(n):
        p = f"model.layers.{layer}."
        s[p + "input_layernorm.weight"] = 1.0 + 0.2 * torch.randn(E, generator=g)
        s[p + "post_attention_layernorm.weight"] = 1.0 + 0.2 * torch.randn(E, generator=g)
        for name, (out_f, in_f) in (("self_attn.q_proj", (H * dh, E)), ("self_attn.k_proj", (Hkv * dh, E)),
                                    ("self_attn.v_proj", (Hkv * dh, E)), ("self_attn.o_proj", (E, H * dh)),
                                    ("mlp.gate_proj", (I, E)), ("mlp.up_proj", (I, E)), ("mlp.down_proj", (E, I))):
            s[p + name + ".weight"] = torch.randn(out_f, in_f, generator=g) / in_f ** 0.5
    s["model.norm.weight"] = 1.0 + 0.2 * torch.randn(E, generator=g)
    s["lm_head.weight"] = torch.randn(V, E, generator=g) / E ** 0.5 * 3.0
    return s


def llama_logits(cfg, s, ids):
    E, H, Hkv, eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["rms_norm_eps"]
    dh = E // H
    layout = "INTERLEAVED" if cfg.get("rope_interleaved", False) else "HALF_SPLIT"
    window = cfg.get("sliding_window")
    L = ids.shape[-1]
    x = s["model.embed_tokens.weight"][ids].reshape(1, L, E)
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        h = rms_norm_ref(x, s[p + "input_layernorm.weight"], eps)
        q = (h @ s[p + "self_attn.q_proj.weight"].t()).reshape(1, L, H, dh).transpose(1, 2)
        k = (h @ s[p + "self_attn.k_proj.weight"].t()).reshape(1, L, Hkv, dh).transpose(1, 2)
        v = (h @ s[p + "self_attn.v_proj.weight"].t()).reshape(1, L, Hkv, dh).transpose(1, 2)
        q = rope_ref(q, layout, cfg["rope_theta"], 0)
        k = rope_ref(k, layout, cfg["rope_theta"], 0)
        k = k.repeat_interleave(H // Hkv, dim=1)
        v = v.repeat_interleave(H // Hkv, dim=1)
        a = attention_probs(q, k, v, window).transpose(1, 2).reshape(1, L, H * dh)
        x = x + a @ s[p + "self_attn.o_proj.weight"].t()
        h = rms_norm_ref(x, s[p + "post_attention_layernorm.weight"], eps)
        m = F.silu(h @ s[p + "mlp.gate_proj.weight"].t()) * (h @ s[p + "mlp.up_proj.weight"].t())
        x = x + m @ s[p + "mlp.down_proj.weight"].t()
    x = rms_norm_ref(x, s["model.norm.weight"], eps)
    return x @ s["lm_head.weight"].t()


def greedy(logits_of, prompt, steps, min_margin=1e-3):
    """Greedy decoding by a full forward per step; asserts that no step is a near tie."""
    ids = list(prompt)
    for _ in range(steps):
        last = logits_of(torch.tensor([ids]))[0, -1]
        top = torch.topk(last, 2).values
        assert float(top[0] - top[1]) > min_margin, "near tie; change the case's seed"
        ids.append(int(torch.argmax(last)))
    return ids[len(prompt):]


GPT2_CONFIG = {"model_type": "gpt2", "vocab_size": 97, "n_positions": 64, "n_embd": 32, "n_layer": 2, "n_head": 4,
               "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new", "tie_word_embeddings": True}
LLAMA_CONFIG = {"model_type": "llama", "vocab_size": 97, "hidden_size": 32, "intermediate_size": 48,
                "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-6,
                "rope_theta": 10000.0, "max_position_embeddings": 64, "hidden_act": "silu",
                "tie_word_embeddings": False}
DECODERS = (
    ("gpt2_tiny", GPT2_CONFIG),
    ("llama_gqa_tiny", LLAMA_CONFIG),
    ("llama_mha_interleaved_tiny", dict(LLAMA_CONFIG, num_key_value_heads=4, rope_interleaved=True)),
    ("llama_mqa_window_tiny", dict(LLAMA_CONFIG, num_key_value_heads=1, sliding_window=5)),
)
NEW_TOKENS = 16


def decoder(name, cfg, gen):
    """The case's state_dict, prompt, prompt logits and greedy continuation."""
    g = gen(name)
    gpt2 = cfg["model_type"] == "gpt2"
    state = gpt2_state(cfg, g) if gpt2 else llama_state(cfg, g)
    prompt = torch.randint(0, cfg["vocab_size"], (7,), generator=g).tolist()

    def logits_of(ids):
        return gpt2_logits(cfg, state, ids) if gpt2 else llama_logits(cfg, state, ids)
    return state, prompt, logits_of(torch.tensor([prompt])), greedy(logits_of, prompt, NEW_TOKENS)


def decoder_model_cases(r, gen):
    for name, cfg in DECODERS:
        state, prompt, logits, generated = decoder(name, cfg, gen)
        params = dict(cfg, newTokens=NEW_TOKENS)
        r.add("models", name, "CausalLM", params,
              [("ids", torch.tensor(prompt, dtype=torch.float64))],
              [("logits", logits), ("generated", torch.tensor(generated, dtype=torch.float64))],
              sorted(state.items()))


# ---------------------------------------------------------------------------------------------
# Attention for decoding: causal alignment, grouped-query attention, sliding window, key length
# ---------------------------------------------------------------------------------------------

def visible_keys(lq, lk, causal, alignment, window, key_length):
    """[lq, lk] bool: key j < n, and if causal j <= i', and with a window j > i' - w, i' = i (+ n - lq bottom-right)."""
    n = key_length or lk
    shift = n - lq if alignment == "BOTTOM_RIGHT" else 0
    i = torch.arange(lq).reshape(lq, 1) + shift
    j = torch.arange(lk).reshape(1, lk)
    allowed = j < n
    if causal:
        allowed = allowed & (j <= i)
    if window:
        allowed = allowed & (j > i - window)
    return allowed


def decoding_attention_ref(q, k, v, causal, alignment, window, key_length, mask=None):
    group = q.shape[-3] // k.shape[-3]
    k = k.repeat_interleave(group, dim=-3)
    v = v.repeat_interleave(group, dim=-3)
    logits = (q @ k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
    if mask is not None:
        logits = logits.masked_fill(~mask, float("-inf"))
    logits = logits.masked_fill(~visible_keys(q.shape[-2], k.shape[-2], causal, alignment, window, key_length),
                                float("-inf"))
    weights = torch.softmax(logits, -1)
    weights = weights.masked_fill(torch.all(logits == float("-inf"), dim=-1, keepdim=True), 0.0)
    return weights @ v, weights


def decoder_attention_cases(r, gen, randn):
    G = "attention"
    for name, b, hq, hkv, lq, lk, d, causal, alignment, window, key_length, masked in (
            ("attn_bottom_right_lq_lt_lk", 1, 2, 2, 3, 7, 8, True, "BOTTOM_RIGHT", 0, 0, False),
            ("attn_bottom_right_lq_gt_lk", 1, 1, 1, 7, 4, 8, True, "BOTTOM_RIGHT", 0, 0, False),
            ("attn_bottom_right_square", 2, 2, 2, 5, 5, 4, True, "BOTTOM_RIGHT", 0, 0, False),
            ("attn_gqa_4_over_2", 2, 4, 2, 5, 6, 8, False, "TOP_LEFT", 0, 0, False),
            ("attn_mqa_causal", 1, 3, 1, 6, 6, 4, True, "TOP_LEFT", 0, 0, False),
            ("attn_window3_top_left", 1, 2, 2, 8, 8, 4, True, "TOP_LEFT", 3, 0, False),
            ("attn_window4_bottom_right_gqa", 1, 4, 2, 3, 10, 8, True, "BOTTOM_RIGHT", 4, 0, False),
            ("attn_key_length_cache", 2, 2, 2, 1, 12, 8, True, "BOTTOM_RIGHT", 0, 9, False),
            ("attn_key_length_not_causal_masked", 2, 2, 1, 2, 10, 4, False, "TOP_LEFT", 0, 6, True),
            ("attn_decode_gqa_window_long_cache", 1, 8, 2, 1, 600, 16, True, "BOTTOM_RIGHT", 256, 517, False),
            ("attn_decode_gqa_long_cache", 2, 4, 2, 2, 700, 32, True, "BOTTOM_RIGHT", 0, 650, True)):
        g = gen(name)
        q = randn(g, b, hq, lq, d)
        k = randn(g, b, hkv, lk, d)
        v = randn(g, b, hkv, lk, d)
        mask = None
        if masked:
            mask = torch.rand(b, 1, 1, lk, generator=g) < 0.7
            mask[..., 0] = True
        out, weights = decoding_attention_ref(q, k, v, causal, alignment, window, key_length, mask)
        params = {"causal": causal, "scale": None, "dropoutP": 0.0, "dropoutSeed": 0, "returnWeights": True,
                  "causalAlignment": alignment, "window": window, "keyLength": key_length}
        ins = [("q", q), ("k", k), ("v", v)] + ([("mask", mask.to(torch.float64))] if masked else [])
        r.add(G, name, "attention", params, ins, [("out", out), ("weights", weights)])


def capped_attention_ref(q, k, v, cap, causal, alignment, window, key_length, mask=None, additive=None):
    """decoding_attention_ref with the scaled logits soft-capped to cap * tanh(logits / cap) before the masks."""
    group = q.shape[-3] // k.shape[-3]
    k = k.repeat_interleave(group, dim=-3)
    v = v.repeat_interleave(group, dim=-3)
    logits = softcap_ref((q @ k.transpose(-2, -1)) / (q.shape[-1] ** 0.5), cap)
    if additive is not None:
        logits = logits + additive
    if mask is not None:
        logits = logits.masked_fill(~mask, float("-inf"))
    logits = logits.masked_fill(~visible_keys(q.shape[-2], k.shape[-2], causal, alignment, window, key_length),
                                float("-inf"))
    weights = torch.softmax(logits, -1)
    weights = weights.masked_fill(torch.all(logits == float("-inf"), dim=-1, keepdim=True), 0.0)
    return weights @ v, weights


def softcap_attention_cases(r, gen, randn):
    """Gemma 2's attention-logit soft-capping, alone and with every decoding option."""
    G = "attention"
    for name, b, hq, hkv, lq, lk, d, cap, causal, alignment, window, key_length, masked, additive in (
            ("attn_softcap5_causal", 2, 3, 3, 9, 9, 16, 5.0, True, "TOP_LEFT", 0, 0, False, False),
            ("attn_softcap50_masks", 1, 2, 2, 6, 11, 8, 50.0, False, "TOP_LEFT", 0, 0, True, True),
            ("attn_softcap2_gqa_window_bottom_right", 1, 4, 2, 3, 40, 16, 2.0, True, "BOTTOM_RIGHT", 8, 33, True,
             False),
            ("attn_softcap20_decode_long_cache", 1, 8, 2, 1, 300, 16, 20.0, True, "BOTTOM_RIGHT", 0, 270, False,
             False),
            ("attn_softcap1_fully_masked_rows", 2, 1, 1, 4, 6, 4, 1.0, False, "TOP_LEFT", 0, 0, True, True)):
        g = gen(name)
        q = randn(g, b, hq, lq, d, scale=3.0)
        k = randn(g, b, hkv, lk, d, scale=3.0)
        v = randn(g, b, hkv, lk, d)
        mask = None
        if masked:
            mask = torch.rand(b, 1, 1, lk, generator=g) < 0.7
            mask[..., 0] = True
            if name.endswith("fully_masked_rows"):
                mask[1] = False
        add = randn(g, lq, lk) if additive else None
        out, weights = capped_attention_ref(q, k, v, cap, causal, alignment, window, key_length, mask, add)
        params = {"causal": causal, "scale": None, "dropoutP": 0.0, "dropoutSeed": 0, "returnWeights": True,
                  "causalAlignment": alignment, "window": window, "keyLength": key_length, "logitSoftcap": cap}
        ins = [("q", q), ("k", k), ("v", v)] + ([("mask", mask.to(torch.float64))] if masked else []) \
            + ([("additiveMask", add)] if additive else [])
        r.add(G, name, "attention", params, ins, [("out", out), ("weights", weights)])
