#!/usr/bin/python3
"""Generate the attn4j TCK golden files.

Reference: PyTorch in float64 (Debian's python3-torch), composed to follow the attn4j op semantics
exactly (all -inf softmax slice -> zeros, top-left causal mask, splitmix64 dropout). See README.md.

Usage:
    /usr/bin/python3 generate_goldens.py [--out DIR]   write the golden files (default: the tck resources dir)
    /usr/bin/python3 generate_goldens.py --check       regenerate into a temp dir and compare byte for byte
"""

import argparse
import hashlib
import json
import math
import os
import struct
import sys
import tempfile
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from fused_cases import fused_ops_cases, packed_attention_cases
from decoder_cases import (decoder_attention_cases, decoder_model_cases, decoder_ops_cases, rope_parameter_cases,
                           scaled_rope_cases, softcap_attention_cases, softcap_cases)

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(
    os.path.join(HERE, "..", "main", "resources", "org", "attn4j", "tck", "golden"))
GROUPS = ("ops", "attention", "models")
NEG_INF = float("-inf")
MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------------------------------------
# safetensors writer (format: u64 LE header length, JSON header padded with spaces to 8, raw data)
# ---------------------------------------------------------------------------------------------

def write_safetensors(path, tensors, metadata, dtype="F64"):
    names = sorted(tensors)
    header = {"__metadata__": {k: str(metadata[k]) for k in sorted(metadata)}} if metadata else {}
    blobs = []
    offset = 0
    for name in names:
        t = tensors[name]
        arr = np.asarray(t.detach().numpy(), dtype={"F64": "<f8", "F32": "<f4"}[dtype], order="C")
        data = arr.tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


# ---------------------------------------------------------------------------------------------
# Case registry
# ---------------------------------------------------------------------------------------------

class Registry:
    def __init__(self):
        self.cases = []
        self.tensors = {g: {} for g in GROUPS}
        self.names = set()

    def add(self, group, name, op, params, inputs, outputs, parameters=None):
        assert group in GROUPS, group
        assert name not in self.names, "duplicate case " + name
        assert "/" not in name
        self.names.add(name)
        store = self.tensors[group]

        def put(key, t):
            t = torch.as_tensor(t, dtype=torch.float64)
            assert key not in store, key
            store[key] = t.detach().clone().contiguous()
            return key

        entry = {
            "group": group,
            "name": name,
            "op": op,
            "params": params,
            "inputs": [put(f"{name}/{role}", t) for role, t in inputs],
            "outputs": [put(f"{name}/{role}", t) for role, t in outputs],
        }
        if parameters is not None:
            entry["parameters"] = [put(f"{name}/param/{k}", v) for k, v in parameters]
        self.cases.append(entry)


def gen(name):
    g = torch.Generator()
    g.manual_seed(zlib.crc32(name.encode("utf-8")))
    return g


def randn(g, *shape, scale=1.0):
    return torch.randn(tuple(shape), generator=g, dtype=torch.float64) * scale


# ---------------------------------------------------------------------------------------------
# Reference semantics
# ---------------------------------------------------------------------------------------------

def softmax_ref(x, axis):
    out = torch.softmax(x, dim=axis)
    all_neg_inf = torch.all(x == NEG_INF, dim=axis, keepdim=True)
    return out.masked_fill(all_neg_inf, 0.0)


def dropout_keep_u(seed, n):
    """u(seed, i) for i in [0, n), vectorised with numpy uint64 (wraps mod 2^64)."""
    with np.errstate(over="ignore"):
        i = np.arange(1, n + 1, dtype=np.uint64)
        z = np.uint64(seed & MASK64) + i * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * (2.0 ** -53)


