#!/usr/bin/python3
"""Write small Hugging Face BERT folders with random weights, and PyTorch float64 reference outputs for them.

Folders under models/src/test/resources/org/attn4j/models/bert/:
    tiny/          config.json, model.safetensors (F32, Hugging Face names, no prefix, with pooler), tokenizer.json
                   (WordPiece over a 40-token vocabulary),
                   modules.json and 1_Pooling/config.json (sentence-transformers: CLS pooling, then Normalize)
    tiny-sharded/  the same weights under the `bert.` prefix in two shards + model.safetensors.index.json,
                   plus a `cls.` head that a BertModel ignores
    tiny-f16/      the weights rounded to F16 (no pooler), tiny-bf16/ rounded to BF16
and reference.safetensors holding, for each folder's weights, the inputs and the float64 outputs of the reference
forward below (Hugging Face's BertModel semantics, written out so that it needs torch only):
    <folder>.last_hidden_state [B, L, d], <folder>.pooler_output [B, d] and tiny.attentions.1 [B, H, L, L] (tiny
    only), input_ids, token_type_ids,
    attention_mask [B, L] (as float64).

Usage:
    /usr/bin/python3 models/src/test/python/generate_bert_fixture.py          write the files
    /usr/bin/python3 models/src/test/python/generate_bert_fixture.py --check  regenerate in a temporary folder and
                                                                               compare byte for byte
"""

import argparse
import filecmp
import json
import math
import os
import struct
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "resources", "org", "attn4j", "models", "bert"))

CONFIG = {"model_type": "bert", "architectures": ["BertModel"], "vocab_size": 40, "hidden_size": 16,
          "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 24, "hidden_act": "gelu",
          "layer_norm_eps": 1e-12, "max_position_embeddings": 12, "type_vocab_size": 2}

INPUT_IDS = [[2, 11, 17, 5, 29, 33, 3], [2, 7, 39, 3, 0, 0, 0], [2, 3, 0, 0, 0, 0, 0]]
TOKEN_TYPES = [[0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0]]
MASK = [[1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0]]

DTYPES = {torch.float16: "F16", torch.bfloat16: "BF16", torch.float32: "F32", torch.float64: "F64"}


def weights(generator):
    c = CONFIG
    d, ff = c["hidden_size"], c["intermediate_size"]

    def rand(*shape, scale=0.5):
        return (torch.randn(*shape, generator=generator, dtype=torch.float64) * scale)

    sd = {
        "embeddings.word_embeddings.weight": rand(c["vocab_size"], d),
        "embeddings.position_embeddings.weight": rand(c["max_position_embeddings"], d),
        "embeddings.token_type_embeddings.weight": rand(c["type_vocab_size"], d),
        "embeddings.LayerNorm.weight": 1 + rand(d, scale=0.1),
        "embeddings.LayerNorm.bias": rand(d, scale=0.1),
    }
    for i in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % i
        for name in ("query", "key", "value"):
            sd[p + "attention.self." + name + ".weight"] = rand(d, d, scale=d ** -0.5)
            sd[p + "attention.self." + name + ".bias"] = rand(d, scale=0.1)
        sd[p + "attention.output.dense.weight"] = rand(d, d, scale=d ** -0.5)
        sd[p + "attention.output.dense.bias"] = rand(d, scale=0.1)
        sd[p + "attention.output.LayerNorm.weight"] = 1 + rand(d, scale=0.1)
        sd[p + "attention.output.LayerNorm.bias"] = rand(d, scale=0.1)
        sd[p + "intermediate.dense.weight"] = rand(ff, d, scale=d ** -0.5)
        sd[p + "intermediate.dense.bias"] = rand(ff, scale=0.1)
        sd[p + "output.dense.weight"] = rand(d, ff, scale=ff ** -0.5)
        sd[p + "output.dense.bias"] = rand(d, scale=0.1)
        sd[p + "output.LayerNorm.weight"] = 1 + rand(d, scale=0.1)
        sd[p + "output.LayerNorm.bias"] = rand(d, scale=0.1)
    sd["pooler.dense.weight"] = rand(d, d, scale=d ** -0.5)
    sd["pooler.dense.bias"] = rand(d, scale=0.1)
    return sd


