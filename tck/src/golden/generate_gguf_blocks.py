"""Golden GGUF blocks of every quantized weight type attn4j reads, dequantized by gguf-py.

Writes ../main/resources/org/attn4j/tck/golden/gguf_blocks.json: for each type, a weight of ROWS x COLUMNS as
GGUF block bytes and the float32 values gguf-py's `gguf.quants.dequantize` reads from them (numpy code written to
match ggml's `dequantize_row_*` bit for bit). The block bytes are random, except the binary16 scales, which are
random finite numbers of varied sign and size, one of them subnormal and one of them -0.0 per weight.

    python3 -m venv /tmp/ggufvenv && /tmp/ggufvenv/bin/pip install gguf numpy
    /tmp/ggufvenv/bin/python tck/src/golden/generate_gguf_blocks.py            # writes the file
    /tmp/ggufvenv/bin/python tck/src/golden/generate_gguf_blocks.py --check    # exit 1 unless it is unchanged
"""
import base64
import importlib.metadata
import json
import pathlib
import sys
import zlib

import gguf
import numpy as np
from gguf.quants import dequantize

ROWS = 2
COLUMNS = 256

# type: (block size, block bytes, byte offsets of its binary16 scales within a block)
TYPES = {
    "Q8_0": (32, 34, (0,)),
    "Q4_0": (32, 18, (0,)),
    "Q4_1": (32, 20, (0, 2)),
    "Q5_0": (32, 22, (0,)),
    "Q5_1": (32, 24, (0, 2)),
    "Q2_K": (256, 84, (80, 82)),
    "Q3_K": (256, 110, (108,)),
    "Q4_K": (256, 144, (0, 2)),
    "Q5_K": (256, 176, (0, 2)),
    "Q6_K": (256, 210, (208,)),
    "IQ4_NL": (32, 18, (0,)),
    "IQ4_XS": (256, 136, (0,)),
}

OUT = pathlib.Path(__file__).resolve().parent.parent / "main/resources/org/attn4j/tck/golden/gguf_blocks.json"


def case(name):
    block_size, block_bytes, fields = TYPES[name]
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    blocks = ROWS * COLUMNS // block_size
    data = rng.randint(0, 256, size=(blocks, block_bytes)).astype(np.uint8)
    halves = (rng.choice([-1.0, 1.0], size=(blocks, len(fields)))
              * np.exp2(rng.uniform(-14.0, -2.0, size=(blocks, len(fields))))).astype(np.float16)
    halves[0, 0] = np.float16(-0.0)
    halves[blocks - 1, 0] = np.float16(3e-6)
    assert np.all(np.isfinite(halves))
    for k, at in enumerate(fields):
        data[:, at:at + 2] = halves[:, k].reshape(-1, 1).view(np.uint8)
    qtype = gguf.GGMLQuantizationType[name]
    values = dequantize(data.reshape(ROWS, -1), qtype).astype(np.float32)
    assert values.shape == (ROWS, COLUMNS), values.shape
    assert np.all(np.isfinite(values))
    return {
        "type": name,
        "rows": ROWS,
        "columns": COLUMNS,
        "blocks": base64.b64encode(data.tobytes()).decode(),
        "values": base64.b64encode(values.astype("<f4").tobytes()).decode(),
    }


def main():
    doc = {
        "generator": "tck/src/golden/generate_gguf_blocks.py",
        "gguf": importlib.metadata.version("gguf"),
        "numpy": np.__version__,
        "cases": [case(name) for name in TYPES],
    }
    text = json.dumps(doc, indent=1) + "\n"
    if "--check" in sys.argv:
        same = OUT.read_text() == text
        print("unchanged" if same else f"{OUT} differs from a fresh run")
        sys.exit(0 if same else 1)
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(text)} bytes)")


if __name__ == "__main__":
    main()