def dropout_u_scalar(seed, i):
    z = ((seed & MASK64) + (i + 1) * 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    z = z ^ (z >> 31)
    return (z >> 11) * (2.0 ** -53)


def dropout_ref(x, p, seed):
    if not 0.0 <= p <= 1.0:
        raise ValueError(p)
    if p == 0.0:
        return x.clone()
    if p == 1.0:
        return torch.zeros_like(x)
    n = x.numel()
    u = dropout_keep_u(seed, n)
    for i in range(n):
        assert u[i] == dropout_u_scalar(seed, i), (seed, i)
    keep = torch.from_numpy(u >= p).reshape(x.shape)
    return torch.where(keep, x * (1.0 / (1.0 - p)), torch.zeros_like(x))


def causal_allowed(lq, lk):
    return torch.ones(lq, lk, dtype=torch.bool).tril()


def key_padding_allowed(valid_lengths, lk):
    idx = torch.arange(lk)
    rows = [idx < v for v in valid_lengths]
    return torch.stack(rows).reshape(len(valid_lengths), 1, 1, lk)


def additive_from(mask_bool):
    z = torch.zeros(mask_bool.shape, dtype=torch.float64)
    return z.masked_fill(~mask_bool, NEG_INF)


def attention_ref(q, k, v, causal=False, mask=None, additive=None, scale=None, dropout_p=0.0, seed=0):
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    logits = torch.matmul(q, k.transpose(-2, -1)) * scale
    if additive is not None:
        logits = logits + additive
    if mask is not None:
        logits = logits.masked_fill(~mask, NEG_INF)
    if causal:
        logits = logits.masked_fill(~causal_allowed(q.shape[-2], k.shape[-2]), NEG_INF)
    weights = softmax_ref(logits, -1)
    if dropout_p > 0.0:
        weights = dropout_ref(weights, dropout_p, seed)
    return torch.matmul(weights, v), weights


def b01(mask_bool):
    return mask_bool.to(torch.float64)


# ---------------------------------------------------------------------------------------------
# ops group
# ---------------------------------------------------------------------------------------------

def ops_cases(r):
    G = "ops"

    # matmul
    mm_shapes = [
        ("1x1x1", (), (), 1, 1, 1),
        ("7x7x7", (), (), 7, 7, 7),
        ("63x7x1", (), (), 63, 7, 1),
        ("1x129x7", (), (), 1, 129, 7),
        ("129x7x63", (), (), 129, 7, 63),
        ("7x63x129", (), (), 7, 63, 129),
        ("b23_7x5x4", (2, 3), (2, 3), 7, 5, 4),
        ("bcast_21_3", (2, 1), (3,), 7, 5, 4),
        ("bcast_4_none", (4,), (), 7, 5, 6),
        ("bcast_none_2", (), (2,), 3, 5, 1),
    ]
    for label, ba, bb, m, kk, n in mm_shapes:
        for ta in (False, True):
            for tb in (False, True):
                if label in ("129x7x63", "1x129x7") and ta != tb:
                    continue
                name = f"matmul_{label}_{'T' if ta else 'N'}{'T' if tb else 'N'}"
                g = gen(name)
                a = randn(g, *ba, m, kk)
                b = randn(g, *bb, kk, n)
                out = torch.matmul(a, b)
                a_st = a.transpose(-2, -1) if ta else a
                b_st = b.transpose(-2, -1) if tb else b
                r.add(G, name, "matmul", {"transposeA": ta, "transposeB": tb},
                      [("a", a_st), ("b", b_st)], [("out", out)])

    # elementwise binary
    bshapes = [
        ("same", (3, 4), (3, 4)),
        ("row", (2, 3, 4), (4,)),
        ("col", (2, 1, 4), (3, 1)),
        ("one", (1,), (2, 3)),
        ("scalar", (), (2, 3)),
        ("both", (5, 1, 7), (1, 6, 1)),
        ("scalar_scalar", (), ()),
    ]
    fns = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}
    for opname, fn in fns.items():
        for label, sa, sb in bshapes:
            name = f"{opname}_{label}"
            g = gen(name)
            a = randn(g, *sa)
            b = randn(g, *sb)
            if opname == "div":
                b = torch.sign(b) * (0.5 + b.abs())
                b = torch.where(b == 0, torch.ones_like(b), b)
            r.add(G, name, opname, {}, [("a", a), ("b", b)], [("out", fn(a, b))])
    a = torch.tensor([1.0, -1.0, 0.0, float("inf"), float("nan"), 2.0])
    b = torch.tensor([0.0, 0.0, 0.0, float("inf"), 1.0, float("-inf")])
    for opname, fn in fns.items():
        r.add(G, f"{opname}_ieee", opname, {}, [("a", a), ("b", b)], [("out", fn(a, b))])

    # scale, exp
    for label, s in (("0p125", 0.125), ("neg3p5", -3.5), ("one", 1.0)):
        name = f"scale_{label}"
        x = randn(gen(name), 3, 5)
        r.add(G, name, "scale", {"s": s}, [("x", x)], [("out", x * s)])
    for label, x in (("randn", randn(gen("exp_randn"), 4, 6, scale=3.0)),
                     ("extremes", torch.tensor([NEG_INF, -745.2, -700.0, 0.0, 1e-300, 1.0, 700.0, 709.78,
                                                710.0, float("inf"), float("nan")]))):
        name = f"exp_{label}"
        r.add(G, name, "exp", {}, [("x", x)], [("out", torch.exp(x))])

    # reductions
    red = {
        "max": lambda x, a, kd: torch.amax(x, dim=a, keepdim=kd),
        "sum": lambda x, a, kd: torch.sum(x, dim=a, keepdim=kd),
        "mean": lambda x, a, kd: torch.mean(x, dim=a, keepdim=kd),
        "variance": lambda x, a, kd: torch.var(x, dim=a, unbiased=False, keepdim=kd),
    }
    for opname, fn in red.items():
        for shape, axis in (((3, 4, 5), 0), ((3, 4, 5), 1), ((3, 4, 5), -1), ((3, 4, 5), -3),
                            ((7,), 0), ((2, 129), 1), ((1, 6), 0)):
            for kd in (False, True):
                sl = "x".join(map(str, shape))
                name = f"{opname}_{sl}_ax{axis}_{'keep' if kd else 'drop'}".replace("-", "m")
                x = randn(gen(name), *shape)
                if opname == "variance" and shape == (2, 129):
                    x = x + 1000.0
                r.add(G, name, opname, {"axis": axis, "keepDims": kd}, [("x", x)], [("out", fn(x, axis, kd))])
    x = torch.tensor([[NEG_INF, NEG_INF, NEG_INF], [NEG_INF, -5.0, 3.0], [float("inf"), 0.0, 1.0]])
    r.add(G, "max_infs_ax1", "max", {"axis": 1, "keepDims": False}, [("x", x)], [("out", x.amax(1))])

    # softmax
    for label, shape, axis, sc in (("4x7_axm1", (4, 7), -1, 1.0), ("4x7_ax0", (4, 7), 0, 1.0),
                                   ("2x3x5_ax1", (2, 3, 5), 1, 1.0), ("3x129_axm1", (3, 129), -1, 4.0),
                                   ("5x1_ax1", (5, 1), 1, 1.0), ("1x1_ax0", (1, 1), 0, 1.0)):
        name = f"softmax_{label}"
        x = randn(gen(name), *shape, scale=sc)
        r.add(G, name, "softmax", {"axis": axis}, [("x", x)], [("out", softmax_ref(x, axis))])
    x = torch.tensor([
        [1e4, 1e4 - 1.0, 1e4 - 2.0, 0.0, -1e4],
        [-1e4, -1e4 + 0.5, -1e4 - 3.0, -1e4, -1e4],
        [1e4, -1e4, 0.0, 1e4, 5.0],
        [3e4, 2e4, 1e4, 0.0, -3e4],
    ])
    r.add(G, "softmax_large_logits", "softmax", {"axis": -1}, [("x", x)], [("out", softmax_ref(x, -1))])
    x = torch.tensor([
        [NEG_INF, NEG_INF, NEG_INF, NEG_INF],
        [NEG_INF, 0.5, NEG_INF, -1.0],
        [1.0, 2.0, 3.0, 4.0],
        [NEG_INF, NEG_INF, NEG_INF, 7.0],
    ])
    r.add(G, "softmax_neg_inf_rows", "softmax", {"axis": -1}, [("x", x)], [("out", softmax_ref(x, -1))])
    r.add(G, "softmax_neg_inf_cols", "softmax", {"axis": 0}, [("x", x.t().contiguous())],
          [("out", softmax_ref(x.t(), 0))])
    x = torch.tensor([[1.0, float("nan"), 2.0], [1.0, 2.0, 3.0], [NEG_INF, float("nan"), NEG_INF]])
    r.add(G, "softmax_nan_rows", "softmax", {"axis": -1}, [("x", x)], [("out", softmax_ref(x, -1))])
    # entries across the F32 range: x - max must not overflow into NaN, ties at the top share the weight
    x = torch.tensor([
        [1e20, -1e20, 2e20, 0.0],
        [3e38, 3e38, -3e38, 1e38],
        [-1e30, -1e30, -1e30, -1e30],
        [1e25, -3e38, 1e-30, 1e25],
    ])
    r.add(G, "softmax_f32_range", "softmax", {"axis": -1}, [("x", x)], [("out", softmax_ref(x, -1))])

    # layerNorm
    for label, shape, hg, hb, eps, off in (("both", (2, 3, 8), True, True, 1e-5, 0.0),
                                           ("gamma_only", (2, 3, 8), True, False, 1e-5, 0.0),
                                           ("beta_only", (2, 3, 8), False, True, 1e-5, 0.0),
                                           ("neither", (2, 3, 8), False, False, 1e-5, 0.0),
                                           ("d63_eps1em12", (4, 63), True, True, 1e-12, 0.0),
                                           ("offset1000", (3, 16), True, True, 1e-5, 1000.0),
                                           ("d1", (5, 1), True, True, 1e-5, 0.0),
                                           ("rank1_d129", (129,), False, False, 1e-5, 0.0)):
        name = f"layerNorm_{label}"
        g = gen(name)
        d = shape[-1]
        x = randn(g, *shape) * 2.0 + off
        gamma = 1.0 + 0.3 * randn(g, d)
        beta = 0.3 * randn(g, d)
        out = F.layer_norm(x, (d,), gamma if hg else None, beta if hb else None, eps)
        ins = [("x", x)] + ([("gamma", gamma)] if hg else []) + ([("beta", beta)] if hb else [])
        r.add(G, name, "layerNorm", {"eps": eps, "hasGamma": hg, "hasBeta": hb}, ins, [("out", out)])
    # entries whose squares overflow F32 (from about 1.8e19): the float64 reference keeps them
    g = gen("layerNorm_f32_range")
    x = torch.cat([torch.tensor([[1e20, -1e20, 2e20, 0.0, 5e19, -5e19, 1e19, 3e20]]),
                   randn(g, 1, 8, scale=1e19), randn(g, 1, 8, scale=1e25) + 1e26,
                   randn(g, 1, 8, scale=1e30)])
    for label, hg in (("layerNorm_f32_range", False), ("layerNorm_f32_range_affine", True)):
        gamma = 1.0 + 0.3 * randn(gen(label), 8)
        beta = 0.3 * randn(gen(label + "_beta"), 8)
        out = F.layer_norm(x, (8,), gamma if hg else None, beta if hg else None, 1e-5)
        ins = [("x", x)] + ([("gamma", gamma), ("beta", beta)] if hg else [])
        r.add(G, label, "layerNorm", {"eps": 1e-5, "hasGamma": hg, "hasBeta": hg}, ins, [("out", out)])

    # relu, gelu
    special = torch.tensor([0.0, -0.0, -1e-300, 1e-300, -10.0, 10.0, -40.0, 40.0, -1e3, 1e3])
    x = torch.cat([randn(gen("act"), 40, scale=3.0), special])
    xr = torch.cat([x[:-2], torch.tensor([NEG_INF, float("inf")])])
    r.add(G, "relu", "relu", {}, [("x", xr.reshape(5, 10))], [("out", F.relu(xr).reshape(5, 10))])
    r.add(G, "gelu_none", "gelu", {"approximation": "NONE"}, [("x", x.reshape(5, 10))],
          [("out", F.gelu(x, approximate="none").reshape(5, 10))])
    r.add(G, "gelu_tanh", "gelu", {"approximation": "TANH"}, [("x", x.reshape(5, 10))],
          [("out", F.gelu(x, approximate="tanh").reshape(5, 10))])

    # linear
    for label, xs, fin, fout, hb in (("bias_2x3x7_5", (2, 3), 7, 5, True), ("nobias_2x3x7_5", (2, 3), 7, 5, False),
                                     ("bias_4x129_7", (4,), 129, 7, True), ("nobias_1x1_1", (1,), 1, 1, False),
                                     ("bias_5x63_63", (5,), 63, 63, True)):
        name = f"linear_{label}"
        g = gen(name)
        x = randn(g, *xs, fin)
        w = randn(g, fout, fin, scale=1.0 / math.sqrt(fin))
        b = randn(g, fout)
        out = F.linear(x, w, b if hb else None)
        ins = [("x", x), ("w", w)] + ([("b", b)] if hb else [])
        r.add(G, name, "linear", {"hasBias": hb}, ins, [("out", out)])

    # embedding
    for label, v, d, ishape in (("v10_d4_2x3", 10, 4, (2, 3)), ("v7_d5_5", 7, 5, (5,)), ("v3_d1_1x1", 3, 1, (1, 1))):
        name = f"embedding_{label}"
        g = gen(name)
        w = randn(g, v, d)
        ids = torch.randint(0, v, ishape, generator=g)
        ids.view(-1)[0] = 0
        ids.view(-1)[-1] = v - 1
        r.add(G, name, "embedding", {}, [("weight", w), ("ids", ids.to(torch.float64))],
              [("out", F.embedding(ids, w))])

    # reshape, permute, transpose
    x = randn(gen("shape_src"), 2, 3, 4)
    for label, shape in (("6x4", [6, 4]), ("4xm1", [4, -1]), ("24", [24]), ("m1x2x1x3", [-1, 2, 1, 3])):
        r.add(G, f"reshape_{label}", "reshape", {"shape": shape}, [("x", x)], [("out", x.reshape(shape))])
    x1 = torch.tensor([[4.5]])
    r.add(G, "reshape_to_scalar", "reshape", {"shape": []}, [("x", x1)], [("out", x1.reshape([]))])
    x4 = randn(gen("perm_src"), 2, 3, 4, 5)
    for axes in ([0, 2, 1, 3], [3, 2, 1, 0], [1, 0, 3, 2], [0, 1, 2, 3]):
        r.add(G, "permute_" + "".join(map(str, axes)), "permute", {"axes": axes}, [("x", x4)],
              [("out", x4.permute(axes).contiguous())])
    for d0, d1 in ((0, 1), (-1, -2), (1, 3), (2, 2)):
        r.add(G, f"transpose_{d0}_{d1}".replace("-", "m"), "transpose", {"dim0": d0, "dim1": d1}, [("x", x4)],
              [("out", x4.transpose(d0, d1).contiguous())])

    # concat, split, chunk
    for axis in (0, 1, -1):
        name = f"concat_ax{axis}".replace("-", "m")
        g = gen(name)
        shapes = []
        for size in (2, 1, 3):
            s = [2, 3, 4]
            s[axis] = size
            shapes.append(s)
        xs = [randn(g, *s) for s in shapes]
        r.add(G, name, "concat", {"axis": axis}, [(f"x{i}", t) for i, t in enumerate(xs)],
              [("out", torch.cat(xs, dim=axis))])
    for label, shape, sizes, axis in (("7x5_ax0", (7, 5), [2, 3, 2], 0), ("3x10_axm1", (3, 10), [1, 9], -1),
                                      ("2x4x3_ax1", (2, 4, 3), [4], 1)):
        name = f"split_{label}"
        x = randn(gen(name), *shape)
        parts = torch.split(x, sizes, dim=axis)
        r.add(G, name, "split", {"sizes": sizes, "axis": axis}, [("x", x)],
              [(f"out{i}", p) for i, p in enumerate(parts)])
    for label, shape, n, axis in (("7x4_n3_ax0", (7, 4), 3, 0), ("5x6_n2_ax1", (5, 6), 2, 1),
                                  ("10_n4_ax0", (10,), 4, 0), ("6_n4_ax0", (6,), 4, 0),
                                  ("2x3_n5_axm1", (2, 3), 5, -1)):
        name = f"chunk_{label}"
        x = randn(gen(name), *shape)
        parts = torch.chunk(x, n, dim=axis)
        r.add(G, name, "chunk", {"n": n, "axis": axis}, [("x", x)],
              [(f"out{i}", p) for i, p in enumerate(parts)])

    # cast
    x = torch.cat([randn(gen("cast"), 20), torch.tensor([1e-50, 1e300, -1e300, 0.1, 1.0 / 3.0, 16777217.0,
                                                         float("inf"), float("nan")])])
    r.add(G, "cast_f32", "cast", {"dtype": "F32"}, [("x", x)], [("out", x.to(torch.float32).to(torch.float64))])

    # masks
    for lq, lk in ((4, 4), (3, 5), (5, 3), (1, 1), (1, 7)):
        r.add(G, f"maskCausal_{lq}x{lk}", "maskCausal", {"lq": lq, "lk": lk}, [],
              [("mask", b01(causal_allowed(lq, lk)))])
        r.add(G, f"additiveMask_causal_{lq}x{lk}", "additiveMask", {"maskKind": "causal", "lq": lq, "lk": lk},
              [("mask", b01(causal_allowed(lq, lk)))], [("out", additive_from(causal_allowed(lq, lk)))])
    for label, vl, lk in (("3_1_4_lk4", [3, 1, 4], 4), ("0_2_lk5", [0, 2], 5), ("1_lk1", [1], 1)):
        m = key_padding_allowed(vl, lk)
        r.add(G, f"maskKeyPadding_{label}", "maskKeyPadding", {"validLengths": vl, "lk": lk}, [],
              [("mask", b01(m))])
        r.add(G, f"additiveMask_keyPadding_{label}", "additiveMask",
              {"maskKind": "keyPadding", "validLengths": vl, "lk": lk},
              [("mask", b01(m))], [("out", additive_from(m))])
    m = torch.tensor([[True, False, True], [False, False, False]])
    r.add(G, "additiveMask_of_2x3", "additiveMask", {"maskKind": "of"}, [("mask", b01(m))],
          [("out", additive_from(m))])

    # dropout
    for label, shape, p, seed in (("p0p1_s42", (3, 5, 7), 0.1, 42), ("p0p5_s42", (3, 5, 7), 0.5, 42),
                                  ("p0p5_s7", (4, 8), 0.5, 7), ("p0p1_sm1", (129,), 0.1, -1),
                                  ("p0p5_s0", (6, 6), 0.5, 0),
                                  ("p0p5_sbig", (2, 63), 0.5, 9007199254740991),
                                  ("p0p25_sneg", (5, 5), 0.25, -8070450532247928832),
                                  ("p0_s42", (3, 4), 0.0, 42), ("p1_s42", (3, 4), 1.0, 42)):
        name = f"dropout_{label}"
        x = randn(gen(name), *shape)
        r.add(G, name, "dropout", {"p": p, "seed": seed}, [("x", x)], [("out", dropout_ref(x, p, seed))])


