"""Reference forwards of the decoder families in plain torch float64, written from transformers' modeling_*.py.

No transformers library is used: each family's forward is spelled out below from its modeling file (LlamaModel,
MistralModel, Qwen2Model, Qwen3Model, GemmaModel, Gemma2Model, Gemma3TextModel, Phi3Model, GPT2Model) with the
config keys those files read and transformers' defaults, and the rotary embeddings of rope_scaling.py. A forward runs new tokens
after a key/value cache, as transformers' generate does, so that rotary embeddings that depend on the sequence
length (dynamic NTK) rotate each key once, when it is computed; Gemma 3's image-text wrapper (model_type gemma3)
runs the decoder of its text_config on the weights under language_model.model.; Phi-3 drops its cache and runs the whole sequence
again the first time the sequence passes original_max_position_embeddings (Phi3ForCausalLM.
prepare_inputs_for_generation).

    random_state(cfg, g)               the parameters under Hugging Face names, seeded
    Cache(cfg), forward(cfg, s, ids, cache) -> logits [1, L, V]
    _lineage_blocks(cfg, s, ids, start, cache)  the final norm's output [L, E] of ids [L], or [B, L, E] of ids [B, L]
                                       (rows of one length, no padding), in the dtype of the parameters
    generate(cfg, s, prompt, steps)    greedy ids, the logits of each step, and each step's top-1 margin
"""

import math

import torch
import torch.nn.functional as F

from rope_scaling import apply_rope, inverse_frequencies, rope_parameters

LINEAGE = ("llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "phi3")
GEMMAS = ("gemma", "gemma2", "gemma3_text")
SANDWICHED = ("gemma2", "gemma3_text")
GELUS = {"gelu_pytorch_tanh": "tanh", "gelu_new": "tanh", "gelu": "none"}


def head_dim(cfg):
    if cfg["model_type"] == "gpt2":
        return cfg["n_embd"] // cfg["n_head"]
    default = {"qwen3": 128, "gemma": 256, "gemma2": 256, "gemma3_text": 256}.get(cfg["model_type"])
    return cfg.get("head_dim") or default or cfg["hidden_size"] // cfg["num_attention_heads"]


def kv_heads(cfg):
    return cfg.get("num_key_value_heads") or cfg["num_attention_heads"]


def layer_types(cfg):
    n = cfg["num_hidden_layers"]
    if cfg.get("layer_types"):
        return list(cfg["layer_types"])
    mt = cfg["model_type"]
    if mt == "gemma2":
        return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(n)]
    if mt == "gemma3_text":
        pattern = cfg.get("sliding_window_pattern", 6)
        return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(n)]
    if mt in ("qwen2", "qwen3"):
        window = cfg.get("sliding_window", 4096) if cfg.get("use_sliding_window", False) else None
        return ["sliding_attention" if window is not None and i >= cfg.get("max_window_layers", 28)
                else "full_attention" for i in range(n)]
    return ["full_attention"] * n


def windows(cfg):
    """The sliding window of each layer, 0 for none, as each family's attention passes it."""
    mt = cfg["model_type"]
    types = layer_types(cfg)
    if mt in ("mistral", "phi3"):
        w = cfg.get("sliding_window", 4096 if mt == "mistral" else None)
        return [w or 0 for _ in types]
    if mt in ("qwen2", "qwen3"):
        w = cfg.get("sliding_window", 4096) if cfg.get("use_sliding_window", False) else None
        return [(w or 0) if t == "sliding_attention" else 0 for t in types]
    if mt in SANDWICHED:
        w = cfg.get("sliding_window", 4096)
        return [(w or 0) if t == "sliding_attention" else 0 for t in types]
    return [0 for _ in types]


def _linear(g, out_f, in_f):
    return torch.randn(out_f, in_f, generator=g) / in_f ** 0.5


