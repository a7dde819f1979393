#!/usr/bin/python3
"""Generate the golden cases the models tests need beyond the TCK's `models` group.

The TCK's goldens (tck/src/main/resources/org/attn4j/tck/golden/) are the shared source of truth; the models tests
read those files directly (they are added as test resources in models/pom.xml). This script adds the cases only
models needs, with the same conventions: it imports the TCK generator for its registry, seeding (CRC-32 of the
case name), safetensors writer and reference semantics (attention, splitmix64 dropout), and writes
models/src/test/resources/org/attn4j/models/golden/{extra.safetensors,extra-manifest.json}.

Usage:
    /usr/bin/python3 models/src/test/python/generate_model_goldens.py           write the files
    /usr/bin/python3 models/src/test/python/generate_model_goldens.py --check   regenerate and compare byte for byte
"""

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import tempfile

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", ".."))
OUT = os.path.join(ROOT, "models", "src", "test", "resources", "org", "attn4j", "models", "golden")
FILES = ("extra.safetensors", "extra-manifest.json")

_spec = importlib.util.spec_from_file_location(
    "tck_goldens", os.path.join(ROOT, "tck", "src", "golden", "generate_goldens.py"))
tck = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tck)

G = "models"
RASCHKA_INPUTS = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                               [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])


class LinearSelfAttention(nn.Module):
    """Single-head attention with nn.Linear projections: d_k != d_v, optional bias, cross-attention."""

    def __init__(self, d_q, d_kv, d_k, d_v, bias):
        super().__init__()
        self.W_query = nn.Linear(d_q, d_k, bias=bias)
        self.W_key = nn.Linear(d_kv, d_k, bias=bias)
        self.W_value = nn.Linear(d_kv, d_v, bias=bias)

    def forward(self, x, memory, causal=False, scale=None, dropout_p=0.0, seed=0):
        return tck.attention_ref(self.W_query(x), self.W_key(memory), self.W_value(memory), causal=causal,
                                 scale=scale, dropout_p=dropout_p, seed=seed)


def simplified(r):
    for name, x in (("simplified_raschka_inputs", RASCHKA_INPUTS),
                    ("simplified_batched", tck.randn(tck.gen("simplified_batched"), 2, 5, 4))):
        w = torch.softmax(x @ x.transpose(-2, -1), dim=-1)
        r.add(G, name, "SimplifiedSelfAttention", {}, [("x", x)], [("context", w @ x), ("weights", w)])


def single_head(r):
    cases = (
        # name, x shape, memory shape (None = self), d_k, d_v, bias, causal, scale, dropout, seed
        ("attention_dk3_dv4_bias", (2, 6, 5), None, 3, 4, True, False, None, 0.0, 0),
        ("attention_unscaled_unbatched", (4, 3), None, 2, 2, False, False, 1.0, 0.0, 0),
        ("causal_attention", (2, 6, 3), None, 2, 2, False, True, None, 0.0, 0),
        ("causal_attention_dropout", (2, 6, 3), None, 2, 2, False, True, None, 0.5, 123),
        ("cross_attention", (2, 3, 5), (2, 7, 6), 3, 4, True, False, None, 0.0, 0),
    )
    for name, xs, ms, dk, dv, bias, causal, scale, p, seed in cases:
        g = tck.gen(name)
        m = LinearSelfAttention(xs[-1], (ms or xs)[-1], dk, dv, bias)
        with torch.no_grad():
            for prm in m.parameters():
                prm.copy_(torch.rand(*prm.shape, generator=g) - 0.5)
        x = torch.rand(*xs, generator=g)
        memory = x if ms is None else torch.rand(*ms, generator=g)
        with torch.no_grad():
            ctx, w = m(x, memory, causal, scale, p, seed)
        ins = [("x", x)] + ([] if ms is None else [("memory", memory)])
        r.add(G, name, "SelfAttention", {"dK": dk, "dV": dv, "bias": bias, "causal": causal, "scale": scale,
                                         "dropoutP": p, "dropoutSeed": seed},
              ins, [("context", ctx), ("weights", w)], tck.state(m))


def unbatched_mha(r):
    name = "mha_unbatched"
    g = tck.gen(name)
    m = tck.randomize(nn.MultiheadAttention(12, 3, dropout=0.0, bias=True, batch_first=True), g).train()
    x = tck.randn(g, 5, 12)
    with torch.no_grad():
        out, w = m(x, x, x, need_weights=True, average_attn_weights=True)
    params = {"embedDim": 12, "numHeads": 3, "bias": True, "batchFirst": True, "dropout": 0.0,
              "needWeights": True, "averageAttnWeights": True, "selfAttention": True,
              "keyPaddingMaskKind": None, "attnMaskKind": None}
    r.add(G, name, "nn.MultiheadAttention", params, [("query", x), ("key", x), ("value", x)],
          [("attn_output", out), ("attn_weights", w)], tck.state(m))


class RaschkaMultiHeadAttention(nn.Module):
    """Chapter 3.6.2 of Raschka's book: split projections, causal mask, out_proj (dropout 0)."""

    def __init__(self, d_in, d_out, context_length, num_heads, qkv_bias=False):
        super().__init__()
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1),
                             persistent=False)

    def forward(self, x):
        b, num_tokens, _ = x.shape
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)

        def heads(t):
            return t.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys, queries, values = heads(keys), heads(queries), heads(values)
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        context = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context), attn_weights