# ---------------------------------------------------------------------------------------------
# attention group
# ---------------------------------------------------------------------------------------------

def attention_cases(r):
    G = "attention"

    def case(name, lead, lq, lk, dk, dv, causal=False, mask=None, additive=None, scale=None,
             dropout_p=0.0, seed=0, return_weights=True, qk_scale=1.0, v_scale=1.0):
        g = gen(name)
        q = randn(g, *lead, lq, dk, scale=qk_scale)
        k = randn(g, *lead, lk, dk, scale=qk_scale)
        v = randn(g, *lead, lk, dv, scale=v_scale)
        mask_t = mask(g) if callable(mask) else mask
        add_t = additive(g) if callable(additive) else additive
        out, w = attention_ref(q, k, v, causal, mask_t, add_t, scale, dropout_p, seed)
        ins = [("q", q), ("k", k), ("v", v)]
        if mask_t is not None:
            ins.append(("mask", b01(mask_t)))
        if add_t is not None:
            ins.append(("additiveMask", add_t))
        outs = [("out", out)] + ([("weights", w)] if return_weights else [])
        params = {"causal": causal, "scale": scale, "dropoutP": dropout_p, "dropoutSeed": seed,
                  "returnWeights": return_weights}
        r.add(G, name, "attention", params, ins, outs)

    def rand_mask(*shape):
        def make(g):
            m = torch.rand(*shape, generator=g) < 0.6
            m[..., 0] = True
            return m
        return make

    case("attn_basic", (1, 1), 7, 7, 8, 8)
    case("attn_basic_noweights", (1, 1), 7, 7, 8, 8, return_weights=False)
    case("attn_scale1", (1, 1), 7, 7, 8, 8, scale=1.0)
    case("attn_scale0p3", (2, 1), 5, 6, 4, 4, scale=0.3)
    case("attn_causal_square", (1, 2), 7, 7, 8, 8, causal=True)
    case("attn_causal_lq_lt_lk", (1, 1), 5, 9, 8, 8, causal=True)
    case("attn_causal_lq_gt_lk", (1, 1), 9, 5, 8, 8, causal=True)
    case("attn_bool_mask_2d", (1, 1), 6, 8, 4, 4, mask=rand_mask(6, 8))
    case("attn_bool_mask_b1", (2, 3), 6, 8, 4, 4, mask=rand_mask(2, 1, 6, 8))
    case("attn_bool_mask_full", (2, 2), 4, 5, 4, 4, mask=rand_mask(2, 2, 4, 5))
    case("attn_key_padding", (3, 2), 5, 6, 4, 4, mask=key_padding_allowed([6, 1, 4], 6))
    case("attn_additive_2d", (1, 2), 5, 7, 4, 4, additive=lambda g: randn(g, 5, 7))
    case("attn_additive_b1", (2, 2), 5, 7, 4, 4, additive=lambda g: randn(g, 2, 1, 5, 7))
    case("attn_additive_neg_inf", (1, 1), 4, 6, 4, 4,
         additive=lambda g: additive_from(rand_mask(4, 6)(g)) + randn(g, 4, 6))
    case("attn_both_masks", (2, 2), 6, 6, 4, 4, mask=rand_mask(2, 1, 6, 6),
         additive=lambda g: randn(g, 6, 6))
    case("attn_both_masks_causal", (2, 2), 6, 6, 4, 4, causal=True, mask=key_padding_allowed([6, 3], 6),
         additive=lambda g: randn(g, 6, 6))
    case("attn_dk_ne_dv", (2, 2), 5, 5, 8, 3)
    case("attn_cross", (2, 2), 3, 11, 6, 5)
    case("attn_cross_long_q", (1, 2), 11, 3, 6, 5)

    def full_row(g):
        m = rand_mask(5, 6)(g)
        m[2, :] = False
        m[4, :] = False
        return m
    case("attn_fully_masked_rows_bool", (1, 1), 5, 6, 4, 4, mask=full_row)

    def full_row_add(g):
        a = randn(g, 5, 6)
        a[1, :] = NEG_INF
        return a
    case("attn_fully_masked_rows_additive", (1, 2), 5, 6, 4, 4, additive=full_row_add)
    case("attn_fully_masked_key_padding0", (2, 1), 4, 5, 4, 3, mask=key_padding_allowed([0, 3], 5))
    case("attn_fully_masked_causal_mask", (1, 1), 4, 4, 4, 4, causal=True,
         mask=torch.tensor([[False, True, True, True]] * 4))
    case("attn_large_logits", (1, 2), 6, 6, 8, 8, scale=1.0, qk_scale=math.sqrt(1e4 / math.sqrt(8)))
    case("attn_large_logits_causal", (1, 1), 6, 6, 8, 8, causal=True, qk_scale=100.0)
    # logits near 1e30 and values near 1e30, finite in F32: the softmax is one-hot and must stay free of NaN
    case("attn_f32_range_logits", (1, 2), 6, 6, 8, 8, qk_scale=1e15)
    case("attn_f32_range_logits_causal", (1, 1), 6, 6, 8, 8, causal=True, qk_scale=1e15)
    case("attn_f32_range_values", (1, 2), 5, 7, 4, 4, v_scale=1e30)
    case("attn_b2_h3", (2, 3), 7, 7, 8, 8)
    case("attn_b3_h4_causal", (3, 4), 5, 5, 4, 4, causal=True)
    case("attn_size1", (1, 1), 1, 1, 1, 1)
    case("attn_size1_causal", (1, 1), 1, 1, 1, 1, causal=True)
    case("attn_size7", (1, 1), 7, 7, 7, 7)
    case("attn_size63", (1, 2), 63, 63, 16, 16)
    case("attn_size63_causal", (1, 1), 63, 63, 16, 16, causal=True)
    case("attn_size129", (1, 1), 129, 129, 16, 16)
    case("attn_size129_causal", (1, 1), 129, 129, 16, 8, causal=True)
    case("attn_size129_cross", (1, 1), 7, 129, 16, 16)
    case("attn_lq1_lk63", (2, 2), 1, 63, 8, 8)
    case("attn_dropout_p0p1", (2, 2), 6, 6, 4, 4, dropout_p=0.1, seed=42)
    case("attn_dropout_p0p5", (2, 2), 6, 6, 4, 4, dropout_p=0.5, seed=42)
    case("attn_dropout_p0p5_causal", (1, 2), 7, 7, 4, 4, causal=True, dropout_p=0.5, seed=12345)
    case("attn_dropout_p0p1_noweights", (1, 1), 5, 5, 4, 4, dropout_p=0.1, seed=-1, return_weights=False)
    case("attn_rank3", (2,), 5, 6, 4, 3)