def random_state(cfg, g):
    """Random parameters under the family's names (Llama's draw order first, extras after each of its tensors)."""
    mt = cfg["model_type"]
    if mt == "gpt2":
        return _gpt2_state(cfg, g)
    if mt == "gemma3":
        return _gemma3_image_text_state(cfg, g)
    E, V, n, I = cfg["hidden_size"], cfg["vocab_size"], cfg["num_hidden_layers"], cfg["intermediate_size"]
    H, Hkv, d = cfg["num_attention_heads"], kv_heads(cfg), head_dim(cfg)
    gemma = mt in GEMMAS
    tied = cfg.get("tie_word_embeddings", gemma)
    bias = mt == "qwen2" or cfg.get("attention_bias", False)
    mlp_bias = cfg.get("mlp_bias", False) and mt == "llama"

    def norm(size):
        return (0.0 if gemma else 1.0) + 0.2 * torch.randn(size, generator=g)

    s = {"model.embed_tokens.weight": torch.randn(V, E, generator=g) / (E ** 0.5 if gemma else 1.0)}
    for layer in range(n):
        p = f"model.layers.{layer}."
        s[p + "input_layernorm.weight"] = norm(E)
        s[p + "post_attention_layernorm.weight"] = norm(E)
        projections = {}
        for name, (out_f, in_f) in (("self_attn.q_proj", (H * d, E)), ("self_attn.k_proj", (Hkv * d, E)),
                                    ("self_attn.v_proj", (Hkv * d, E)), ("self_attn.o_proj", (E, H * d)),
                                    ("mlp.gate_proj", (I, E)), ("mlp.up_proj", (I, E)), ("mlp.down_proj", (E, I))):
            projections[name] = _linear(g, out_f, in_f)
        if mt == "phi3":
            s[p + "self_attn.qkv_proj.weight"] = torch.cat([projections.pop("self_attn." + x + "_proj")
                                                            for x in "qkv"])
            s[p + "mlp.gate_up_proj.weight"] = torch.cat([projections.pop("mlp.gate_proj"),
                                                          projections.pop("mlp.up_proj")])
        for name, w in projections.items():
            s[p + name + ".weight"] = w
        if bias:
            for x in "qkv":
                s[p + f"self_attn.{x}_proj.bias"] = 0.1 * torch.randn(s[p + f"self_attn.{x}_proj.weight"].shape[0],
                                                                       generator=g)
            if mt != "qwen2":
                s[p + "self_attn.o_proj.bias"] = 0.1 * torch.randn(E, generator=g)
        if mlp_bias:
            for name in ("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"):
                s[p + name + ".bias"] = 0.1 * torch.randn(s[p + name + ".weight"].shape[0], generator=g)
        if mt == "qwen3":
            s[p + "self_attn.q_norm.weight"] = 1.0 + 0.2 * torch.randn(d, generator=g)
            s[p + "self_attn.k_norm.weight"] = 1.0 + 0.2 * torch.randn(d, generator=g)
        if mt == "gemma3_text":
            s[p + "self_attn.q_norm.weight"] = norm(d)
            s[p + "self_attn.k_norm.weight"] = norm(d)
        if mt in SANDWICHED:
            s[p + "pre_feedforward_layernorm.weight"] = norm(E)
            s[p + "post_feedforward_layernorm.weight"] = norm(E)
    s["model.norm.weight"] = norm(E)
    if not tied:
        s["lm_head.weight"] = torch.randn(V, E, generator=g) / E ** 0.5 * 3.0
    elif mt != "llama" or cfg.get("rope_scaling"):
        # A tied head reads the residual stream with the embedding itself: with embeddings as strong as the blocks'
        # outputs, a tiny random model predicts the token it was given, again and again. Weaker embeddings,
        # stronger outputs and a wider final norm give varied continuations with clear margins.
        s["model.embed_tokens.weight"] *= 0.5
        for name in s:
            if name.endswith("o_proj.weight") or name.endswith("down_proj.weight"):
                s[name] *= 3.0
        s["model.norm.weight"] = (4.0 + 5 * s["model.norm.weight"]) if gemma else 2 * s["model.norm.weight"]
    return s


def _gemma3_image_text_state(cfg, g):
    """The text decoder's parameters under language_model., then a vision tower and projector in miniature."""
    s = {"language_model." + k: v for k, v in random_state(cfg["text_config"], g).items()}
    vision = cfg["vision_config"]["hidden_size"]
    s["vision_tower.vision_model.embeddings.patch_embedding.weight"] = torch.randn(vision, 3, 2, 2, generator=g)
    s["multi_modal_projector.mm_soft_emb_norm.weight"] = torch.randn(vision, generator=g)
    s["multi_modal_projector.mm_input_projection_weight"] = torch.randn(vision, cfg["text_config"]["hidden_size"],
                                                                        generator=g)
    return s


