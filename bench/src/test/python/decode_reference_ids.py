"""Greedy token ids of the decode bench's random Llamas in PyTorch float64: the reference every engine is held to.

Reads each model's BF16 Hugging Face folder (the F32 folder holds the same numbers) and its prompt, as the bench
wrote them (DecodePeersMain, which runs first), decodes greedily with a key/value cache in float64, and writes
bench/src/test/resources/org/attn4j/bench/decode/reference-ids.json with, per model, the fingerprint of the weights,
the prompt, the ids, the gap between the two largest logits at each step (the top-1 margin: how near a tie the
greedy choice came) and the smallest of them. The model's Q4_K_M and Q6_K files, where the bench wrote them, get
entries of their own ("NAME q4_k_m"): the same decoding on their weights dequantized as ggml does.

    /usr/bin/python3 bench/src/test/python/decode_reference_ids.py bench/target/decode-models [model ...]

Needs torch (Debian's python3-torch) and numpy; safetensors are parsed here. For the Q4_K_M and Q6_K files also
gguf-py 0.19 (its numpy dequantizers), in an interpreter that sees Debian's torch:
    python3 -m venv --system-site-packages /tmp/ggufvenv && /tmp/ggufvenv/bin/pip install gguf==0.19.0
"""
import json
import math
import struct
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

MIXES = ("q4_k_m", "q6_k")
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

    def __init__(self, state, elements):
        self.state = state
        self.keep = elements * 8 < 3 << 30
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


GGUF_NAMES = {"attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
              "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
              "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj"}


class GgufState:
    """A llama GGUF file's tensors under Hugging Face names, each dequantized to float32 on use as ggml does
    (gguf-py's gguf.quants.dequantize), with the converter's permutation of q and k rows undone."""

    def __init__(self, path, cfg):
        from gguf import GGUFReader
        self.tensors = {}
        for t in GGUFReader(path).tensors:
            name = t.name
            if name == "token_embd.weight":
                name = "model.embed_tokens.weight"
            elif name == "output.weight":
                name = "lm_head.weight"
            elif name == "output_norm.weight":
                name = "model.norm.weight"
            else:
                _, layer, kind, _ = name.split(".")
                name = f"model.layers.{layer}.{GGUF_NAMES[kind]}.weight"
            self.tensors[name] = t
        self.heads = {"self_attn.q_proj": cfg["num_attention_heads"], "self_attn.k_proj": cfg["num_key_value_heads"]}
        self.elements = sum(int(t.n_elements) for t in self.tensors.values())

    def __getitem__(self, name):
        from gguf.quants import dequantize
        t = self.tensors[name]
        values = dequantize(t.data, t.tensor_type).astype(np.float32).reshape([int(n) for n in reversed(t.shape)])
        heads = next((h for part, h in self.heads.items() if f".{part}." in name), None)
        if heads is not None:
            rows, columns = values.shape
            values = values.reshape(heads, rows // heads // 2, 2, columns).swapaxes(1, 2).reshape(rows, columns)
        return torch.from_numpy(np.ascontiguousarray(values))


def greedy(cfg, w, prompt, steps):
    """The greedy ids and the top-1 margin (largest minus second largest logit) of each choice."""
    cache = {}
    ids = []
    margins = []
    logits = forward(cfg, w, prompt, cache, 0)
    for step in range(steps):
        top = torch.topk(logits, 2).values
        margins.append(float(top[0] - top[1]))
        ids.append(int(torch.argmax(logits)))
        if step + 1 < steps:
            logits = forward(cfg, w, [ids[-1]], cache, len(prompt) + step)
    return ids, margins


def main():
    models = Path(sys.argv[1])
    names = sys.argv[2:] or sorted(p.name for p in models.iterdir() if (p / "bench.json").is_file())
    torch.set_num_threads(2)
    reference = json.loads(OUT.read_text()) if OUT.is_file() else {}
    for name in names:
        bench = json.loads((models / name / "bench.json").read_text())
        folder = models / name / "hf-bf16"
        cfg = json.loads((folder / "config.json").read_text())
        state = read_safetensors(folder / "model.safetensors")
        runs = [(name, Weights(state, sum(t.numel() for t in state.values())))]
        for mix in MIXES:
            file = models / name / f"{name}-{mix}.gguf"
            if file.is_file():
                gguf = GgufState(file, cfg)
                runs.append((f"{name} {mix}", Weights(gguf, gguf.elements)))
        for key, w in runs:
            ids, margins = greedy(cfg, w, bench["prompt"], bench["generated"])
            reference[key] = {"fingerprint": bench["fingerprint"], "prompt": bench["prompt"], "ids": ids,
                              "margins": margins, "min_margin": min(margins)}
            print(key, "min margin", min(margins), "ids", ids, flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(reference, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
