#!/usr/bin/python3
"""Write small rotary-encoder folders with random weights, and PyTorch float64 reference outputs for them.

Folders under models/src/test/resources/org/attn4j/models/bert/, each with config.json, model.safetensors (F32,
the family's own state_dict names and config keys), tokenizer.json (generate_bert_fixture.py's WordPiece),
modules.json and 1_Pooling/config.json (sentence-transformers: mean pooling, then Normalize), reference.safetensors:
    tiny-nomic/       nomic_bert (nomic-embed-text-v1.5's layout): fused Wqkv without biases, rotary over half of
                      each head (rotary_emb_fraction 0.5, base 1000), SwiGLU fc11/fc12/fc2 whose width n_inner is
                      rounded up to a multiple of 256, post-norm, a vocabulary padded to pad_vocab_size_multiple,
                      and config_sentence_transformers.json with the search_query/search_document prompts
    tiny-nomic-geglu/ the same family with biases everywhere, GeGLU, rotary over the whole head in interleaved pairs
                      (rotary_emb_interleaved), no token types, n_inner null (8d/3, rounded to 256)
    tiny-modernbert/  modernbert (ModernBERT-base's layout): embeddings.norm, Wqkv/Wo and Wi/Wo without biases,
                      norms without biases, pre-norm with layer 0's attn_norm the identity, final_norm, layer 0
                      global (global_rope_theta) and layers 1 and 2 local (local_rope_theta, window ±2)
    tiny-gte/         new (gte-base-en-v1.5's layout): qkv_proj/o_proj with biases, rotary with NTK scaling
                      (rope_scaling ntk, factor 2), up_gate_proj (no bias) then down_proj, post-norm, one token type
reference.safetensors holds input_ids, token_type_ids, attention_mask [B, L] (float64), last_hidden_state
[B, L, d] and attentions.1 [B, H, L, L] of the float64 forward below: each family written out from its modeling code
(modeling_hf_nomic_bert.py, transformers' modeling_modernbert.py, Alibaba-NLP's modeling.py for `new`) so that it
needs torch only. Padding is the additive mask of those implementations, which is what their unpadded kernels
compute for the real tokens.

Usage:
    /usr/bin/python3 models/src/test/python/generate_rotary_encoder_fixtures.py          write the files
    /usr/bin/python3 models/src/test/python/generate_rotary_encoder_fixtures.py --check  regenerate in a temporary
                                                                                          folder, compare bytes
"""

import argparse
import filecmp
import math
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate_bert_fixture as bert  # noqa: E402

OUT = bert.OUT

INPUT_IDS = [[2, 11, 17, 5, 29, 33, 3], [2, 7, 39, 36, 3, 0, 0], [2, 3, 0, 0, 0, 0, 0]]
TOKEN_TYPES = [[0] * 7] * 3
MASK = [[1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0, 0]]

NOMIC = {"model_type": "nomic_bert", "architectures": ["NomicBertModel"], "activation_function": "swiglu",
         "attn_pdrop": 0.0, "bos_token_id": None, "causal": False, "dense_seq_output": True, "embd_pdrop": 0.0,
         "eos_token_id": None, "fused_bias_fc": True, "fused_dropout_add_ln": True, "initializer_range": 0.02,
         "layer_norm_epsilon": 1e-12, "max_trained_positions": 2048, "mlp_fc1_bias": False, "mlp_fc2_bias": False,
         "n_embd": 32, "n_head": 4, "n_inner": 48, "n_layer": 2, "n_positions": 16, "pad_vocab_size_multiple": 8,
         "parallel_block": False, "parallel_block_tied_norm": False, "prenorm": False, "qkv_proj_bias": False,
         "reorder_and_upcast_attn": False, "resid_pdrop": 0.0, "rotary_emb_base": 1000,
         "rotary_emb_fraction": 0.5, "rotary_emb_interleaved": False, "rotary_emb_scale_base": None,
         "rotary_scaling_factor": None, "scale_attn_by_inverse_layer_idx": False, "scale_attn_weights": True,
         "summary_activation": None, "summary_first_dropout": 0.0, "summary_proj_to_labels": True,
         "summary_type": "cls_index", "summary_use_proj": True, "torch_dtype": "float32",
         "type_vocab_size": 2, "use_cache": True, "use_flash_attn": True, "use_rms_norm": False,
         "use_xentropy": True, "vocab_size": 37}