def _gpt2_state(cfg, g):
    E, V, P, n = cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"], cfg["n_layer"]
    inner = cfg.get("n_inner") or 4 * E
    s = {"wte.weight": torch.randn(V, E, generator=g), "wpe.weight": torch.randn(P, E, generator=g) * 0.5}
    for layer in range(n):
        p = f"h.{layer}."
        for ln in ("ln_1", "ln_2"):
            s[p + ln + ".weight"] = 1.0 + 0.2 * torch.randn(E, generator=g)
            s[p + ln + ".bias"] = 0.2 * torch.randn(E, generator=g)
        for name, (fan_in, fan_out) in (("attn.c_attn", (E, 3 * E)), ("attn.c_proj", (E, E)),
                                        ("mlp.c_fc", (E, inner)), ("mlp.c_proj", (inner, E))):
            s[p + name + ".weight"] = torch.randn(fan_in, fan_out, generator=g) / fan_in ** 0.5
            s[p + name + ".bias"] = 0.1 * torch.randn(fan_out, generator=g)
    s["ln_f.weight"] = 1.0 + 0.2 * torch.randn(E, generator=g)
    s["ln_f.bias"] = 0.2 * torch.randn(E, generator=g)
    if not cfg.get("tie_word_embeddings", True):
        s["lm_head.weight"] = torch.randn(V, E, generator=g) / E ** 0.5 * 3.0
    return s


def rms_norm(x, w, eps, one_plus=False):
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return y * ((1.0 + w) if one_plus else w)


def activation(name, x):
    if name in ("silu", "swish"):
        return F.silu(x)
    if name == "relu":
        return F.relu(x)
    return F.gelu(x, approximate=GELUS[name])


def mlp_activation(cfg):
    mt = cfg["model_type"]
    if mt == "gpt2":
        return cfg.get("activation_function", "gelu_new")
    if mt in GEMMAS:
        return cfg.get("hidden_activation") or "gelu_pytorch_tanh"
    return cfg.get("hidden_act", "silu")


class Cache:
    """Per layer the keys (after the rotary embedding) and values of every position so far, and the tokens."""

    def __init__(self, cfg):
        self.keys = [None] * (cfg.get("num_hidden_layers") or cfg["n_layer"])
        self.values = [None] * len(self.keys)
        self.tokens = []

    def __len__(self):
        return len(self.tokens)


def repeat_kv(t, n):
    """t [..., Hkv, L, d] -> [..., Hkv·n, L, d]: each key/value head n times in a row (transformers' repeat_kv)."""
    *lead, heads, length, d = t.shape
    return t.unsqueeze(-3).expand(*lead, heads, n, length, d).reshape(*lead, heads * n, length, d)


def attend(q, k, v, start, scale, window=0, softcap=None):
    """q [..., H, L, d] at positions start.., k and v [..., H, start + L, d]: causal, with a window of keys (itself
    included)."""
    L, n = q.shape[-2], k.shape[-2]
    i = torch.arange(start, start + L).reshape(L, 1)
    j = torch.arange(n).reshape(1, n)
    allowed = j <= i
    if window:
        allowed = allowed & (j > i - window)
    logits = (q @ k.transpose(-2, -1)) * scale
    if softcap:
        logits = softcap * torch.tanh(logits / softcap)
    logits = logits.masked_fill(~allowed, float("-inf"))
    return torch.softmax(logits, -1) @ v


def forward(cfg, s, ids, cache):
    """Logits [1, L, V] of the new tokens ids after the cache, which receives their keys, values and tokens."""
    mt = cfg["model_type"]
    start = len(cache)
    L = len(ids)
    ids_t = torch.tensor(ids)
    if mt == "gpt2":
        x = _gpt2_blocks(cfg, s, ids_t, start, cache)
    else:
        x = _lineage_blocks(cfg, s, ids_t, start, cache)
    cache.tokens.extend(ids)
    if mt == "gpt2":
        head = s["lm_head.weight"] if "lm_head.weight" in s else s["wte.weight"]
    else:
        head = s["lm_head.weight"] if "lm_head.weight" in s else s["model.embed_tokens.weight"]
    logits = (x @ head.t()).reshape(1, L, -1)
    cap = cfg.get("final_logit_softcapping", 30.0) if mt == "gemma2" else cfg.get("final_logit_softcapping")
    if cap:
        logits = cap * torch.tanh(logits / cap)
    return logits