# ---------------------------------------------------------------------------------------------
# models group
# ---------------------------------------------------------------------------------------------

def randomize(module, g):
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.dim() >= 2:
                p.copy_(randn(g, *p.shape, scale=1.0 / math.sqrt(p.shape[-1])))
            elif name.endswith("weight"):
                p.copy_(1.0 + 0.2 * randn(g, *p.shape))
            else:
                p.copy_(0.2 * randn(g, *p.shape))
    return module


def state(module):
    return [(k, v) for k, v in module.state_dict().items()]


class BahdanauAttention(nn.Module):
    def __init__(self, query_dim, key_dim, hidden_dim):
        super().__init__()
        self.W1 = nn.Linear(query_dim, hidden_dim, bias=True)
        self.W2 = nn.Linear(key_dim, hidden_dim, bias=True)
        self.v = nn.Linear(hidden_dim, 1, bias=False)

    def forward(self, query, keys, values, valid_lengths=None):
        hidden = torch.tanh(self.W1(query).unsqueeze(2) + self.W2(keys).unsqueeze(1))
        scores = self.v(hidden).squeeze(-1)
        if valid_lengths is not None:
            scores = scores.masked_fill(~key_padding_allowed(valid_lengths, keys.shape[1])[:, 0], NEG_INF)
        weights = softmax_ref(scores, -1)
        return torch.matmul(weights, values), weights