NOMIC_INTERLEAVED = dict(NOMIC, activation_function="geglu", rotary_emb_fraction=1.0, rotary_emb_interleaved=True,
                         qkv_proj_bias=True, mlp_fc1_bias=True, mlp_fc2_bias=True, type_vocab_size=0, n_inner=None)

MODERNBERT = {"model_type": "modernbert", "architectures": ["ModernBertModel"], "attention_bias": False,
              "attention_dropout": 0.0, "bos_token_id": 2, "classifier_activation": "gelu",
              "classifier_bias": False, "classifier_dropout": 0.0, "classifier_pooling": "mean", "cls_token_id": 2,
              "decoder_bias": True, "deterministic_flash_attn": False, "embedding_dropout": 0.0, "eos_token_id": 3,
              "global_attn_every_n_layers": 3, "global_rope_theta": 160000.0, "gradient_checkpointing": False,
              "hidden_activation": "gelu", "hidden_size": 32, "initializer_cutoff_factor": 2.0,
              "initializer_range": 0.02, "intermediate_size": 40, "layer_norm_eps": 1e-05, "local_attention": 4,
              "local_rope_theta": 10000.0, "max_position_embeddings": 16, "mlp_bias": False, "mlp_dropout": 0.0,
              "norm_bias": False, "norm_eps": 1e-05, "num_attention_heads": 4, "num_hidden_layers": 3,
              "pad_token_id": 0, "sep_token_id": 3, "sparse_pred_ignore_index": -100, "sparse_prediction": False,
              "torch_dtype": "float32", "vocab_size": 40}

GTE = {"model_type": "new", "architectures": ["NewModel"], "attention_probs_dropout_prob": 0.0,
       "auto_map": {"AutoConfig": "Alibaba-NLP/new-impl--configuration.NewConfig",
                    "AutoModel": "Alibaba-NLP/new-impl--modeling.NewModel"},
       "classifier_dropout": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 32,
       "initializer_range": 0.02, "intermediate_size": 40, "layer_norm_eps": 1e-12,
       "layer_norm_type": "layer_norm", "logn_attention_clip1": False, "logn_attention_scale": False,
       "max_position_embeddings": 16, "num_attention_heads": 4, "num_hidden_layers": 2, "pack_qkv": True,
       "pad_token_id": 0, "position_embedding_type": "rope", "rope_scaling": {"factor": 2.0, "type": "ntk"},
       "rope_theta": 500000, "torch_dtype": "float32", "type_vocab_size": 1, "unpad_inputs": True,
       "use_memory_efficient_attention": True, "vocab_size": 40}


def rand(generator, *shape, scale=0.5):
    return torch.randn(*shape, generator=generator, dtype=torch.float64) * scale


def nomic_inner(c):
    inner = c["n_inner"] if c["n_inner"] is not None else int(8 * c["n_embd"] / 3)
    return (inner + 255) // 256 * 256


def nomic_vocab(c):
    m = c["pad_vocab_size_multiple"]
    return (c["vocab_size"] + m - 1) // m * m


def nomic_weights(g, c=NOMIC):
    d, ff = c["n_embd"], nomic_inner(c)
    sd = {"embeddings.word_embeddings.weight": rand(g, nomic_vocab(c), d)}
    if c["type_vocab_size"] > 0:
        sd["embeddings.token_type_embeddings.weight"] = rand(g, c["type_vocab_size"], d)
    sd["emb_ln.weight"] = 1 + rand(g, d, scale=0.1)
    sd["emb_ln.bias"] = rand(g, d, scale=0.1)
    for i in range(c["n_layer"]):
        p = "encoder.layers.%d." % i
        sd[p + "attn.Wqkv.weight"] = rand(g, 3 * d, d, scale=d ** -0.5)
        sd[p + "attn.out_proj.weight"] = rand(g, d, d, scale=d ** -0.5)
        sd[p + "mlp.fc11.weight"] = rand(g, ff, d, scale=d ** -0.5)
        sd[p + "mlp.fc12.weight"] = rand(g, ff, d, scale=d ** -0.5)
        sd[p + "mlp.fc2.weight"] = rand(g, d, ff, scale=ff ** -0.5)
        if c["qkv_proj_bias"]:
            sd[p + "attn.Wqkv.bias"] = rand(g, 3 * d, scale=0.1)
            sd[p + "attn.out_proj.bias"] = rand(g, d, scale=0.1)
        if c["mlp_fc1_bias"]:
            sd[p + "mlp.fc11.bias"] = rand(g, ff, scale=0.1)
            sd[p + "mlp.fc12.bias"] = rand(g, ff, scale=0.1)
        if c["mlp_fc2_bias"]:
            sd[p + "mlp.fc2.bias"] = rand(g, d, scale=0.1)
        for n in ("norm1", "norm2"):
            sd[p + n + ".weight"] = 1 + rand(g, d, scale=0.1)
            sd[p + n + ".bias"] = rand(g, d, scale=0.1)
    return sd