def _append(cache, layer, k, v):
    if cache.keys[layer] is not None:
        k = torch.cat([cache.keys[layer], k], dim=-2)
        v = torch.cat([cache.values[layer], v], dim=-2)
    cache.keys[layer], cache.values[layer] = k, v
    return k, v


def _gpt2_blocks(cfg, s, ids, start, cache):
    E, H, eps = cfg["n_embd"], cfg["n_head"], cfg.get("layer_norm_epsilon", 1e-5)
    d = E // H
    L = ids.shape[0]
    x = s["wte.weight"][ids] + s["wpe.weight"][torch.arange(start, start + L)]
    for layer in range(cfg["n_layer"]):
        p = f"h.{layer}."
        h = F.layer_norm(x, (E,), s[p + "ln_1.weight"], s[p + "ln_1.bias"], eps)
        qkv = h @ s[p + "attn.c_attn.weight"] + s[p + "attn.c_attn.bias"]
        q, k, v = (t.reshape(L, H, d).transpose(0, 1) for t in qkv.split(E, -1))
        k, v = _append(cache, layer, k, v)
        scale = 1.0 / d ** 0.5 if cfg.get("scale_attn_weights", True) else 1.0
        if cfg.get("scale_attn_by_inverse_layer_idx", False):
            scale /= layer + 1
        a = attend(q, k, v, start, scale).transpose(0, 1).reshape(L, E)
        x = x + a @ s[p + "attn.c_proj.weight"] + s[p + "attn.c_proj.bias"]
        h = F.layer_norm(x, (E,), s[p + "ln_2.weight"], s[p + "ln_2.bias"], eps)
        h = activation(mlp_activation(cfg), h @ s[p + "mlp.c_fc.weight"] + s[p + "mlp.c_fc.bias"])
        x = x + h @ s[p + "mlp.c_proj.weight"] + s[p + "mlp.c_proj.bias"]
    return F.layer_norm(x, (E,), s["ln_f.weight"], s["ln_f.bias"], eps)


