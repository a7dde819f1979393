#!/usr/bin/python3
"""Write some random-weight decoders of decoder_cases.py as Hugging Face folders for the cli's tests.

Each folder holds config.json, model.safetensors (F32, names sorted) and expected.json (the prompt and the greedy
continuation computed in float64 by the plain torch reference). Deterministic: the same torch gives the same bytes.
gpt2_tiny also gets a byte-level BPE tokenizer.json with exactly the model's vocabulary size (see tiny_bpe).

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
FOLDERS = ("gpt2_tiny", "llama_gqa_tiny", "gemma2_softcap_tiny", "phi3_longrope_tiny")


def byte_to_unicode():
    """GPT-2's map from each byte to the printable character that spells it in the vocabulary."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars = {b: chr(b) for b in printable}
    n = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + n)
            n += 1
    return chars


def tiny_bpe(vocab_size):
    """A byte-level BPE tokenizer.json of vocab_size ids: space, printable ASCII but four rare signs, the two bytes
    of 'é' (0xC3 0xA9, unmerged, so a token can end inside a UTF-8 sequence) and four merges."""
    spell = byte_to_unicode()
    base = [spell[b] for b in [0x20] + [c for c in range(0x21, 0x7F) if chr(c) not in "`~^|"] + [0xC3, 0xA9]]
    merges = [("h", "e"), ("l", "l"), (spell[0x20], "t"), (spell[0x20], "w")]
    tokens = base + [a + b for a, b in merges]
    if len(tokens) != vocab_size:
        raise SystemExit("tiny_bpe: %d tokens for a vocabulary of %d" % (len(tokens), vocab_size))
    return {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": {t: i for i, t in enumerate(tokens)}, "merges": [a + " " + b for a, b in merges]},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    for name, cfg in DECODERS:
        if name not in FOLDERS:
            continue
        state, prompt, _, generated, _, _ = decoder(name, cfg, gen)
        folder = os.path.join(args.out, name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "config.json"), "w", encoding="utf-8", newline="\n") as f:
            json.dump(cfg, f, indent=1, sort_keys=True)
            f.write("\n")
        write_safetensors(os.path.join(folder, "model.safetensors"), state, None, "F32")
        with open(os.path.join(folder, "expected.json"), "w", encoding="utf-8", newline="\n") as f:
            json.dump({"prompt": prompt, "greedy": generated}, f)
            f.write("\n")
        if name == "gpt2_tiny":
            with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8", newline="\n") as f:
                json.dump(tiny_bpe(cfg["vocab_size"]), f, indent=1, ensure_ascii=False)
                f.write("\n")
        print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
