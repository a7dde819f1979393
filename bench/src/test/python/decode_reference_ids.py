"""Greedy token ids of the decode bench's random Llamas in PyTorch float64: the reference every engine is held to.

Reads each model's BF16 Hugging Face folder (the F32 folder holds the same numbers) and its prompt, as the bench
wrote them (DecodePeersMain, which runs first), decodes greedily with a key/value cache in float64, and writes
bench/src/test/resources/org/attn4j/bench/decode/reference-ids.json with, per model, the fingerprint of the weights,
the prompt, the ids and the smallest gap between the two largest logits over the steps (how near a tie the greedy
choice came).

    /usr/bin/python3 bench/src/test/python/decode_reference_ids.py bench/target/decode-models [model ...]

Needs torch (Debian's python3-torch) and numpy only; safetensors are parsed here.
"""
import json
import math
import struct
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

OUT = Path(__file__).resolve().parents[1] / "resources" / "org" / "attn4j" / "bench" / "decode" / "reference-ids.json"


def read_safetensors(path):
    """name -> torch tensor in its file dtype (BF16 stays bfloat16, F32 float32)."""
    data = np.memmap(path, dtype=np.uint8, mode="r")
    n = struct.unpack("<Q", data[:8].tobytes())[0]
    header = json.loads(data[8:8 + n].tobytes())
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        raw = data[base + a:base + b]
        if info["dtype"] == "BF16":
            bits = raw.view(np.uint16).astype(np.uint32) << 16
            t = torch.from_numpy(bits.view(np.float32).copy()).to(torch.bfloat16)
        elif info["dtype"] == "F32":
            t = torch.from_numpy(raw.view(np.float32).copy())
        else:
            raise ValueError(f"{path}: {name} has dtype {info['dtype']}")
        out[name] = t.reshape(info["shape"])
    return out


class Weights:
    """The state dict, widened to float64 on use (kept widened when it fits in a few GB)."""

    def __init__(self, state):
        self.state = state
        self.keep = sum(t.numel() for t in state.values()) * 8 < 3 << 30
        self.cache = {}

    def __getitem__(self, name):
        if name in self.cache:
            return self.cache[name]
        t = self.state[name].double()
        if self.keep:
            self.cache[name] = t
        return t


def rms_norm(x, w, eps):
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rope(x, positions, theta):
    """Hugging Face's half-split rotary embedding of x [heads, L, d] at the given positions."""
    d = x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    angles = positions.double()[:, None] * inv[None, :]
    cos = torch.cat([angles.cos(), angles.cos()], -1)
    sin = torch.cat([angles.sin(), angles.sin()], -1)
    half = torch.cat([-x[..., d // 2:], x[..., :d // 2]], -1)
    return x * cos + half * sin


def forward(cfg, w, ids, cache, start):
    """Logits of the last of `ids` at positions start..; appends their keys and values to `cache`."""
    E, H, Hkv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    eps, theta = cfg["rms_norm_eps"], cfg["rope_theta"]
    dh = E // H
    L = len(ids)
    positions = torch.arange(start, start + L)
    x = w["model.embed_tokens.weight"][torch.tensor(ids)]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = (h @ w[p + "self_attn.q_proj.weight"].t()).reshape(L, H, dh).transpose(0, 1)
        k = (h @ w[p + "self_attn.k_proj.weight"].t()).reshape(L, Hkv, dh).transpose(0, 1)
        v = (h @ w[p + "self_attn.v_proj.weight"].t()).reshape(L, Hkv, dh).transpose(0, 1)
        q = rope(q, positions, theta)
        k = rope(k, positions, theta)
        if layer in cache:
            k = torch.cat([cache[layer][0], k], 1)
            v = torch.cat([cache[layer][1], v], 1)
        cache[layer] = (k, v)
        k = k.repeat_interleave(H // Hkv, dim=0)
        v = v.repeat_interleave(H // Hkv, dim=0)
        scores = q @ k.transpose(1, 2) / math.sqrt(dh)
        total = k.shape[1]
        mask = torch.arange(total)[None, :] <= (start + torch.arange(L))[:, None]
        scores = scores.masked_fill(~mask, float("-inf"))
        a = (torch.softmax(scores, -1) @ v).transpose(0, 1).reshape(L, H * dh)
        x = x + a @ w[p + "self_attn.o_proj.weight"].t()
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        m = F.silu(h @ w[p + "mlp.gate_proj.weight"].t()) * (h @ w[p + "mlp.up_proj.weight"].t())
        x = x + m @ w[p + "mlp.down_proj.weight"].t()
    x = rms_norm(x[-1:], w["model.norm.weight"], eps)
    head = "model.embed_tokens.weight" if cfg.get("tie_word_embeddings") else "lm_head.weight"
    return (x @ w[head].t())[0]


def greedy(folder, prompt, steps):
    cfg = json.loads((folder / "config.json").read_text())
    w = Weights(read_safetensors(folder / "model.safetensors"))
    cache = {}
    ids = []
    margin = float("inf")
    logits = forward(cfg, w, prompt, cache, 0)
    for step in range(steps):
        top = torch.topk(logits, 2).values
        margin = min(margin, float(top[0] - top[1]))
        ids.append(int(torch.argmax(logits)))
        if step + 1 < steps:
            logits = forward(cfg, w, [ids[-1]], cache, len(prompt) + step)
    return ids, margin


def main():
    models = Path(sys.argv[1])
    names = sys.argv[2:] or sorted(p.name for p in models.iterdir() if (p / "bench.json").is_file())
    torch.set_num_threads(2)
    reference = json.loads(OUT.read_text()) if OUT.is_file() else {}
    for name in names:
        bench = json.loads((models / name / "bench.json").read_text())
        ids, margin = greedy(models / name / "hf-bf16", bench["prompt"], bench["generated"])
        reference[name] = {"fingerprint": bench["fingerprint"], "prompt": bench["prompt"], "ids": ids,
                           "min_margin": margin}
        print(name, "min margin", margin, "ids", ids, flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(reference, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
