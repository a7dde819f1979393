#!/usr/bin/python3
"""Write the random-weight decoders of decoder_cases.py as Hugging Face folders for the cli's tests.

Each folder holds config.json, model.safetensors (F32, names sorted) and expected.json (the prompt and the greedy
continuation computed in float64 by the plain torch reference). Deterministic: the same torch gives the same bytes.

Usage: /usr/bin/python3 generate_decoder_folders.py [--out DIR]
"""

import argparse
import json
import os
import sys

import torch

from decoder_cases import DECODERS, decoder
from generate_goldens import gen, write_safetensors

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "cli", "src", "test", "resources", "org",
                                            "attn4j", "cli", "decoders"))
FOLDERS = ("gpt2_tiny", "llama_gqa_tiny")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    for name, cfg in DECODERS:
        if name not in FOLDERS:
            continue
        state, prompt, _, generated = decoder(name, cfg, gen)
        folder = os.path.join(args.out, name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "config.json"), "w", encoding="utf-8", newline="\n") as f:
            json.dump(cfg, f, indent=1, sort_keys=True)
            f.write("\n")
        write_safetensors(os.path.join(folder, "model.safetensors"), state, None, "F32")
        with open(os.path.join(folder, "expected.json"), "w", encoding="utf-8", newline="\n") as f:
            json.dump({"prompt": prompt, "greedy": generated}, f)
            f.write("\n")
        print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
