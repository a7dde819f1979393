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

from decoder_families import generate, random_state
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
# Decoders: every family's forward in plain torch (decoder_families.py), random weights under Hugging Face names
# ---------------------------------------------------------------------------------------------

GPT2_CONFIG = {"model_type": "gpt2", "vocab_size": 97, "n_positions": 64, "n_embd": 32, "n_layer": 2, "n_head": 4,
               "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new", "tie_word_embeddings": True}
LLAMA_CONFIG = {"model_type": "llama", "vocab_size": 97, "hidden_size": 32, "intermediate_size": 48,
                "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-6,
                "rope_theta": 10000.0, "max_position_embeddings": 64, "hidden_act": "silu",
                "tie_word_embeddings": False}
# Tiny configs shaped like the checkpoints': each carries the keys its family's real config.json carries.
META = {"bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "bfloat16", "transformers_version": "4.46.0",
        "use_cache": True, "initializer_range": 0.02, "attention_dropout": 0.0}
LLAMA31 = dict(META, architectures=["LlamaForCausalLM"], model_type="llama", vocab_size=97, hidden_size=32,
               intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
               hidden_act="silu", max_position_embeddings=2048, rms_norm_eps=1e-5, rope_theta=500000.0,
               rope_scaling={"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                             "original_max_position_embeddings": 256, "rope_type": "llama3"},
               attention_bias=False, mlp_bias=False, pretraining_tp=1, tie_word_embeddings=False,
               eos_token_id=[2, 3])
MISTRAL = dict(META, architectures=["MistralForCausalLM"], model_type="mistral", vocab_size=97, hidden_size=32,
               intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1,
               hidden_act="silu", max_position_embeddings=128, rms_norm_eps=1e-5, rope_theta=1000000.0,
               sliding_window=4, tie_word_embeddings=False)
QWEN25 = dict(META, architectures=["Qwen2ForCausalLM"], model_type="qwen2", vocab_size=97, hidden_size=32,
              intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
              hidden_act="silu", max_position_embeddings=32, rms_norm_eps=1e-6, rope_theta=1000000.0,
              rope_scaling={"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32},
              use_sliding_window=True, sliding_window=5, max_window_layers=1, tie_word_embeddings=True)
QWEN3 = dict(META, architectures=["Qwen3ForCausalLM"], model_type="qwen3", vocab_size=97, hidden_size=32,
             intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
             hidden_act="silu", max_position_embeddings=40960, rms_norm_eps=1e-6, rope_theta=1000000,
             rope_scaling=None, attention_bias=False, use_sliding_window=False, sliding_window=None,
             max_window_layers=2, tie_word_embeddings=True)
GEMMA = dict(META, architectures=["GemmaForCausalLM"], model_type="gemma", vocab_size=97, hidden_size=32,
             intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=24,
             hidden_act="gelu", hidden_activation="gelu_pytorch_tanh", max_position_embeddings=8192,
             rms_norm_eps=1e-6, rope_theta=10000.0, rope_scaling=None, attention_bias=False, pad_token_id=0)
GEMMA2 = dict(META, architectures=["Gemma2ForCausalLM"], model_type="gemma2", vocab_size=97, hidden_size=32,
              intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
              hidden_act="gelu_pytorch_tanh", hidden_activation="gelu_pytorch_tanh", max_position_embeddings=8192,
              rms_norm_eps=1e-6, rope_theta=10000.0, attention_bias=False, query_pre_attn_scalar=24,
              sliding_window=4, attn_logit_softcapping=2.0, final_logit_softcapping=8.0,
              cache_implementation="hybrid", pad_token_id=0)
# gemma-3-1b-it's keys: five local layers (window 4 here) to one global, two rotary bases, no soft-capping
GEMMA3 = dict(META, architectures=["Gemma3ForCausalLM"], model_type="gemma3_text", vocab_size=97, hidden_size=32,
              intermediate_size=64, num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=1, head_dim=16,
              hidden_activation="gelu_pytorch_tanh", max_position_embeddings=32768, rms_norm_eps=1e-6,
              rope_theta=1000000, rope_local_base_freq=10000, rope_scaling=None, attention_bias=False,
              query_pre_attn_scalar=16, sliding_window=4, sliding_window_pattern=6, attn_logit_softcapping=None,
              final_logit_softcapping=None, cache_implementation="hybrid", pad_token_id=0, eos_token_id=[1, 106])
# gemma-3-4b-it's image-text wrapper: a sparse text_config (Gemma3TextConfig's defaults for the rest: rope_theta 1e6,
# rope_local_base_freq 10000, query_pre_attn_scalar 256, pattern 6), linear rope scaling on the global layers only,
# and a vision tower and projector that the text decoder does not use
GEMMA3_IMAGE_TEXT = {
    "architectures": ["Gemma3ForConditionalGeneration"], "boi_token_index": 255999, "eoi_token_index": 256000,
    "eos_token_id": [1, 106], "image_token_index": 262144, "initializer_range": 0.02, "mm_tokens_per_image": 256,
    "model_type": "gemma3", "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0",
    "text_config": {"hidden_size": 32, "intermediate_size": 64, "model_type": "gemma3_text", "num_hidden_layers": 6,
                    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 97,
                    "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 3},
    "vision_config": {"hidden_size": 8, "image_size": 896, "intermediate_size": 4304,
                      "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27,
                      "patch_size": 14, "vision_use_head": False}}
PHI3 = dict(META, architectures=["Phi3ForCausalLM"], model_type="phi3", vocab_size=97, hidden_size=32,
            intermediate_size=48, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
            hidden_act="silu", max_position_embeddings=48, original_max_position_embeddings=12,
            partial_rotary_factor=0.5, rms_norm_eps=1e-5, rope_theta=10000.0,
            rope_scaling={"type": "longrope", "long_factor": [1.0, 1.5, 3.0, 9.0],
                          "short_factor": [1.0, 1.02, 1.1, 1.3]},
            sliding_window=9, embd_pdrop=0.0, resid_pdrop=0.0, tie_word_embeddings=False, pad_token_id=96)
DECODERS = (
    ("gpt2_tiny", GPT2_CONFIG),
    ("llama_gqa_tiny", LLAMA_CONFIG),
    ("llama_mha_interleaved_tiny", dict(LLAMA_CONFIG, num_key_value_heads=4, rope_interleaved=True)),
    ("llama_mqa_window_tiny", dict(LLAMA_CONFIG, model_type="mistral", num_key_value_heads=1, sliding_window=5)),
    ("llama31_untied_tiny", LLAMA31),
    ("llama32_tied_tiny", dict(LLAMA31, tie_word_embeddings=True,
                               rope_scaling=dict(LLAMA31["rope_scaling"], factor=32.0))),
    ("llama_dynamic_bias_tiny", dict(LLAMA_CONFIG, max_position_embeddings=10, attention_bias=True, mlp_bias=True,
                                     rope_scaling={"rope_type": "dynamic", "factor": 2.0})),
    ("mistral_window_tiny", MISTRAL),
    ("qwen25_yarn_window_tiny", QWEN25),
    # Qwen2.5-7B's shape: yarn, no window in use, an untied head
    ("qwen25_yarn_untied_tiny", dict(QWEN25, use_sliding_window=False, sliding_window=32, max_window_layers=2,
                                     tie_word_embeddings=False)),
    ("qwen3_per_head_norm_tiny", QWEN3),
    ("gemma_tiny", GEMMA),
    ("gemma2_softcap_tiny", GEMMA2),
    # Gemma 2 2B/9B's scaling (query_pre_attn_scalar = head_dim), the value a GGUF file implies
    ("gemma2_head_scalar_tiny", dict(GEMMA2, query_pre_attn_scalar=16)),
    ("phi3_longrope_tiny", PHI3),
    ("gpt2_inner_untied_tiny", dict(GPT2_CONFIG, n_inner=40, activation_function="gelu", tie_word_embeddings=False,
                                    scale_attn_by_inverse_layer_idx=True)),
    ("gemma3_interleaved_tiny", GEMMA3),
    ("gemma3_image_text_linear_tiny", GEMMA3_IMAGE_TEXT),
)
NEW_TOKENS = 16
MIN_MARGIN = 5e-3


def decoder(name, cfg, gen):
    """The case's state_dict, prompt, prompt logits, greedy continuation, step logits and top-1 margins."""
    g = gen(name)
    state = random_state(cfg, g)
    prompt = torch.randint(0, cfg.get("text_config", cfg)["vocab_size"], (7,), generator=g).tolist()
    logits, generated, steps, margins = generate(cfg, state, prompt, NEW_TOKENS)
    assert min(margins) > MIN_MARGIN, f"{name}: near tie ({min(margins)}); change the case"
    return state, prompt, logits, generated, steps, margins


def decoder_model_cases(r, gen):
    for name, cfg in DECODERS:
        state, prompt, logits, generated, steps, margins = decoder(name, cfg, gen)
        params = {"config": cfg, "newTokens": NEW_TOKENS}
        r.add("models", name, "CausalLM", params,
              [("ids", torch.tensor(prompt, dtype=torch.float64))],
              [("logits", logits), ("generated", torch.tensor(generated, dtype=torch.float64)),
               ("stepLogits", steps), ("margins", torch.tensor(margins))],
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


# ---------------------------------------------------------------------------------------------
# Rotary parameters of checkpoints' configs, for the models module's reader of rope_scaling / rope_parameters
# ---------------------------------------------------------------------------------------------

def _factors(n, top):
    return [round(1.0 + (top - 1.0) * (i / (n - 1)) ** 2, 6) for i in range(n)]


PHI3_128K = {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
             "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
             "rope_scaling": {"type": "su", "long_factor": _factors(48, 60.0), "short_factor": _factors(48, 1.1)}}
PHI4_MINI = {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 24, "max_position_embeddings": 131072,
             "original_max_position_embeddings": 4096, "rope_theta": 10000.0, "partial_rotary_factor": 0.75,
             "rope_scaling": {"type": "longrope", "long_factor": _factors(48, 50.0),
                              "short_factor": _factors(48, 1.05)}}
ROPE_PARAMETERS = (
    # name, config, seq_len, layer type
    ("llama31_8b", {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
                    "max_position_embeddings": 131072, "rope_theta": 500000.0,
                    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                     "original_max_position_embeddings": 8192, "rope_type": "llama3"}}, 20, None),
    ("llama32_1b", {"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 64,
                    "max_position_embeddings": 131072, "rope_theta": 500000.0,
                    "rope_scaling": {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                     "original_max_position_embeddings": 8192, "rope_type": "llama3"}}, 20, None),
    ("llama2_default", {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
                        "max_position_embeddings": 4096, "rope_theta": 10000.0, "rope_scaling": None}, 20, None),
    ("linear_f4", {"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32,
                   "max_position_embeddings": 4096, "rope_scaling": {"type": "linear", "factor": 4.0}}, 20, None),
    ("dynamic_f2_short", {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
                          "max_position_embeddings": 4096, "rope_scaling": {"type": "dynamic", "factor": 2.0}},
     100, None),
    ("dynamic_f2_long", {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
                         "max_position_embeddings": 4096, "rope_scaling": {"type": "dynamic", "factor": 2.0}},
     10000, None),
    ("qwen25_7b_yarn", {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
                        "num_key_value_heads": 4, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
                        "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}},
     20, None),
    ("qwen3_yarn", {"model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
                    "head_dim": 128,
                    "max_position_embeddings": 40960, "rope_theta": 1000000,
                    "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}},
     20, None),
    ("yarn_mscale_derived_factor", {"model_type": "qwen2", "hidden_size": 2048, "num_attention_heads": 16,
                                    "num_key_value_heads": 16, "max_position_embeddings": 163840,
                                    "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0,
                                                        "mscale": 1.0, "mscale_all_dim": 1.0, "beta_fast": 32,
                                                        "beta_slow": 1, "truncate": False,
                                                        "original_max_position_embeddings": 4096}}, 20, None),
    ("phi3_mini_128k_su_short", PHI3_128K, 4000, None),
    ("phi3_mini_128k_su_long", PHI3_128K, 4097, None),
    ("phi4_mini_partial_short", PHI4_MINI, 30, None),
    ("phi4_mini_partial_long", PHI4_MINI, 9000, None),
    ("per_layer_type_local", {"model_type": "gemma2", "hidden_size": 2304, "num_attention_heads": 8,
                              "head_dim": 256, "max_position_embeddings": 8192,
                              "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                                                  "full_attention": {"rope_type": "linear", "factor": 8.0,
                                                                     "rope_theta": 1000000.0}}},
     20, "sliding_attention"),
    ("per_layer_type_global", {"model_type": "gemma2", "hidden_size": 2304, "num_attention_heads": 8,
                               "head_dim": 256, "max_position_embeddings": 8192,
                               "rope_parameters": {"sliding_attention": {"rope_type": "default",
                                                                         "rope_theta": 10000.0},
                                                   "full_attention": {"rope_type": "linear", "factor": 8.0,
                                                                      "rope_theta": 1000000.0}}},
     20, "full_attention"),
)


def rope_parameter_cases(r):
    for name, cfg, seq_len, layer_type in ROPE_PARAMETERS:
        inv, scaling = inverse_frequencies(cfg, rope_parameters(cfg, layer_type or "full_attention"), seq_len)
        r.add("models", "rope_parameters_" + name, "RopeParameters",
              {"config": cfg, "seqLen": seq_len, "layerType": layer_type or "full_attention"}, [],
              [("inverseFrequencies", inv), ("attentionScaling", torch.tensor(scaling))])