def raschka_mha(r):
    for name, d_in, d_out, h, bias in (("raschka_mha_d3_d2_h2", 3, 2, 2, False),
                                      ("raschka_mha_d6_d8_h4_bias", 6, 8, 4, True)):
        g = tck.gen(name)
        m = tck.randomize(RaschkaMultiHeadAttention(d_in, d_out, 16, h, bias), g)
        x = torch.rand(2, 6, d_in, generator=g)
        with torch.no_grad():
            out, w = m(x)
        r.add(G, name, "RaschkaMultiHeadAttention", {"dIn": d_in, "dOut": d_out, "numHeads": h, "qkvBias": bias},
              [("x", x)], [("context", out), ("weights", w)], tck.state(m))


class BloemTransformerBlock(nn.Module):
    """Bloem's TransformerBlock (Transformers from scratch) on the TCK's WideSelfAttention, dropout 0."""

    def __init__(self, k, heads, causal, ff_hidden_mult):
        super().__init__()
        self.attention = tck.WideSelfAttention(k, heads, causal)
        self.norm1 = nn.LayerNorm(k)
        self.norm2 = nn.LayerNorm(k)
        self.ff = nn.Sequential(nn.Linear(k, ff_hidden_mult * k), nn.ReLU(), nn.Linear(ff_hidden_mult * k, k))

    def forward(self, x):
        attended, _ = self.attention(x)
        x = self.norm1(attended + x)
        return self.norm2(self.ff(x) + x)


def bloem_block(r):
    for name, b, t, k, h, causal, mult in (("bloem_block_k8_h2", 2, 5, 8, 2, False, 4),
                                           ("bloem_block_k6_h3_causal", 2, 7, 6, 3, True, 2)):
        g = tck.gen(name)
        m = tck.randomize(BloemTransformerBlock(k, h, causal, mult), g)
        x = tck.randn(g, b, t, k)
        with torch.no_grad():
            out = m(x)
        r.add(G, name, "BloemTransformerBlock", {"k": k, "heads": h, "causal": causal, "ffHiddenMult": mult},
              [("x", x)], [("out", out)], tck.state(m))


def mha_kdim_vdim(r):
    name = "mha_cross_kdim_vdim"
    g = tck.gen(name)
    m = tck.randomize(nn.MultiheadAttention(8, 2, bias=True, batch_first=True, kdim=5, vdim=3), g).train()
    q, k, v = tck.randn(g, 2, 4, 8), tck.randn(g, 2, 7, 5), tck.randn(g, 2, 7, 3)
    with torch.no_grad():
        out, w = m(q, k, v, need_weights=True, average_attn_weights=False)
    params = {"embedDim": 8, "numHeads": 2, "bias": True, "batchFirst": True, "dropout": 0.0,
              "needWeights": True, "averageAttnWeights": False, "selfAttention": False,
              "keyPaddingMaskKind": None, "attnMaskKind": None, "kdim": 5, "vdim": 3}
    r.add(G, name, "nn.MultiheadAttention", params, [("query", q), ("key", k), ("value", v)],
          [("attn_output", out), ("attn_weights", w)], tck.state(m))


def encoder_final_norm(r):
    name = "encoder_3layer_prenorm_final_norm"
    g = tck.gen(name)
    layer = nn.TransformerEncoderLayer(8, 2, 32, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
    enc = tck.randomize(nn.TransformerEncoder(layer, num_layers=3, norm=nn.LayerNorm(8),
                                              enable_nested_tensor=False), g).train()
    src = tck.randn(g, 2, 6, 8)
    with torch.no_grad():
        out = enc(src)
    params = {"dModel": 8, "nhead": 2, "dimFeedforward": 32, "dropout": 0.0, "activation": "gelu",
              "layerNormEps": 1e-5, "batchFirst": True, "normFirst": True, "numLayers": 3, "finalNorm": True,
              "srcKeyPaddingMaskKind": None, "srcMaskKind": None}
    r.add(G, name, "nn.TransformerEncoder", params, [("src", src)], [("out", out)], tck.state(enc))


def generate(out_dir):
    r = tck.Registry()
    simplified(r)
    single_head(r)
    unbatched_mha(r)
    encoder_final_norm(r)
    raschka_mha(r)
    mha_kdim_vdim(r)
    bloem_block(r)
    for c in r.cases:
        c["file"] = FILES[0]
    os.makedirs(out_dir, exist_ok=True)
    meta = {"format": "pt", "generator": "attn4j models/src/test/python/generate_model_goldens.py",
            "torch": torch.__version__, "dtype": "float64", "group": G}
    tck.write_safetensors(os.path.join(out_dir, FILES[0]), r.tensors[G], meta)
    with open(os.path.join(out_dir, FILES[1]), "w", encoding="utf-8", newline="\n") as f:
        json.dump(r.cases, f, indent=1, allow_nan=False)
        f.write("\n")
    return r


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="regenerate into a temp dir and compare byte for byte")
    args = ap.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            generate(tmp)
            same = all(digest(os.path.join(tmp, f)) == digest(os.path.join(OUT, f)) for f in FILES)
        print("goldens reproducible" if same else "goldens differ from a fresh regeneration")
        return 0 if same else 1
    r = generate(OUT)
    for f in FILES:
        print(f, os.path.getsize(os.path.join(OUT, f)), "bytes sha256", digest(os.path.join(OUT, f)))
    print("cases:", len(r.cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
