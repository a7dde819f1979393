#!/usr/bin/python3
"""Write the fixtures of the encoder loading route and of the cross-encoder, with PyTorch float64 references.

Folders under models/src/test/resources/org/attn4j/models/embed/:
    cross-encoder/   a BertForSequenceClassification in the shape of cross-encoder/ms-marco-MiniLM-L-6-v2 (6 layers
                     of width 384, 12 heads, feed-forward 1536, 512 positions, one label) over a 64-token vocabulary:
                     config.json, vocab.txt and expected.json (query, passages, ids, type ids and float64 logits).
                     Its 11 million weights are not stored: they are a pure function of each parameter's name (below,
                     `weights`), which the Java test computes bit for bit the same (CheckpointWeights.java) and
                     writes as model.safetensors at test time.
    tiny-onnx/       a 2-layer BERT encoder of width 16 with 4 heads, exported by torch.onnx.export (opset 14) as
                     model.onnx, with vocab.txt and expected.json (texts, ids, the float64 mean-pooled normalised
                     embeddings and the configuration the graph states).
    tiny-onnx-classifier/  the same encoder under `bert.` with a one-label classifier, exported the same way, with
                     vocab.txt and expected.json (query, passages, float64 logits).

The reference forward is Hugging Face's BertModel / BertForSequenceClassification written out in torch (no
transformers library): post-norm layers, exact GELU, key padding as -inf before the softmax, pooler tanh(dense(h0)).

Usage:
    /usr/bin/python3 models/src/test/python/generate_encoder_fixtures.py          write the files
    /usr/bin/python3 models/src/test/python/generate_encoder_fixtures.py --check  regenerate in a temporary folder and
                                                                                   compare byte for byte
"""

import argparse
import filecmp
import json
import math
import os
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "resources", "org", "attn4j", "models", "embed"))

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "of", "to", "and", "in", "is", "what", "how",
         "why", "do", "does", "plants", "plant", "eat", "sun", "light", "water", "energy", "from", "make", "food",
         "cats", "dogs", "sleep", "all", "day", "stock", "markets", "fell", "on", "monday", "paris", "capital",
         "france", "city", "river", "photo", "##synthesis", "##s", "##ing", "green", "leaves", "use", "sugar", "air",
         "cat", "sat", "mat", "rain", "cloud", "?", ".", ",", "!", "long", "short", "text", "word"]

CROSS = {"model_type": "bert", "architectures": ["BertForSequenceClassification"], "vocab_size": len(VOCAB),
         "hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12, "intermediate_size": 1536,
         "hidden_act": "gelu", "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "type_vocab_size": 2,
         "id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0},
         "sentence_transformers": {"activation_fn": "torch.nn.modules.linear.Identity"}}

TINY = {"model_type": "bert", "vocab_size": len(VOCAB), "hidden_size": 16, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 24, "hidden_act": "gelu", "layer_norm_eps": 1e-12,
        "max_position_embeddings": 40, "type_vocab_size": 2}

QUERY = "how do plants make food from sun light?"
PASSAGES = ["green plants use sun light and water to make sugar.", "cats sleep all day.",
            "photosynthesis is how a plant makes food from light energy and air.",
            "stock markets fell on monday.", "paris is the capital of france.", "rain"]

TEXTS = ["the cat sat on the mat.", "plants eat sun light", "why does it rain?",
         "photosynthesis: green leaves make sugar from water and air, all day long!", "a"]

# ---------------------------------------------------------------------------------------------------------------
# Weights as a pure function of the parameter's name: splitmix64 over the element index, seeded by FNV-1a of the
# name. CheckpointWeights.java is the same function.

MASK64 = (1 << 64) - 1


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & MASK64
    return h