class SelfAttentionV1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.empty(d_in, d_out))
        self.W_key = nn.Parameter(torch.empty(d_in, d_out))
        self.W_value = nn.Parameter(torch.empty(d_in, d_out))

    def forward(self, x):
        q, k, v = x @ self.W_query, x @ self.W_key, x @ self.W_value
        w = torch.softmax(q @ k.transpose(-2, -1) / k.shape[-1] ** 0.5, dim=-1)
        return w @ v, w


class SelfAttentionV2(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, d_out, bias=False)
        self.W_value = nn.Linear(d_in, d_out, bias=False)

    def forward(self, x):
        q, k, v = self.W_query(x), self.W_key(x), self.W_value(x)
        w = torch.softmax(q @ k.transpose(-2, -1) / k.shape[-1] ** 0.5, dim=-1)
        return w @ v, w


class WideSelfAttention(nn.Module):
    def __init__(self, k, heads, causal=False):
        super().__init__()
        self.k, self.heads, self.causal = k, heads, causal
        self.tokeys = nn.Linear(k, k * heads, bias=False)
        self.toqueries = nn.Linear(k, k * heads, bias=False)
        self.tovalues = nn.Linear(k, k * heads, bias=False)
        self.unifyheads = nn.Linear(heads * k, k)

    def forward(self, x):
        b, t, k = x.shape
        h = self.heads

        def split(y):
            return y.view(b, t, h, k).transpose(1, 2)
        q = split(self.toqueries(x)) / k ** 0.25
        kk = split(self.tokeys(x)) / k ** 0.25
        v = split(self.tovalues(x))
        dot = q @ kk.transpose(-2, -1)
        if self.causal:
            dot = dot.masked_fill(~causal_allowed(t, t), NEG_INF)
        w = torch.softmax(dot, dim=-1)
        out = (w @ v).transpose(1, 2).reshape(b, t, h * k)
        return self.unifyheads(out), w


