"""Golden cases of the decoder ops (rmsNorm, silu, rope, writeSlice), imported by generate_goldens.py.

Reference semantics (attn4j javadoc of Ops):
    rmsNorm(x, w, eps) = x / sqrt(mean(x^2, -1) + eps) * w
    silu(x)            = x * sigmoid(x)
    rope(x, layout, base, offset): row p of [..., L, d] at position offset + p; pair i < d/2 turns by
        (offset + p) * base^(-2i/d); HALF_SPLIT pairs (x[i], x[i + d/2]) (GPT-NeoX, Llama rotate_half),
        INTERLEAVED pairs (x[2i], x[2i + 1]) (GPT-J rotate_every_two)
    writeSlice(target, source, axis, offset): target with target[..., offset:offset+n, ...] = source
"""

import torch
import torch.nn.functional as F


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