def forward(sd, ids, types, mask, c=CONFIG):
    """Hugging Face BertModel in the parameters' dtype (float64 for the goldens): returns (last_hidden_state,
    pooler_output or None, attentions); ids, types and mask are lists or tensors [B, L]."""
    eps, heads = c["layer_norm_eps"], c["num_attention_heads"]
    ids, types = torch.as_tensor(ids), torch.as_tensor(types)
    keep = torch.as_tensor(mask).bool()
    b, length = ids.shape
    d = c["hidden_size"]

    def ln(x, name):
        return torch.nn.functional.layer_norm(x, (d,), sd[name + ".weight"], sd[name + ".bias"], eps)

    def lin(x, name):
        return x @ sd[name + ".weight"].T + sd[name + ".bias"]

    x = (sd["embeddings.word_embeddings.weight"][ids] + sd["embeddings.token_type_embeddings.weight"][types]
         + sd["embeddings.position_embeddings.weight"][torch.arange(length)])
    x = ln(x, "embeddings.LayerNorm")
    attentions = []
    for i in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % i

        def split(t):
            return t.view(b, length, heads, d // heads).transpose(1, 2)

        q = split(lin(x, p + "attention.self.query"))
        k = split(lin(x, p + "attention.self.key"))
        v = split(lin(x, p + "attention.self.value"))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // heads)
        scores = scores.masked_fill(~keep[:, None, None, :], float("-inf"))
        probs = torch.softmax(scores, -1)
        attentions.append(probs)
        context = (probs @ v).transpose(1, 2).reshape(b, length, d)
        a = ln(x + lin(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        h = torch.nn.functional.gelu(lin(a, p + "intermediate.dense"))
        x = ln(a + lin(h, p + "output.dense"), p + "output.LayerNorm")
    pooled = torch.tanh(lin(x[:, 0], "pooler.dense")) if "pooler.dense.weight" in sd else None
    return x, pooled, attentions


def tensor_bytes(t):
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().tobytes()
    return t.contiguous().numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = tensor_bytes(t)
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text.encode("utf-8"))
        for blob in blobs:
            f.write(blob)


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f, indent=2, sort_keys=True)
        f.write("\n")


VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "cat", "dog", "sat", "on", "mat", "is", "run",
         "fast", ".", ",", "!", "?", "##s", "##ning", "hello", "world", "red", "blue", "big", "small", "bird", "fly",
         "##ing", "and", "not", "very", "house", "tree", "sun", "moon", "sky", "water", "fish"]


def tokenizer_json():
    """A WordPiece tokenizer.json in the layout of Hugging Face's BertTokenizerFast, over VOCAB."""
    special = [{"id": VOCAB.index(t), "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                "normalized": False, "special": True} for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")]

    def template(pair):
        items = [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": "[SEP]", "type_id": 0}}]
        if pair:
            items += [{"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}]
        return items

    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
            "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                           "strip_accents": None, "lowercase": True},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "TemplateProcessing", "single": template(False), "pair": template(True),
                               "special_tokens": {t: {"id": t, "ids": [VOCAB.index(t)], "tokens": [t]}
                                                  for t in ("[CLS]", "[SEP]")}},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(VOCAB)}}}


def generate(out):
    generator = torch.Generator().manual_seed(20261122)
    full = weights(generator)
    reference = {"input_ids": torch.tensor(INPUT_IDS, dtype=torch.float64),
                 "token_type_ids": torch.tensor(TOKEN_TYPES, dtype=torch.float64),
                 "attention_mask": torch.tensor(MASK, dtype=torch.float64)}

    f32 = {k: v.to(torch.float32) for k, v in full.items()}
    os.makedirs(os.path.join(out, "tiny"), exist_ok=True)
    write_json(os.path.join(out, "tiny", "config.json"), CONFIG)
    write_safetensors(os.path.join(out, "tiny", "model.safetensors"), f32)
    write_json(os.path.join(out, "tiny", "tokenizer.json"), tokenizer_json())
    write_json(os.path.join(out, "tiny", "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])
    write_json(os.path.join(out, "tiny", "1_Pooling", "config.json"), {
        "word_embedding_dimension": CONFIG["hidden_size"], "pooling_mode_cls_token": True,
        "pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False})
    hidden, pooled, attentions = forward({k: v.to(torch.float64) for k, v in f32.items()}, INPUT_IDS, TOKEN_TYPES,
                                         MASK)
    reference["tiny.last_hidden_state"] = hidden
    reference["tiny.pooler_output"] = pooled
    reference["tiny.attentions.1"] = attentions[1]

    sharded = os.path.join(out, "tiny-sharded")
    os.makedirs(sharded, exist_ok=True)
    write_json(os.path.join(sharded, "config.json"), CONFIG)
    names = list(f32)
    shards = {"model-00001-of-00002.safetensors": names[:len(names) // 2],
              "model-00002-of-00002.safetensors": names[len(names) // 2:]}
    weight_map = {}
    for i, (file, part) in enumerate(shards.items()):
        tensors = {"bert." + n: f32[n] for n in part}
        if i == 1:
            tensors["cls.predictions.bias"] = torch.zeros(CONFIG["vocab_size"], dtype=torch.float32)
        write_safetensors(os.path.join(sharded, file), tensors)
        weight_map.update({n: file for n in tensors})
    write_json(os.path.join(sharded, "model.safetensors.index.json"),
               {"metadata": {"total_size": sum(t.numel() * 4 for t in f32.values())}, "weight_map": weight_map})

    for dtype, folder in ((torch.float16, "tiny-f16"), (torch.bfloat16, "tiny-bf16")):
        low = {k: v.to(dtype) for k, v in full.items() if not k.startswith("pooler.")}
        os.makedirs(os.path.join(out, folder), exist_ok=True)
        write_json(os.path.join(out, folder, "config.json"), CONFIG)
        write_safetensors(os.path.join(out, folder, "model.safetensors"), low)
        hidden, _, _ = forward({k: v.to(torch.float64) for k, v in low.items()}, INPUT_IDS, TOKEN_TYPES, MASK)
        reference[folder + ".last_hidden_state"] = hidden

    write_safetensors(os.path.join(out, "reference.safetensors"), reference)


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
        cmp = filecmp.dircmp(tmp, OUT)
        stack, bad = [cmp], []
        while stack:
            c = stack.pop()
            bad += c.left_only + c.right_only + c.diff_files
            stack += c.subdirs.values()
        if bad:
            sys.exit("differs: %s" % bad)
        print("identical")


if __name__ == "__main__":
    main()