class Head(nn.Module):
    def __init__(self, d_in, d_head):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_head, bias=False)
        self.W_key = nn.Linear(d_in, d_head, bias=False)
        self.W_value = nn.Linear(d_in, d_head, bias=False)


class PerHeadMultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_head, heads, d_out, causal=False):
        super().__init__()
        self.causal = causal
        self.heads = nn.ModuleList([Head(d_in, d_head) for _ in range(heads)])
        self.W_o = nn.Linear(heads * d_head, d_out, bias=True)

    def forward(self, x):
        outs, ws = [], []
        for hd in self.heads:
            q, k, v = hd.W_query(x), hd.W_key(x), hd.W_value(x)
            o, w = attention_ref(q, k, v, causal=self.causal)
            outs.append(o)
            ws.append(w)
        return self.W_o(torch.cat(outs, dim=-1)), torch.stack(ws, dim=1)


def sinusoidal_pe(max_len, d):
    pos = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    col = torch.arange(d)
    i2 = (col // 2 * 2).to(torch.float64)
    angle = pos / torch.pow(torch.tensor(10000.0), i2 / d)
    return torch.where(col % 2 == 0, torch.sin(angle), torch.cos(angle))


def models_cases(r):
    G = "models"

    # nn.MultiheadAttention
    def mha(name, e, h, b, lq, lk, need_weights=True, average=True, kpm=None, attn_mask=None, cross=False):
        g = gen(name)
        m = randomize(nn.MultiheadAttention(e, h, dropout=0.0, bias=True, batch_first=True), g).train()
        query = randn(g, b, lq, e)
        if cross:
            key = randn(g, b, lk, e)
            value = randn(g, b, lk, e)
        else:
            assert lq == lk
            key, value = query, query
        kpm_t = kpm(g) if callable(kpm) else kpm
        am_t = attn_mask(g) if callable(attn_mask) else attn_mask
        with torch.no_grad():
            out, w = m(query, key, value, key_padding_mask=kpm_t, need_weights=need_weights,
                       attn_mask=am_t, average_attn_weights=average)
        ins = [("query", query), ("key", key), ("value", value)]
        if kpm_t is not None:
            ins.append(("key_padding_mask", kpm_t.to(torch.float64)))
        if am_t is not None:
            ins.append(("attn_mask", am_t.to(torch.float64)))
        outs = [("attn_output", out)] + ([("attn_weights", w)] if need_weights else [])
        params = {"embedDim": e, "numHeads": h, "bias": True, "batchFirst": True, "dropout": 0.0,
                  "needWeights": need_weights, "averageAttnWeights": average,
                  "selfAttention": not cross,
                  "keyPaddingMaskKind": None if kpm_t is None else "bool",
                  "attnMaskKind": None if am_t is None else ("bool" if am_t.dtype == torch.bool else "float")}
        r.add(G, name, "nn.MultiheadAttention", params, ins, outs, state(m))

    triu = torch.ones(5, 5, dtype=torch.bool).triu(1)
    mha("mha_self_avg", 16, 4, 2, 5, 5)
    mha("mha_self_per_head", 16, 4, 2, 5, 5, average=False)
    mha("mha_self_no_weights", 16, 4, 2, 5, 5, need_weights=False)
    mha("mha_one_head", 8, 1, 2, 4, 4)
    mha("mha_cross", 12, 3, 2, 3, 6, cross=True, average=False)
    mha("mha_key_padding", 16, 4, 2, 5, 5, kpm=torch.tensor([[False] * 5, [False, False, False, True, True]]),
        average=False)
    mha("mha_attn_mask_bool", 16, 4, 2, 5, 5, attn_mask=triu, average=False)
    mha("mha_attn_mask_float", 16, 4, 2, 5, 5,
        attn_mask=lambda g: torch.zeros(5, 5).masked_fill(triu, NEG_INF) + 0.5 * randn(g, 5, 5), average=False)
    mha("mha_both_masks_bool", 16, 2, 2, 5, 5, attn_mask=triu,
        kpm=torch.tensor([[False, False, False, False, True], [False, False, True, True, True]]))
    mha("mha_cross_key_padding", 8, 2, 3, 4, 7, cross=True,
        kpm=torch.tensor([[False] * 7, [False] * 3 + [True] * 4, [False] * 6 + [True]]), average=False)

    # nn.TransformerEncoderLayer / nn.TransformerEncoder
    def enc_params(d, h, ff, act, nf, eps=1e-5):
        return {"dModel": d, "nhead": h, "dimFeedforward": ff, "dropout": 0.0, "activation": act,
                "layerNormEps": eps, "batchFirst": True, "normFirst": nf}

    def enc_inputs(g, b, l, d, kpm, causal_mask):
        src = randn(g, b, l, d)
        kpm_t = None
        if kpm is not None:
            kpm_t = torch.stack([torch.arange(l) >= n for n in kpm])
        mask_t = None
        if causal_mask is not None:
            mask_t = torch.ones(l, l, dtype=torch.bool).triu(1)
            if causal_mask == "float":
                mask_t = torch.zeros(l, l).masked_fill(mask_t, NEG_INF)
        ins = [("src", src)]
        if kpm_t is not None:
            ins.append(("src_key_padding_mask", kpm_t.to(torch.float64)))
        if mask_t is not None:
            ins.append(("src_mask", mask_t.to(torch.float64)))
        return src, kpm_t, mask_t, ins

    def mask_params(kpm_t, mask_t):
        return {"srcKeyPaddingMaskKind": None if kpm_t is None else "bool",
                "srcMaskKind": None if mask_t is None else ("bool" if mask_t.dtype == torch.bool else "float")}

    for act in ("relu", "gelu"):
        for nf in (False, True):
            for kpm, cm, suffix in ((None, None, ""), ([5, 3], None, "_kpm"), (None, "float", "_causal")):
                if suffix and act == "gelu":
                    continue
                name = f"encoder_layer_{act}_{'prenorm' if nf else 'postnorm'}{suffix}"
                g = gen(name)
                layer = randomize(nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, activation=act,
                                                             batch_first=True, norm_first=nf), g).train()
                src, kpm_t, mask_t, ins = enc_inputs(g, 2, 5, 16, kpm, cm)
                with torch.no_grad():
                    out = layer(src, src_mask=mask_t, src_key_padding_mask=kpm_t)
                params = enc_params(16, 4, 32, act, nf)
                params.update(mask_params(kpm_t, mask_t))
                r.add(G, name, "nn.TransformerEncoderLayer", params, ins, [("out", out)], state(layer))

    for nf, kpm, cm, act, suffix in ((False, None, None, "relu", ""), (True, None, None, "gelu", "_prenorm_gelu"),
                                     (False, [4, 2], "bool", "relu", "_masks")):
        name = f"encoder_2layer{suffix}"
        g = gen(name)
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=act, batch_first=True, norm_first=nf)
        enc = randomize(nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False), g).train()
        src, kpm_t, mask_t, ins = enc_inputs(g, 2, 4, 8, kpm, cm)
        with torch.no_grad():
            out = enc(src, mask=mask_t, src_key_padding_mask=kpm_t)
        params = enc_params(8, 2, 16, act, nf)
        params.update({"numLayers": 2, "finalNorm": False})
        params.update(mask_params(kpm_t, mask_t))
        r.add(G, name, "nn.TransformerEncoder", params, ins, [("out", out)], state(enc))

    # nn.LayerNorm
    for label, shape, eps, affine in (("affine", (2, 5, 16), 1e-5, True), ("no_affine", (3, 7), 1e-5, False),
                                      ("eps1em6", (4, 63), 1e-6, True)):
        name = f"layernorm_{label}"
        g = gen(name)
        ln = randomize(nn.LayerNorm(shape[-1], eps=eps, elementwise_affine=affine), g)
        x = randn(g, *shape, scale=2.0) + 0.5
        with torch.no_grad():
            out = ln(x)
        r.add(G, name, "nn.LayerNorm", {"normalizedShape": [shape[-1]], "eps": eps, "elementwiseAffine": affine},
              [("x", x)], [("out", out)], state(ln))

    # nn.Embedding
    for label, v, d, ishape in (("v20_d8", 20, 8, (2, 5)), ("v5_d3", 5, 3, (7,))):
        name = f"embedding_module_{label}"
        g = gen(name)
        emb = nn.Embedding(v, d)
        with torch.no_grad():
            emb.weight.copy_(randn(g, v, d))
        ids = torch.randint(0, v, ishape, generator=g)
        with torch.no_grad():
            out = emb(ids)
        r.add(G, name, "nn.Embedding", {"numEmbeddings": v, "embeddingDim": d},
              [("ids", ids.to(torch.float64))], [("out", out)], state(emb))

    # sinusoidal positional encoding
    for max_len, d in ((50, 16), (7, 6), (10, 5), (1, 2), (129, 64)):
        r.add(G, f"sinusoidal_pe_{max_len}x{d}", "SinusoidalPositionalEncoding", {"maxLen": max_len, "dModel": d},
              [], [("pe", sinusoidal_pe(max_len, d))])

    # Bahdanau additive attention
    for label, b, lq, lk, dq, dk, dv, hdim, vl in (("step", 2, 1, 6, 5, 7, 4, 8, None),
                                                   ("multi_query", 2, 3, 6, 5, 7, 4, 8, None),
                                                   ("valid_lengths", 3, 2, 5, 4, 4, 3, 6, [5, 2, 1])):
        name = f"bahdanau_{label}"
        g = gen(name)
        m = randomize(BahdanauAttention(dq, dk, hdim), g)
        query, keys, values = randn(g, b, lq, dq), randn(g, b, lk, dk), randn(g, b, lk, dv)
        with torch.no_grad():
            ctx, w = m(query, keys, values, vl)
        r.add(G, name, "BahdanauAttention",
              {"queryDim": dq, "keyDim": dk, "hiddenDim": hdim, "validLengths": vl},
              [("query", query), ("keys", keys), ("values", values)], [("context", ctx), ("weights", w)], state(m))

    # Raschka chapter 3 self-attention
    for cls, op in ((SelfAttentionV1, "SelfAttentionV1"), (SelfAttentionV2, "SelfAttentionV2")):
        for label, xs, d_in, d_out in (("6x3_2", (6,), 3, 2), ("b2_5x8_4", (2, 5), 8, 4)):
            name = f"{op.lower()}_{label}"
            g = gen(name)
            m = cls(d_in, d_out)
            with torch.no_grad():
                for p in m.parameters():
                    p.copy_(torch.rand(*p.shape, generator=g))
            x = torch.rand(*xs, d_in, generator=g)
            with torch.no_grad():
                ctx, w = m(x)
            r.add(G, name, op, {"dIn": d_in, "dOut": d_out}, [("x", x)], [("context", ctx), ("weights", w)],
                  state(m))

    # Bloem wide multi-head self-attention
    for label, b, t, k, h, causal in (("k8_h4", 2, 5, 8, 4, False), ("k6_h2_causal", 2, 7, 6, 2, True)):
        name = f"wide_mha_{label}"
        g = gen(name)
        m = randomize(WideSelfAttention(k, h, causal), g)
        x = randn(g, b, t, k)
        with torch.no_grad():
            out, w = m(x)
        r.add(G, name, "WideSelfAttention", {"k": k, "heads": h, "causal": causal},
              [("x", x)], [("out", out), ("weights", w)], state(m))

    # per-head separate weights + W_o
    for label, b, t, d_in, d_head, h, d_out, causal in (("h3", 2, 5, 8, 4, 3, 8, False),
                                                        ("h2_causal", 1, 6, 6, 3, 2, 5, True)):
        name = f"per_head_mha_{label}"
        g = gen(name)
        m = randomize(PerHeadMultiHeadAttention(d_in, d_head, h, d_out, causal), g)
        x = randn(g, b, t, d_in)
        with torch.no_grad():
            out, w = m(x)
        r.add(G, name, "PerHeadMultiHeadAttention",
              {"dIn": d_in, "dHead": d_head, "heads": h, "dOut": d_out, "causal": causal},
              [("x", x)], [("out", out), ("weights", w)], state(m))