def modernbert_weights(g, c=MODERNBERT):
    d, ff = c["hidden_size"], c["intermediate_size"]
    sd = {"embeddings.tok_embeddings.weight": rand(g, c["vocab_size"], d),
          "embeddings.norm.weight": 1 + rand(g, d, scale=0.1)}
    for i in range(c["num_hidden_layers"]):
        p = "layers.%d." % i
        if i != 0:
            sd[p + "attn_norm.weight"] = 1 + rand(g, d, scale=0.1)
        sd[p + "attn.Wqkv.weight"] = rand(g, 3 * d, d, scale=d ** -0.5)
        sd[p + "attn.Wo.weight"] = rand(g, d, d, scale=d ** -0.5)
        sd[p + "mlp_norm.weight"] = 1 + rand(g, d, scale=0.1)
        sd[p + "mlp.Wi.weight"] = rand(g, 2 * ff, d, scale=d ** -0.5)
        sd[p + "mlp.Wo.weight"] = rand(g, d, ff, scale=ff ** -0.5)
    sd["final_norm.weight"] = 1 + rand(g, d, scale=0.1)
    return sd


def gte_weights(g, c=GTE):
    d, ff = c["hidden_size"], c["intermediate_size"]
    sd = {"embeddings.word_embeddings.weight": rand(g, c["vocab_size"], d),
          "embeddings.token_type_embeddings.weight": rand(g, c["type_vocab_size"], d),
          "embeddings.LayerNorm.weight": 1 + rand(g, d, scale=0.1),
          "embeddings.LayerNorm.bias": rand(g, d, scale=0.1)}
    for i in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % i
        sd[p + "attention.qkv_proj.weight"] = rand(g, 3 * d, d, scale=d ** -0.5)
        sd[p + "attention.qkv_proj.bias"] = rand(g, 3 * d, scale=0.1)
        sd[p + "attention.o_proj.weight"] = rand(g, d, d, scale=d ** -0.5)
        sd[p + "attention.o_proj.bias"] = rand(g, d, scale=0.1)
        sd[p + "mlp.up_gate_proj.weight"] = rand(g, 2 * ff, d, scale=d ** -0.5)
        sd[p + "mlp.down_proj.weight"] = rand(g, d, ff, scale=ff ** -0.5)
        sd[p + "mlp.down_proj.bias"] = rand(g, d, scale=0.1)
        for n in ("attn_ln", "mlp_ln"):
            sd[p + n + ".weight"] = 1 + rand(g, d, scale=0.1)
            sd[p + n + ".bias"] = rand(g, d, scale=0.1)
    return sd