def uniform(name, count):
    """u_i in [0, 1): (mix(seed + (i+1)·0x9E3779B97F4A7C15) >> 11) · 2^-53, as float64."""
    with np.errstate(over="ignore"):
        z = np.uint64(fnv1a64(name)) + (np.arange(1, count + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * (2.0 ** -53)


def tensor(name, shape, kind):
    """kind: ('linear', fan_in): U(-sqrt(3/fan_in), ..); 'embedding': U(-1, 1); 'norm': 1 + U(-0.1, 0.1);
    'bias': U(-0.1, 0.1). Rounded to float32, returned as float64."""
    n = int(np.prod(shape))
    u = 2.0 * uniform(name, n) - 1.0
    if kind == "embedding":
        v = u
    elif kind == "norm":
        v = 1.0 + 0.1 * u
    elif kind == "bias":
        v = 0.1 * u
    else:
        v = math.sqrt(3.0 / kind[1]) * u
    return torch.from_numpy(v.astype(np.float32).astype(np.float64).reshape(shape))


def weights(c, prefix, classifier):
    d, ff = c["hidden_size"], c["intermediate_size"]
    sd = {}

    def put(name, shape, kind):
        sd[prefix + name] = tensor(prefix + name, shape, kind)

    put("embeddings.word_embeddings.weight", (c["vocab_size"], d), "embedding")
    put("embeddings.position_embeddings.weight", (c["max_position_embeddings"], d), "embedding")
    put("embeddings.token_type_embeddings.weight", (c["type_vocab_size"], d), "embedding")
    put("embeddings.LayerNorm.weight", (d,), "norm")
    put("embeddings.LayerNorm.bias", (d,), "bias")
    for i in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % i
        for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            put(p + name + ".weight", (d, d), ("linear", d))
            put(p + name + ".bias", (d,), "bias")
        put(p + "attention.output.LayerNorm.weight", (d,), "norm")
        put(p + "attention.output.LayerNorm.bias", (d,), "bias")
        put(p + "intermediate.dense.weight", (ff, d), ("linear", d))
        put(p + "intermediate.dense.bias", (ff,), "bias")
        put(p + "output.dense.weight", (d, ff), ("linear", ff))
        put(p + "output.dense.bias", (d,), "bias")
        put(p + "output.LayerNorm.weight", (d,), "norm")
        put(p + "output.LayerNorm.bias", (d,), "bias")
    put("pooler.dense.weight", (d, d), ("linear", d))
    put("pooler.dense.bias", (d,), "bias")
    if classifier:
        sd["classifier.weight"] = tensor("classifier.weight", (1, d), ("linear", d))
        sd["classifier.bias"] = tensor("classifier.bias", (1,), "bias")
    return sd


# ---------------------------------------------------------------------------------------------------------------
# WordPiece over VOCAB, as BERT's basic tokenizer and greedy longest-match-first do for these ASCII texts.

def wordpiece(text):
    words = []
    for raw in text.lower().split():
        current = ""
        for ch in raw:
            if ch.isalnum():
                current += ch
            else:
                if current:
                    words.append(current)
                words.append(ch)
                current = ""
        if current:
            words.append(current)
    ids = []
    for w in words:
        start, pieces = 0, []
        while start < len(w):
            end, found = len(w), None
            while start < end:
                piece = ("##" if start > 0 else "") + w[start:end]
                if piece in VOCAB:
                    found = piece
                    break
                end -= 1
            if found is None:
                pieces = ["[UNK]"]
                break
            pieces.append(found)
            start = end
        ids += [VOCAB.index(p) for p in pieces]
    return ids


def pair(query, passage, max_length):
    a, b = wordpiece(query), wordpiece(passage)
    assert len(a) + len(b) + 3 <= max_length, "the fixture's pairs fit without truncation"
    ids = [2] + a + [3] + b + [3]
    types = [0] * (len(a) + 2) + [1] * (len(b) + 1)
    return ids, types


# ---------------------------------------------------------------------------------------------------------------
# The reference forward, Hugging Face's BertModel in float64.

def encoder(sd, c, prefix, ids, types, mask):
    eps, heads, d = c["layer_norm_eps"], c["num_attention_heads"], c["hidden_size"]
    ids, types = torch.tensor(ids), torch.tensor(types)
    keep = torch.tensor(mask, dtype=torch.bool)
    b, length = ids.shape

    def ln(x, name):
        return torch.nn.functional.layer_norm(x, (d,), sd[prefix + name + ".weight"], sd[prefix + name + ".bias"],
                                              eps)

    def lin(x, name):
        return x @ sd[prefix + name + ".weight"].T + sd[prefix + name + ".bias"]

    x = (sd[prefix + "embeddings.word_embeddings.weight"][ids]
         + sd[prefix + "embeddings.token_type_embeddings.weight"][types]
         + sd[prefix + "embeddings.position_embeddings.weight"][torch.arange(length)])
    x = ln(x, "embeddings.LayerNorm")
    for i in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % i

        def split(t):
            return t.view(b, length, heads, d // heads).transpose(1, 2)

        q, k, v = (split(lin(x, p + "attention.self." + n)) for n in ("query", "key", "value"))
        scores = (q @ k.transpose(-1, -2) / math.sqrt(d // heads)).masked_fill(~keep[:, None, None, :],
                                                                                float("-inf"))
        context = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, length, d)
        a = ln(x + lin(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        h = torch.nn.functional.gelu(lin(a, p + "intermediate.dense"))
        x = ln(a + lin(h, p + "output.dense"), p + "output.LayerNorm")
    return x


def logits(sd, c, pairs):
    length = max(len(i) for i, _ in pairs)
    ids = [i + [0] * (length - len(i)) for i, _ in pairs]
    types = [t + [0] * (length - len(t)) for _, t in pairs]
    mask = [[1] * len(i) + [0] * (length - len(i)) for i, _ in pairs]
    h = encoder(sd, c, "bert.", ids, types, mask)
    pooled = torch.tanh(h[:, 0] @ sd["bert.pooler.dense.weight"].T + sd["bert.pooler.dense.bias"])
    return (pooled @ sd["classifier.weight"].T + sd["classifier.bias"])[:, 0]


def mean_pooled(sd, c, texts):
    seqs = [[2] + wordpiece(t) + [3] for t in texts]
    length = max(len(s) for s in seqs)
    ids = [s + [0] * (length - len(s)) for s in seqs]
    mask = [[1] * len(s) + [0] * (length - len(s)) for s in seqs]
    h = encoder(sd, c, "", ids, [[0] * length for _ in seqs], mask)
    m = torch.tensor(mask, dtype=torch.float64)[:, :, None]
    v = (h * m).sum(1) / m.sum(1)
    return seqs, v / v.norm(dim=1, keepdim=True)


# ---------------------------------------------------------------------------------------------------------------
# The same model as torch modules named as in transformers, for torch.onnx.export: the node names
# (/encoder/layer.0/attention/self/Reshape, …) and the constants of the graph are those of a Hugging Face export.

class SelfAttention(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["hidden_size"]
        self.heads, self.head_size = c["num_attention_heads"], d // c["num_attention_heads"]
        self.query, self.key, self.value = (torch.nn.Linear(d, d) for _ in range(3))

    def split(self, x):
        return x.view(x.size()[:-1] + (self.heads, self.head_size)).permute(0, 2, 1, 3)

    def forward(self, x, additive):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_size) + additive
        context = torch.matmul(torch.softmax(scores, -1), v).permute(0, 2, 1, 3).contiguous()
        return context.view(context.size()[:-2] + (self.heads * self.head_size,))


class DenseNorm(torch.nn.Module):
    def __init__(self, d_in, d, eps):
        super().__init__()
        self.dense, self.LayerNorm = torch.nn.Linear(d_in, d), torch.nn.LayerNorm(d, eps=eps)

    def forward(self, x, residual):
        return self.LayerNorm(self.dense(x) + residual)


class Attention(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = SelfAttention(c)
        self.output = DenseNorm(c["hidden_size"], c["hidden_size"], c["layer_norm_eps"])

    def forward(self, x, additive):
        return self.output(self.self(x, additive), x)


class Intermediate(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = torch.nn.Linear(c["hidden_size"], c["intermediate_size"])

    def forward(self, x):
        return torch.nn.functional.gelu(self.dense(x))


class Layer(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = Attention(c)
        self.intermediate = Intermediate(c)
        self.output = DenseNorm(c["intermediate_size"], c["hidden_size"], c["layer_norm_eps"])

    def forward(self, x, additive):
        a = self.attention(x, additive)
        return self.output(self.intermediate(a), a)


class Encoder(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = torch.nn.ModuleList(Layer(c) for _ in range(c["num_hidden_layers"]))

    def forward(self, x, additive):
        for layer in self.layer:
            x = layer(x, additive)
        return x


class Embeddings(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["hidden_size"]
        self.word_embeddings = torch.nn.Embedding(c["vocab_size"], d)
        self.position_embeddings = torch.nn.Embedding(c["max_position_embeddings"], d)
        self.token_type_embeddings = torch.nn.Embedding(c["type_vocab_size"], d)
        self.LayerNorm = torch.nn.LayerNorm(d, eps=c["layer_norm_eps"])

    def forward(self, ids, types):
        positions = torch.arange(ids.size(1)).unsqueeze(0)
        return self.LayerNorm(self.word_embeddings(ids) + self.token_type_embeddings(types)
                              + self.position_embeddings(positions))


class Pooler(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = torch.nn.Linear(c["hidden_size"], c["hidden_size"])

    def forward(self, h):
        return torch.tanh(self.dense(h[:, 0]))


class BertModel(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings, self.encoder, self.pooler = Embeddings(c), Encoder(c), Pooler(c)

    def forward(self, input_ids, attention_mask, token_type_ids):
        additive = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
        return self.encoder(self.embeddings(input_ids, token_type_ids), additive)


class Classifier(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bert, self.classifier = BertModel(c), torch.nn.Linear(c["hidden_size"], 1)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.classifier(self.bert.pooler(self.bert(input_ids, attention_mask, token_type_ids)))


def export(module, sd, path):
    module.load_state_dict({k: v.to(torch.float32) for k, v in sd.items()}, strict=True)
    module.eval()
    ids = torch.tensor([[2, 5, 6, 3]])
    torch.onnx.export(module, (ids, torch.ones_like(ids), torch.zeros_like(ids)), path,
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["output"],
                      dynamic_axes={n: {0: "batch", 1: "sequence"} for n in
                                    ("input_ids", "attention_mask", "token_type_ids")},
                      opset_version=14, do_constant_folding=True)


# ---------------------------------------------------------------------------------------------------------------

def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f, indent=2, sort_keys=True)
        f.write("\n")


def write_vocab(folder):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "vocab.txt"), "w") as f:
        f.write("".join(t + "\n" for t in VOCAB))


def generate(out):
    torch.manual_seed(0)
    cross = os.path.join(out, "cross-encoder")
    write_json(os.path.join(cross, "config.json"), CROSS)
    write_vocab(cross)
    sd = weights(CROSS, "bert.", True)
    pairs = [pair(QUERY, p, CROSS["max_position_embeddings"]) for p in PASSAGES]
    scores = logits(sd, CROSS, pairs)
    write_json(os.path.join(cross, "expected.json"), {
        "query": QUERY, "passages": PASSAGES, "ids": [i for i, _ in pairs], "type_ids": [t for _, t in pairs],
        "logits": [float(x) for x in scores]})

    tiny = os.path.join(out, "tiny-onnx")
    write_vocab(tiny)
    sd = weights(TINY, "", False)
    export(BertModel(TINY), sd, os.path.join(tiny, "model.onnx"))
    seqs, vectors = mean_pooled(sd, TINY, TEXTS)
    write_json(os.path.join(tiny, "expected.json"), {
        "config": TINY, "texts": TEXTS, "ids": seqs, "mean_pooled_normalized": vectors.tolist()})

    tiny_cls = os.path.join(out, "tiny-onnx-classifier")
    write_vocab(tiny_cls)
    sd = {"bert." + k: v for k, v in weights(TINY, "", False).items()}
    sd["classifier.weight"] = tensor("classifier.weight", (1, TINY["hidden_size"]), ("linear", TINY["hidden_size"]))
    sd["classifier.bias"] = tensor("classifier.bias", (1,), "bias")
    export(Classifier(TINY), sd, os.path.join(tiny_cls, "model.onnx"))
    pairs = [pair(QUERY, p, TINY["max_position_embeddings"]) for p in PASSAGES]
    write_json(os.path.join(tiny_cls, "expected.json"), {
        "query": QUERY, "passages": PASSAGES, "logits": [float(x) for x in logits(sd, TINY, pairs)]})


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="regenerate elsewhere and compare with the committed files")
    args = parser.parse_args()
    if not args.check:
        generate(OUT)
        return
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        differ = []
        for root, _, files in os.walk(tmp):
            for name in files:
                made = os.path.join(root, name)
                kept = os.path.join(OUT, os.path.relpath(made, tmp))
                if not os.path.exists(kept) or not filecmp.cmp(made, kept, shallow=False):
                    differ.append(os.path.relpath(made, tmp))
        if differ:
            print("differ from the committed fixtures: " + ", ".join(sorted(differ)))
            sys.exit(1)
        print("the committed fixtures are reproduced byte for byte")


if __name__ == "__main__":
    main()