def _lineage_blocks(cfg, s, ids, start, cache):
    mt = cfg["model_type"]
    E, H, Hkv, d = cfg["hidden_size"], cfg["num_attention_heads"], kv_heads(cfg), head_dim(cfg)
    eps = cfg.get("rms_norm_eps", 1e-5 if mt == "phi3" else 1e-6)
    gemma = mt in GEMMAS
    L = ids.shape[-1]
    x = s["model.embed_tokens.weight"][ids]
    if gemma:
        x = x * torch.tensor(E ** 0.5, dtype=x.dtype)
    types = layer_types(cfg)
    wins = windows(cfg)
    layout = "INTERLEAVED" if cfg.get("rope_interleaved", False) else "HALF_SPLIT"
    positions = torch.arange(start, start + L)
    scale = cfg.get("query_pre_attn_scalar", 256) ** -0.5 if mt in SANDWICHED else 1.0 / d ** 0.5
    softcap = cfg.get("attn_logit_softcapping", 50.0) if mt == "gemma2" else cfg.get("attn_logit_softcapping")

    def bias(name):
        return s.get(name, 0.0)

    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        inv, scaling = layer_rope(cfg, types[layer], start + L)
        h = rms_norm(x, s[p + "input_layernorm.weight"], eps, gemma)
        if mt == "phi3":
            qkv = h @ s[p + "self_attn.qkv_proj.weight"].t()
            q, k, v = qkv.split([H * d, Hkv * d, Hkv * d], -1)
        else:
            q = h @ s[p + "self_attn.q_proj.weight"].t() + bias(p + "self_attn.q_proj.bias")
            k = h @ s[p + "self_attn.k_proj.weight"].t() + bias(p + "self_attn.k_proj.bias")
            v = h @ s[p + "self_attn.v_proj.weight"].t() + bias(p + "self_attn.v_proj.bias")
        q, k, v = q.reshape(*ids.shape, H, d), k.reshape(*ids.shape, Hkv, d), v.reshape(*ids.shape, Hkv, d)
        if mt in ("qwen3", "gemma3_text"):
            q = rms_norm(q, s[p + "self_attn.q_norm.weight"], eps, gemma)
            k = rms_norm(k, s[p + "self_attn.k_norm.weight"], eps, gemma)
        q, k, v = q.transpose(-3, -2), k.transpose(-3, -2), v.transpose(-3, -2)
        q = apply_rope(q, inv, scaling, positions, layout)
        k = apply_rope(k, inv, scaling, positions, layout)
        k, v = _append(cache, layer, k, v)
        k, v = repeat_kv(k, H // Hkv), repeat_kv(v, H // Hkv)
        a = attend(q, k, v, start, scale, wins[layer], softcap).transpose(-3, -2).reshape(*ids.shape, H * d)
        a = a @ s[p + "self_attn.o_proj.weight"].t() + bias(p + "self_attn.o_proj.bias")
        if mt in SANDWICHED:
            x = x + rms_norm(a, s[p + "post_attention_layernorm.weight"], eps, True)
            h = rms_norm(x, s[p + "pre_feedforward_layernorm.weight"], eps, True)
        else:
            x = x + a
            h = rms_norm(x, s[p + "post_attention_layernorm.weight"], eps, gemma)
        if mt == "phi3":
            gate, up = (h @ s[p + "mlp.gate_up_proj.weight"].t()).chunk(2, dim=-1)
            m = activation(mlp_activation(cfg), gate) * up
            m = m @ s[p + "mlp.down_proj.weight"].t()
        else:
            gate = h @ s[p + "mlp.gate_proj.weight"].t() + bias(p + "mlp.gate_proj.bias")
            up = h @ s[p + "mlp.up_proj.weight"].t() + bias(p + "mlp.up_proj.bias")
            m = (activation(mlp_activation(cfg), gate) * up) @ s[p + "mlp.down_proj.weight"].t() \
                + bias(p + "mlp.down_proj.bias")
        if mt in SANDWICHED:
            m = rms_norm(m, s[p + "post_feedforward_layernorm.weight"], eps, True)
        x = x + m
    return rms_norm(x, s["model.norm.weight"], eps, gemma)


def layer_rope(cfg, layer_type, seq_len):
    """The rotary embedding of a layer type. Gemma3TextModel keeps two: the local layers' is the default embedding
    of base rope_local_base_freq (10000), unscaled; the global layers' has base rope_theta (1e6) and rope_scaling."""
    if cfg["model_type"] != "gemma3_text":
        return inverse_frequencies(cfg, rope_parameters(cfg, layer_type), seq_len)
    if layer_type == "sliding_attention":
        local = {"rope_type": "default", "rope_theta": cfg.get("rope_local_base_freq", 10000.0)}
        return inverse_frequencies(cfg, local, seq_len)
    return inverse_frequencies(cfg, rope_parameters(dict(cfg, rope_theta=cfg.get("rope_theta", 1e6))), seq_len)


def text_decoder(cfg, s):
    """The decoder's config and state_dict: Gemma 3's image-text wrapper (model_type gemma3) holds them under
    text_config and language_model.model. (language_model.lm_head.), beside a vision tower the text never uses."""
    if cfg["model_type"] != "gemma3":
        return cfg, s
    text = {k: v for k, v in s.items() if k.startswith("language_model.")}
    return cfg["text_config"], {k[len("language_model."):]: v for k, v in text.items()}


def phi3_recomputes(cfg, cached, new):
    """Phi3ForCausalLM drops a cache of at most original_max_position_embeddings positions, and runs the whole
    sequence again, when the sequence passes it (only with a rope scaling set)."""
    if cfg["model_type"] != "phi3" or not (cfg.get("rope_scaling") or cfg.get("rope_parameters")):
        return False
    original = cfg.get("original_max_position_embeddings", 4096)
    return 0 < cached <= original < cached + new


def generate(cfg, s, prompt, steps):
    """Greedy decoding as transformers' generate runs it: the prompt once, then each new token after the cache.
    Returns the prompt's logits, the generated ids, each step's logits [steps, V] and top-1 margin."""
    cfg, s = text_decoder(cfg, s)
    cache = Cache(cfg)
    logits = forward(cfg, s, list(prompt), cache)
    prompt_logits = logits
    last = logits[0, -1]
    ids, step_logits, margins = [], [], []
    for _ in range(steps):
        top = torch.topk(last, 2).values
        margins.append(float(top[0] - top[1]))
        token = int(torch.argmax(last))
        ids.append(token)
        if phi3_recomputes(cfg, len(cache), 1):
            everything = cache.tokens + [token]
            cache = Cache(cfg)
            last = forward(cfg, s, everything, cache)[0, -1]
        else:
            last = forward(cfg, s, [token], cache)[0, -1]
        step_logits.append(last)
    return prompt_logits, ids, torch.stack(step_logits), margins