# ---------------------------------------------------------------------------------------------

def generate(out_dir):
    r = Registry()
    ops_cases(r)
    decoder_ops_cases(r, gen, randn)
    fused_ops_cases(r, gen, randn)
    scaled_rope_cases(r, gen, randn)
    softcap_cases(r, gen, randn)
    attention_cases(r)
    packed_attention_cases(r, gen, randn, attention_ref, b01, key_padding_allowed)
    decoder_attention_cases(r, gen, randn)
    softcap_attention_cases(r, gen, randn)
    models_cases(r)
    decoder_model_cases(r, gen)
    rope_parameter_cases(r)
    os.makedirs(out_dir, exist_ok=True)
    meta_common = {"format": "pt", "generator": "attn4j tck/src/golden/generate_goldens.py",
                   "torch": torch.__version__, "dtype": "float64"}
    for group in GROUPS:
        meta = dict(meta_common, group=group)
        for c in r.cases:
            if c["group"] == group:
                c["file"] = f"{group}.safetensors"
        write_safetensors(os.path.join(out_dir, f"{group}.safetensors"), r.tensors[group], meta)
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(r.cases, f, indent=1, allow_nan=False)
        f.write("\n")
    return r


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


OUTPUT_FILES = [f"{g}.safetensors" for g in GROUPS] + ["manifest.json"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: %(default)s)")
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary directory and compare with --out byte for byte")
    args = ap.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            generate(tmp)
            ok = True
            for fn in OUTPUT_FILES:
                want = os.path.join(args.out, fn)
                have = digest(os.path.join(tmp, fn))
                old = digest(want) if os.path.exists(want) else "missing"
                same = have == old
                ok &= same
                print(f"{'OK  ' if same else 'DIFF'} {fn} {have}" + ("" if same else f" committed {old}"))
        print("goldens reproducible" if ok else "goldens differ from a fresh regeneration")
        return 0 if ok else 1
    r = generate(args.out)
    counts = {}
    for c in r.cases:
        counts[c["group"]] = counts.get(c["group"], 0) + 1
    for fn in OUTPUT_FILES:
        p = os.path.join(args.out, fn)
        print(f"{fn} {os.path.getsize(p)} bytes sha256 {digest(p)}")
    print("cases:", ", ".join(f"{g}={counts.get(g, 0)}" for g in GROUPS), "total", len(r.cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