def rotate(x, inv_freq, interleaved=False):
    """Rotary embedding of the first 2·len(inv_freq) features of x [B, H, L, hd] at positions 0..L-1, its angles
    computed in float64 and taken to x's dtype."""
    length = x.shape[2]
    rot = 2 * inv_freq.shape[0]
    angles = torch.outer(torch.arange(length, dtype=torch.float64), inv_freq).to(x.dtype)
    cos, sin = torch.cos(angles), torch.sin(angles)
    head, rest = x[..., :rot], x[..., rot:]
    if interleaved:
        cos, sin = cos.repeat_interleave(2, -1), sin.repeat_interleave(2, -1)
        x1, x2 = head[..., ::2], head[..., 1::2]
        turned = torch.stack((-x2, x1), dim=-1).flatten(-2)
    else:
        cos, sin = torch.cat((cos, cos), -1), torch.cat((sin, sin), -1)
        x1, x2 = head[..., :rot // 2], head[..., rot // 2:]
        turned = torch.cat((-x2, x1), -1)
    return torch.cat((head * cos + turned * sin, rest), -1)


def attend(q, k, v, allowed):
    """softmax(q·kᵀ/√hd + additive mask)·v with the implementations' finfo.min mask; allowed [B, 1, Lq|1, L]."""
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    probs = torch.softmax(scores, -1)
    return probs @ v, probs


def heads(t, h):
    b, length, width = t.shape
    return t.view(b, length, h, width // h).transpose(1, 2)


def merge(t):
    b, h, length, hd = t.shape
    return t.transpose(1, 2).reshape(b, length, h * hd)


def nomic_forward(sd, ids, types, mask, c=NOMIC):
    d, h, eps = c["n_embd"], c["n_head"], c["layer_norm_epsilon"]
    hd = d // h
    rot = int(hd * c["rotary_emb_fraction"])
    inv_freq = c["rotary_emb_base"] ** (-torch.arange(0, rot, 2, dtype=torch.float64) / rot)
    ids, types = torch.as_tensor(ids), torch.as_tensor(types)
    allowed = torch.as_tensor(mask).bool()[:, None, None, :]

    def ln(x, name):
        return F.layer_norm(x, (d,), sd[name + ".weight"], sd[name + ".bias"], eps)

    def lin(x, name):
        y = x @ sd[name + ".weight"].T
        return y + sd[name + ".bias"] if name + ".bias" in sd else y

    act = F.silu if c["activation_function"] == "swiglu" else F.gelu
    x = sd["embeddings.word_embeddings.weight"][ids]
    if c["type_vocab_size"] > 0:
        x = x + sd["embeddings.token_type_embeddings.weight"][types]
    x = ln(x, "emb_ln")
    attentions = []
    for i in range(c["n_layer"]):
        p = "encoder.layers.%d." % i
        q, k, v = lin(x, p + "attn.Wqkv").split(d, -1)
        q, k, v = heads(q, h), heads(k, h), heads(v, h)
        q, k = rotate(q, inv_freq, c["rotary_emb_interleaved"]), rotate(k, inv_freq, c["rotary_emb_interleaved"])
        context, probs = attend(q, k, v, allowed)
        attentions.append(probs)
        x = ln(x + lin(merge(context), p + "attn.out_proj"), p + "norm1")
        y = lin(x, p + "mlp.fc11") * act(lin(x, p + "mlp.fc12"))
        x = ln(x + lin(y, p + "mlp.fc2"), p + "norm2")
    return x, attentions


def modernbert_forward(sd, ids, types, mask, c=MODERNBERT):
    d, h, eps = c["hidden_size"], c["num_attention_heads"], c["norm_eps"]
    hd = d // h
    ids = torch.as_tensor(ids)
    length = ids.shape[1]
    padding = torch.as_tensor(mask).bool()[:, None, None, :]
    position = torch.arange(length)
    window = ((position[:, None] - position[None, :]).abs() <= c["local_attention"] // 2)[None, None]

    def ln(x, name):
        return F.layer_norm(x, (d,), sd[name + ".weight"], None, eps)

    x = ln(sd["embeddings.tok_embeddings.weight"][ids], "embeddings.norm")
    attentions = []
    for i in range(c["num_hidden_layers"]):
        p = "layers.%d." % i
        local = i % c["global_attn_every_n_layers"] != 0
        theta = c["local_rope_theta"] if local else c["global_rope_theta"]
        inv_freq = theta ** (-torch.arange(0, hd, 2, dtype=torch.float64) / hd)
        normed = x if i == 0 else ln(x, p + "attn_norm")
        q, k, v = (normed @ sd[p + "attn.Wqkv.weight"].T).split(d, -1)
        q, k, v = heads(q, h), heads(k, h), heads(v, h)
        q, k = rotate(q, inv_freq), rotate(k, inv_freq)
        context, probs = attend(q, k, v, padding & window if local else padding)
        attentions.append(probs)
        x = x + merge(context) @ sd[p + "attn.Wo.weight"].T
        inner, gate = (ln(x, p + "mlp_norm") @ sd[p + "mlp.Wi.weight"].T).chunk(2, -1)
        x = x + (F.gelu(inner) * gate) @ sd[p + "mlp.Wo.weight"].T
    return ln(x, "final_norm"), attentions


def gte_inverse_frequencies(c):
    hd = c["hidden_size"] // c["num_attention_heads"]
    exponents = torch.arange(0, hd, 2, dtype=torch.float64) / hd
    factor = c["rope_scaling"]["factor"]
    if factor <= 1:
        return c["rope_theta"] ** -exponents
    return (c["rope_theta"] * factor) ** -exponents / factor ** (2 / hd)


def gte_forward(sd, ids, types, mask, c=GTE):
    d, h, eps, ff = c["hidden_size"], c["num_attention_heads"], c["layer_norm_eps"], c["intermediate_size"]
    inv_freq = gte_inverse_frequencies(c)
    ids, types = torch.as_tensor(ids), torch.as_tensor(types)
    allowed = torch.as_tensor(mask).bool()[:, None, None, :]

    def ln(x, name):
        return F.layer_norm(x, (d,), sd[name + ".weight"], sd[name + ".bias"], eps)

    def lin(x, name):
        y = x @ sd[name + ".weight"].T
        return y + sd[name + ".bias"] if name + ".bias" in sd else y

    x = sd["embeddings.word_embeddings.weight"][ids] + sd["embeddings.token_type_embeddings.weight"][types]
    x = ln(x, "embeddings.LayerNorm")
    attentions = []
    for i in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % i
        q, k, v = lin(x, p + "attention.qkv_proj").split(d, -1)
        q, k, v = heads(q, h), heads(k, h), heads(v, h)
        q, k = rotate(q, inv_freq), rotate(k, inv_freq)
        context, probs = attend(q, k, v, allowed)
        attentions.append(probs)
        x = ln(x + lin(merge(context), p + "attention.o_proj"), p + "attn_ln")
        up, gate = lin(x, p + "mlp.up_gate_proj").split(ff, -1)
        x = ln(x + lin(up * F.gelu(gate), p + "mlp.down_proj"), p + "mlp_ln")
    return x, attentions


FAMILIES = (("tiny-nomic", NOMIC, nomic_weights, nomic_forward, 20261201),
            ("tiny-nomic-geglu", NOMIC_INTERLEAVED, lambda g: nomic_weights(g, NOMIC_INTERLEAVED),
             lambda sd, ids, types, mask: nomic_forward(sd, ids, types, mask, NOMIC_INTERLEAVED), 20261204),
            ("tiny-modernbert", MODERNBERT, modernbert_weights, modernbert_forward, 20261202),
            ("tiny-gte", GTE, gte_weights, gte_forward, 20261203))


def generate(out):
    for folder, config, weights, forward, seed in FAMILIES:
        full = weights(torch.Generator().manual_seed(seed))
        f32 = {k: v.to(torch.float32) for k, v in full.items()}
        dir = os.path.join(out, folder)
        os.makedirs(dir, exist_ok=True)
        bert.write_json(os.path.join(dir, "config.json"), config)
        bert.write_safetensors(os.path.join(dir, "model.safetensors"), f32)
        bert.write_json(os.path.join(dir, "tokenizer.json"), bert.tokenizer_json())
        bert.write_json(os.path.join(dir, "modules.json"), [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])
        width = config.get("hidden_size", config.get("n_embd"))
        bert.write_json(os.path.join(dir, "1_Pooling", "config.json"), {
            "word_embedding_dimension": width, "pooling_mode_cls_token": False,
            "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
            "pooling_mode_mean_sqrt_len_tokens": False})
        if folder.startswith("tiny-nomic"):
            bert.write_json(os.path.join(dir, "config_sentence_transformers.json"), {
                "prompts": {"search_query": "search_query: ", "search_document": "search_document: ",
                            "classification": "classification: ", "clustering": "clustering: "},
                "default_prompt_name": None, "similarity_fn_name": "cosine"})
        hidden, attentions = forward({k: v.to(torch.float64) for k, v in f32.items()}, INPUT_IDS, TOKEN_TYPES,
                                     MASK)
        bert.write_safetensors(os.path.join(dir, "reference.safetensors"), {
            "input_ids": torch.tensor(INPUT_IDS, dtype=torch.float64),
            "token_type_ids": torch.tensor(TOKEN_TYPES, dtype=torch.float64),
            "attention_mask": torch.tensor(MASK, dtype=torch.float64),
            "last_hidden_state": hidden, "attentions.1": attentions[1]})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if not args.check:
        generate(OUT)
        return
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        different = []
        for folder, _, _, _, _ in FAMILIES:
            for root, _, files in os.walk(os.path.join(tmp, folder)):
                for name in files:
                    fresh = os.path.join(root, name)
                    committed = os.path.join(OUT, os.path.relpath(fresh, tmp))
                    if not os.path.exists(committed) or not filecmp.cmp(fresh, committed, shallow=False):
                        different.append(os.path.relpath(fresh, tmp))
        if different:
            print("differ from the committed files: " + ", ".join(sorted(different)))
            sys.exit(1)
        print("the committed files are reproduced byte for byte")


if __name__ == "__main__":
    main()
