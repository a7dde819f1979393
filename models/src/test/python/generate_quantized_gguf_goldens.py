"""Float64 references of the quantized GGUF test files (models/src/test/resources/org/attn4j/models/decoder/quantized).

For every file: each tensor dequantized as ggml does (gguf-py's gguf.quants.dequantize, numpy, written to match
ggml's dequantize_row_*), the SHA-256 of its float32 numbers (little-endian, row-major) and its ggml type; then the
Llama in the file run by PyTorch in float64 on those dequantized numbers (llama.cpp's layout: q and k rows as its
converter permutes them, so the rotary embedding turns adjacent pairs), a prompt seeded by the source's name, and the greedy ids of
STEPS new tokens decoded with a key/value cache, each with its top-1 margin (largest minus second largest logit).
Writes goldens.json beside the files.

    python3 -m venv --system-site-packages /tmp/ggufvenv && /tmp/ggufvenv/bin/pip install gguf==0.19.0
    /tmp/ggufvenv/bin/python models/src/test/python/generate_quantized_gguf_goldens.py [--check]

The interpreter must see Debian's python3-torch (hence --system-site-packages) and gguf 0.19's numpy
dequantizers. --check writes nothing and exits 1 unless goldens.json would be unchanged.
"""
import hashlib
import json
import sys
import zlib
from pathlib import Path

import numpy as np
import torch
from gguf import GGUFReader
from gguf.quants import dequantize

FOLDER = Path(__file__).resolve().parents[1] / "resources" / "org" / "attn4j" / "models" / "decoder" / "quantized"
PROMPT = 8
STEPS = 16
FIRST_ORDINARY = 259  # <unk>, <s>, </s> and the 256 byte tokens come first


def field(reader, key):
    return reader.fields[key].contents()


def tensors(reader):
    """name -> (ggml type name, float32 numpy array in row-major order)."""
    out = {}
    for t in reader.tensors:
        values = dequantize(t.data, t.tensor_type).astype(np.float32, copy=False)
        shape = [int(n) for n in reversed(t.shape)]
        out[t.name] = (t.tensor_type.name, np.ascontiguousarray(values.reshape(shape)))
    return out


def rms_norm(x, w, eps):
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rope_pairs(x, position, theta):
    """llama.cpp's normal rotary embedding of x [heads, d] at one position: pairs (2i, 2i+1) turned by p·θ^(-2i/d)."""
    d = x.shape[-1]
    angle = position * theta ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    cos, sin = angle.cos(), angle.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


class Llama:
    def __init__(self, reader, weights):
        a = "llama."
        self.layers = int(field(reader, a + "block_count"))
        self.heads = int(field(reader, a + "attention.head_count"))
        self.kv_heads = int(field(reader, a + "attention.head_count_kv"))
        self.head_dim = int(field(reader, a + "attention.key_length"))
        self.eps = float(field(reader, a + "attention.layer_norm_rms_epsilon"))
        self.theta = float(field(reader, a + "rope.freq_base"))
        self.w = {name: torch.from_numpy(v.astype(np.float64)) for name, (_, v) in weights.items()}
        self.head = self.w.get("output.weight", self.w["token_embd.weight"])
        self.keys = [[] for _ in range(self.layers)]
        self.values = [[] for _ in range(self.layers)]

    def step(self, token):
        """Feeds one token at the next position; returns the logits [V]."""
        w = self.w
        position = len(self.keys[0])
        x = w["token_embd.weight"][token]
        group = self.heads // self.kv_heads
        for i in range(self.layers):
            p = f"blk.{i}."
            h = rms_norm(x, w[p + "attn_norm.weight"], self.eps)
            q = (w[p + "attn_q.weight"] @ h).reshape(self.heads, self.head_dim)
            k = (w[p + "attn_k.weight"] @ h).reshape(self.kv_heads, self.head_dim)
            v = (w[p + "attn_v.weight"] @ h).reshape(self.kv_heads, self.head_dim)
            q = rope_pairs(q, position, self.theta)
            k = rope_pairs(k, position, self.theta)
            self.keys[i].append(k)
            self.values[i].append(v)
            keys = torch.stack(self.keys[i], 1).repeat_interleave(group, 0)      # [heads, L, d]
            values = torch.stack(self.values[i], 1).repeat_interleave(group, 0)
            scores = (keys @ q.unsqueeze(-1)).squeeze(-1) / self.head_dim ** 0.5  # [heads, L]
            attended = (torch.softmax(scores, -1).unsqueeze(1) @ values).reshape(-1)
            x = x + w[p + "attn_output.weight"] @ attended
            h = rms_norm(x, w[p + "ffn_norm.weight"], self.eps)
            gate = w[p + "ffn_gate.weight"] @ h
            x = x + w[p + "ffn_down.weight"] @ (gate * torch.sigmoid(gate) * (w[p + "ffn_up.weight"] @ h))
        return self.head @ rms_norm(x, w["output_norm.weight"], self.eps)


def prompt(source, vocab):
    """PROMPT ordinary token ids, seeded by the source checkpoint's name, so every mix of it reads the same prompt."""
    rng = np.random.default_rng(zlib.crc32(source.encode()))
    return [int(t) for t in rng.integers(FIRST_ORDINARY, vocab, PROMPT)]


def reference(path):
    reader = GGUFReader(path)
    weights = tensors(reader)
    vocab = weights["token_embd.weight"][1].shape[0]
    model = Llama(reader, weights)
    ids = prompt(path.stem.split("-")[0], vocab)
    for t in ids[:-1]:
        model.step(t)
    logits = model.step(ids[-1])
    generated, margins = [], []
    for _ in range(STEPS):
        top2 = torch.topk(logits, 2)
        token = int(top2.indices[0])
        generated.append(token)
        margins.append(float(top2.values[0] - top2.values[1]))
        logits = model.step(token)
    return {
        "file": path.name,
        "file_type": int(field(reader, "general.file_type")),
        "prompt": ids,
        "generated": generated,
        "margins": margins,
        "tensors": {name: {"type": t, "sha256": hashlib.sha256(v.astype("<f4").tobytes()).hexdigest()}
                    for name, (t, v) in weights.items()},
    }


def main():
    check = "--check" in sys.argv[1:]
    torch.set_num_threads(1)
    cases = [reference(p) for p in sorted(FOLDER.glob("*.gguf"))]
    text = json.dumps({"generator": "models/src/test/python/generate_quantized_gguf_goldens.py",
                       "torch": torch.__version__, "cases": cases}, indent=1) + "\n"
    out = FOLDER / "goldens.json"
    if check:
        same = out.is_file() and out.read_text() == text
        print("goldens.json " + ("unchanged" if same else "differs"))
        sys.exit(0 if same else 1)
    out.write_text(text)
    for c in cases:
        print(c["file"], c["generated"], "smallest margin %.3g" % min(c["margins"]))


if __name__ == "__main__":
    main()
