#!/usr/bin/python3
"""Write small checkpoints of the encoder families beside BERT, with PyTorch float64 reference outputs.

Folders under models/src/test/resources/org/attn4j/models/bert/ (random weights in each family's real key names and
config.json keys, stored as F32; every value is rounded to F32 before the reference runs, so the float64 reference sees the same weights):
    xlmr/           an XLMRobertaModel (model_type xlm-roberta, type_vocab_size 1, pad_token_id 1, 2 layers of width
                    16, 4 heads, the 3002 ids of tokenize/unigram/xlmr-template/tokenizer.json) laid out as a
                    sentence-transformers folder: modules.json, 1_Pooling/config.json (CLS, as bge-m3), 2_Normalize
    xlmr-reranker/  an XLMRobertaForSequenceClassification (roberta.* and classifier.dense/out_proj, one label), as
                    BAAI/bge-reranker-v2-m3 is laid out
    mpnet/          an MPNetModel (model_type mpnet, relative_attention_num_buckets 32, 2 layers of width 16, 4 heads,
                    the same 3002 ids) laid out as all-mpnet-base-v2's folder: mean pooling, Normalize
    xlmr-st/        the sentence-transformers modules of a multilingual-e5-style folder, for xlmr/'s encoder (the test
                    puts both in one folder): modules.json (Transformer, Pooling, Dense, Normalize), 1_Pooling
                    (mean, include_prompt false), 2_Dense (16 -> 8, Tanh, model.safetensors) and
                    config_sentence_transformers.json (prompts query and passage, default_prompt_name query)
and families.safetensors + families.json holding, per folder, the inputs (the ids that Hugging Face's tokenizers
library gives for the texts with xlmr-template's tokenizer.json, padded with pad_token_id) and the float64 outputs of
the reference forwards below, written from transformers' modeling_xlm_roberta.py and modeling_mpnet.py in plain torch:
    xlmr.last_hidden_state [B, L, d], xlmr.pooler_output [B, d], xlmr.attentions.1 [B, H, L, L],
    xlmr.embeddings [B, d] (CLS, normalised), xlmr-reranker.logits [B, 1], and for xlmr-st, as
    sentence-transformers' encode computes them: xlmr-st.query [B, 8] (the default prompt), xlmr-st.passage [B, 8]
    (prompt_name passage), xlmr-st.query.4 [B, 4] (truncate_dim 4, normalised again), xlmr-st.weighted [B, 8] and
    xlmr-st.last [B, 8] (the query prompt with weighted-mean and last-token pooling); mpnet.last_hidden_state,
    mpnet.pooler_output, mpnet.attentions.1, mpnet.embeddings (mean, normalised) and mpnet.buckets (the bucket of each
    relative position -600 .. 600, from transformers' relative_position_bucket).

Usage:
    /tmp/venv/bin/python models/src/test/python/generate_encoder_families.py          write the files
    /tmp/venv/bin/python models/src/test/python/generate_encoder_families.py --check  regenerate in a temporary
                                                                                      folder and compare bytes
(torch from Debian's python3-torch, the tokenizers package in a virtual environment made with
--system-site-packages; the build itself never runs Python).
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
RESOURCES = os.path.normpath(os.path.join(HERE, "..", "resources", "org", "attn4j", "models"))
OUT = os.path.join(RESOURCES, "bert")
TOKENIZER = os.path.join(RESOURCES, "tokenize", "unigram", "xlmr-template", "tokenizer.json")

XLMR = {"model_type": "xlm-roberta", "architectures": ["XLMRobertaModel"], "vocab_size": 3002, "hidden_size": 16,
        "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 24, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "layer_norm_eps": 1e-05,
        "max_position_embeddings": 66, "type_vocab_size": 1, "pad_token_id": 1, "bos_token_id": 0,
        "eos_token_id": 2, "position_embedding_type": "absolute", "initializer_range": 0.02, "use_cache": True,
        "output_past": True, "torch_dtype": "float32", "transformers_version": "4.41.2"}

MPNET = {"model_type": "mpnet", "architectures": ["MPNetForMaskedLM"], "vocab_size": 3002, "hidden_size": 16,
         "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 24, "hidden_act": "gelu",
         "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "layer_norm_eps": 1e-05,
         "max_position_embeddings": 66, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
         "relative_attention_num_buckets": 32, "initializer_range": 0.02, "torch_dtype": "float32",
         "transformers_version": "4.11.3"}

RERANKER = dict(XLMR, architectures=["XLMRobertaForSequenceClassification"], id2label={"0": "LABEL_0"},
                label2id={"LABEL_0": 0}, classifier_dropout=None)

TEXTS = ["The cat sat on the mat.", "Le chat est assis sur le tapis.", "Der Hund schläft.", "a"]
LONG = "Green plants turn the light of the sun, water and air into sugar, all day long."
MPNET_TEXTS = [LONG] + TEXTS
QUERY = "what do plants need?"
PASSAGES = ["Plants need light and water.", "Die Katze schläft den ganzen Tag.", "water"]


def rounded(t):
    return t.to(torch.float32).to(torch.float64)


def bert_layers(sd, prefix, c, g):
    d, ff = c["hidden_size"], c["intermediate_size"]

    def rand(*shape, scale):
        return rounded(torch.randn(*shape, generator=g, dtype=torch.float64) * scale)

    for i in range(c["num_hidden_layers"]):
        p = prefix + "encoder.layer.%d." % i
        for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            sd[p + name + ".weight"] = rand(d, d, scale=d ** -0.5)
            sd[p + name + ".bias"] = rand(d, scale=0.1)
        sd[p + "attention.output.LayerNorm.weight"] = 1 + rand(d, scale=0.1)
        sd[p + "attention.output.LayerNorm.bias"] = rand(d, scale=0.1)
        sd[p + "intermediate.dense.weight"] = rand(ff, d, scale=d ** -0.5)
        sd[p + "intermediate.dense.bias"] = rand(ff, scale=0.1)
        sd[p + "output.dense.weight"] = rand(d, ff, scale=ff ** -0.5)
        sd[p + "output.dense.bias"] = rand(d, scale=0.1)
        sd[p + "output.LayerNorm.weight"] = 1 + rand(d, scale=0.1)
        sd[p + "output.LayerNorm.bias"] = rand(d, scale=0.1)


def xlmr_weights(c, prefix, seed, pooler):
    g = torch.Generator().manual_seed(seed)
    d = c["hidden_size"]

    def rand(*shape, scale):
        return rounded(torch.randn(*shape, generator=g, dtype=torch.float64) * scale)

    sd = {
        prefix + "embeddings.word_embeddings.weight": rand(c["vocab_size"], d, scale=0.5),
        prefix + "embeddings.position_embeddings.weight": rand(c["max_position_embeddings"], d, scale=0.5),
        prefix + "embeddings.token_type_embeddings.weight": rand(c["type_vocab_size"], d, scale=0.5),
        prefix + "embeddings.LayerNorm.weight": 1 + rand(d, scale=0.1),
        prefix + "embeddings.LayerNorm.bias": rand(d, scale=0.1),
    }
    bert_layers(sd, prefix, c, g)
    if pooler:
        sd[prefix + "pooler.dense.weight"] = rand(d, d, scale=d ** -0.5)
        sd[prefix + "pooler.dense.bias"] = rand(d, scale=0.1)
    return {k: rounded(v) for k, v in sd.items()}, g


# ---------------------------------------------------------------------------------------------------------------
# Reference forwards, float64.

def layer_norm(x, sd, name, eps):
    width = int(x.shape[-1])  # a Python int, which an exported graph takes as the constant it is
    return torch.nn.functional.layer_norm(x, (width,), sd[name + ".weight"], sd[name + ".bias"], eps)


def linear(x, sd, name):
    return x @ sd[name + ".weight"].T + sd[name + ".bias"]


def heads(t, h):
    b, n, d = t.shape
    return t.view(b, n, h, d // h).transpose(1, 2)


def bert_layer(x, sd, p, c, mask, bias=None):
    """BertLayer / XLMRobertaLayer: post-norm self-attention and feed-forward; mask [B, L] of 0/1."""
    h = c["num_attention_heads"]
    q = heads(linear(x, sd, p + "attention.self.query"), h)
    k = heads(linear(x, sd, p + "attention.self.key"), h)
    v = heads(linear(x, sd, p + "attention.self.value"), h)
    scores = q @ k.transpose(-1, -2) / (q.shape[-1] ** 0.5)
    if bias is not None:
        scores = scores + bias
    scores = scores.masked_fill(mask[:, None, None, :] == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    context = (weights @ v).transpose(1, 2).reshape(x.shape)
    a = layer_norm(x + linear(context, sd, p + "attention.output.dense"), sd, p + "attention.output.LayerNorm",
                   c["layer_norm_eps"])
    f = torch.nn.functional.gelu(linear(a, sd, p + "intermediate.dense"))
    y = layer_norm(a + linear(f, sd, p + "output.dense"), sd, p + "output.LayerNorm", c["layer_norm_eps"])
    return y, weights


def roberta_positions(ids, pad):
    """transformers' create_position_ids_from_input_ids (past length 0)."""
    m = ids.ne(pad).long()
    return torch.cumsum(m, dim=1) * m + pad


def xlmr_forward(sd, prefix, c, ids, mask):
    e = prefix + "embeddings."
    x = (sd[e + "word_embeddings.weight"][ids] + sd[e + "token_type_embeddings.weight"][torch.zeros_like(ids)]
         + sd[e + "position_embeddings.weight"][roberta_positions(ids, c["pad_token_id"])])
    x = layer_norm(x, sd, e + "LayerNorm", c["layer_norm_eps"])
    attentions = []
    for i in range(c["num_hidden_layers"]):
        x, w = bert_layer(x, sd, prefix + "encoder.layer.%d." % i, c, mask)
        attentions.append(w)
    return x, attentions


def mpnet_bucket(relative_position, num_buckets=32, max_distance=128):
    """transformers' MPNetEncoder.relative_position_bucket, as written there (its logarithm in float32)."""
    ret = 0
    n = -relative_position
    num_buckets //= 2
    ret += (n < 0).to(torch.long) * num_buckets
    n = torch.abs(n)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    val_if_large = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                                * (num_buckets - max_exact)).to(torch.long)
    val_if_large = torch.min(val_if_large, torch.full_like(val_if_large, num_buckets - 1))
    ret += torch.where(is_small, n, val_if_large)
    return ret


def mpnet_weights(c, seed):
    g = torch.Generator().manual_seed(seed)
    d, ff = c["hidden_size"], c["intermediate_size"]

    def rand(*shape, scale):
        return torch.randn(*shape, generator=g, dtype=torch.float64) * scale

    sd = {"embeddings.word_embeddings.weight": rand(c["vocab_size"], d, scale=0.5),
          "embeddings.position_embeddings.weight": rand(c["max_position_embeddings"], d, scale=0.5),
          "embeddings.LayerNorm.weight": 1 + rand(d, scale=0.1),
          "embeddings.LayerNorm.bias": rand(d, scale=0.1),
          "encoder.relative_attention_bias.weight": rand(c["relative_attention_num_buckets"],
                                                         c["num_attention_heads"], scale=1.0)}
    for i in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % i
        for name in ("q", "k", "v", "o"):
            sd[p + "attention.attn." + name + ".weight"] = rand(d, d, scale=d ** -0.5)
            sd[p + "attention.attn." + name + ".bias"] = rand(d, scale=0.1)
        sd[p + "attention.LayerNorm.weight"] = 1 + rand(d, scale=0.1)
        sd[p + "attention.LayerNorm.bias"] = rand(d, scale=0.1)
        sd[p + "intermediate.dense.weight"] = rand(ff, d, scale=d ** -0.5)
        sd[p + "intermediate.dense.bias"] = rand(ff, scale=0.1)
        sd[p + "output.dense.weight"] = rand(d, ff, scale=ff ** -0.5)
        sd[p + "output.dense.bias"] = rand(d, scale=0.1)
        sd[p + "output.LayerNorm.weight"] = 1 + rand(d, scale=0.1)
        sd[p + "output.LayerNorm.bias"] = rand(d, scale=0.1)
    sd["pooler.dense.weight"] = rand(d, d, scale=d ** -0.5)
    sd["pooler.dense.bias"] = rand(d, scale=0.1)
    return {k: rounded(v) for k, v in sd.items()}


def mpnet_forward(sd, c, ids, mask):
    """transformers' MPNetModel: RoBERTa positions, no token types, one relative position bias for every layer."""
    x = (sd["embeddings.word_embeddings.weight"][ids]
         + sd["embeddings.position_embeddings.weight"][roberta_positions(ids, c["pad_token_id"])])
    x = layer_norm(x, sd, "embeddings.LayerNorm", c["layer_norm_eps"])
    length = ids.shape[1]
    relative = torch.arange(length)[None, :] - torch.arange(length)[:, None]
    bias = sd["encoder.relative_attention_bias.weight"][mpnet_bucket(relative)].permute(2, 0, 1)[None]
    renamed = {}
    for i in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % i
        for ours, theirs in (("attention.self.query", "attention.attn.q"), ("attention.self.key", "attention.attn.k"),
                             ("attention.self.value", "attention.attn.v"),
                             ("attention.output.dense", "attention.attn.o"),
                             ("attention.output.LayerNorm", "attention.LayerNorm"),
                             ("intermediate.dense", "intermediate.dense"), ("output.dense", "output.dense"),
                             ("output.LayerNorm", "output.LayerNorm")):
            for t in ("weight", "bias"):
                renamed[p + ours + "." + t] = sd[p + theirs + "." + t]
    attentions = []
    for i in range(c["num_hidden_layers"]):
        x, w = bert_layer(x, renamed, "encoder.layer.%d." % i, c, mask, bias)
        attentions.append(w)
    return x, attentions


# ---------------------------------------------------------------------------------------------------------------
# Files.

def write_safetensors(path, tensors):
    header = {}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        t = tensors[name]
        dtype = "F64" if t.dtype == torch.float64 else "F32"
        data = t.contiguous().numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text.encode("utf-8"))
        for b in blobs:
            f.write(b)


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def f32(sd):
    return {k: v.to(torch.float32) for k, v in sd.items()}


def pad(rows, value):
    length = max(len(r) for r in rows)
    ids = torch.tensor([r + [value] * (length - len(r)) for r in rows], dtype=torch.long)
    mask = torch.tensor([[1] * len(r) + [0] * (length - len(r)) for r in rows], dtype=torch.long)
    return ids, mask


def generate(out):
    from tokenizers import Tokenizer  # only the fixtures need it; the reference forwards above need torch alone

    tok = Tokenizer.from_file(TOKENIZER)
    reference = {}
    expected = {}

    # xlmr: a sentence-transformers folder, CLS pooling then Normalize (bge-m3's modules)
    folder = os.path.join(out, "xlmr")
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    sd, _ = xlmr_weights(XLMR, "", 11, pooler=True)
    write_json(os.path.join(folder, "config.json"), XLMR)
    write_safetensors(os.path.join(folder, "model.safetensors"), f32(sd))
    write_json(os.path.join(folder, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])
    write_json(os.path.join(folder, "1_Pooling", "config.json"), {
        "word_embedding_dimension": 16, "pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False,
        "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
        "pooling_mode_weightedmean_tokens": False, "pooling_mode_lasttoken": False, "include_prompt": True})
    rows = [tok.encode(t).ids for t in TEXTS]
    ids, mask = pad(rows, XLMR["pad_token_id"])
    hidden, attentions = xlmr_forward(sd, "", XLMR, ids, mask)
    pooled = torch.tanh(linear(hidden[:, 0], sd, "pooler.dense"))
    cls = hidden[:, 0]
    reference["xlmr.input_ids"] = ids.to(torch.float64)
    reference["xlmr.attention_mask"] = mask.to(torch.float64)
    reference["xlmr.last_hidden_state"] = hidden
    reference["xlmr.pooler_output"] = pooled
    reference["xlmr.attentions.1"] = attentions[1]
    reference["xlmr.embeddings"] = cls / cls.norm(dim=-1, keepdim=True)
    expected["xlmr"] = {"texts": TEXTS, "ids": rows}

    # xlmr-reranker: XLMRobertaForSequenceClassification with one label
    folder = os.path.join(out, "xlmr-reranker")
    os.makedirs(folder, exist_ok=True)
    sd, g = xlmr_weights(RERANKER, "roberta.", 12, pooler=False)
    d = RERANKER["hidden_size"]
    sd["classifier.dense.weight"] = rounded(torch.randn(d, d, generator=g, dtype=torch.float64) * d ** -0.5)
    sd["classifier.dense.bias"] = rounded(torch.randn(d, generator=g, dtype=torch.float64) * 0.1)
    sd["classifier.out_proj.weight"] = rounded(torch.randn(1, d, generator=g, dtype=torch.float64) * d ** -0.5)
    sd["classifier.out_proj.bias"] = rounded(torch.randn(1, generator=g, dtype=torch.float64) * 0.1)
    write_json(os.path.join(folder, "config.json"), RERANKER)
    write_safetensors(os.path.join(folder, "model.safetensors"), f32(sd))
    rows = [tok.encode(QUERY, p).ids for p in PASSAGES]
    ids, mask = pad(rows, RERANKER["pad_token_id"])
    reference["xlmr-reranker.input_ids"] = ids.to(torch.float64)
    reference["xlmr-reranker.attention_mask"] = mask.to(torch.float64)
    hidden, _ = xlmr_forward(sd, "roberta.", RERANKER, ids, mask)
    logits = linear(torch.tanh(linear(hidden[:, 0], sd, "classifier.dense")), sd, "classifier.out_proj")
    reference["xlmr-reranker.logits"] = logits
    expected["xlmr-reranker"] = {"query": QUERY, "passages": PASSAGES, "ids": rows}

    # xlmr-st: xlmr's encoder with mean pooling that skips the prompt, a Tanh Dense projection and Normalize
    folder = os.path.join(out, "xlmr-st")
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    os.makedirs(os.path.join(folder, "2_Dense"), exist_ok=True)
    write_json(os.path.join(folder, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
        {"idx": 3, "name": "3", "path": "3_Normalize", "type": "sentence_transformers.models.Normalize"}])
    write_json(os.path.join(folder, "1_Pooling", "config.json"), {
        "word_embedding_dimension": 16, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
        "pooling_mode_weightedmean_tokens": False, "pooling_mode_lasttoken": False, "include_prompt": False})
    write_json(os.path.join(folder, "2_Dense", "config.json"), {
        "in_features": 16, "out_features": 8, "bias": True,
        "activation_function": "torch.nn.modules.activation.Tanh"})
    g = torch.Generator().manual_seed(13)
    dense = {"linear.weight": rounded(torch.randn(8, 16, generator=g, dtype=torch.float64) * 0.5),
             "linear.bias": rounded(torch.randn(8, generator=g, dtype=torch.float64) * 0.1)}
    write_safetensors(os.path.join(folder, "2_Dense", "model.safetensors"), f32(dense))
    prompts = {"query": "query: ", "passage": "passage: "}
    write_json(os.path.join(folder, "config_sentence_transformers.json"), {
        "__version__": {"sentence_transformers": "3.0.1", "transformers": "4.41.2", "pytorch": "2.3.1"},
        "prompts": prompts, "default_prompt_name": "query", "similarity_fn_name": "cosine"})
    sd, _ = xlmr_weights(XLMR, "", 11, pooler=True)
    st_ids = {}
    for name, pooling in (("query", "mean"), ("passage", "mean"), ("weighted", "weightedmean"),
                          ("last", "lasttoken")):
        prompt = prompts["passage" if name == "passage" else "query"]
        prompt_length = len(tok.encode(prompt).ids) - 1
        rows = [tok.encode(prompt + t).ids for t in TEXTS]
        ids, mask = pad(rows, XLMR["pad_token_id"])
        hidden, _ = xlmr_forward(sd, "", XLMR, ids, mask)
        m = mask.clone()
        m[:, :prompt_length] = 0
        m = m.to(torch.float64)
        if pooling == "lasttoken":
            last = torch.tensor([max(i for i in range(m.shape[1]) if m[b, i] == 1) for b in range(m.shape[0])])
            pooled = hidden[torch.arange(hidden.shape[0]), last]
        else:
            w = m * (torch.arange(1, m.shape[1] + 1, dtype=torch.float64) if pooling == "weightedmean" else 1)
            pooled = (hidden * w[:, :, None]).sum(1) / w.sum(1, keepdim=True).clamp(min=1e-9)
        y = torch.tanh(pooled @ dense["linear.weight"].T + dense["linear.bias"])
        reference["xlmr-st." + name] = y / y.norm(dim=-1, keepdim=True)
        if name == "query":
            y4 = y[:, :4]
            reference["xlmr-st.query.4"] = y4 / y4.norm(dim=-1, keepdim=True)
        st_ids[name] = rows
    expected["xlmr-st"] = {"texts": TEXTS, "ids": st_ids}

    # mpnet: an MPNetModel laid out as all-mpnet-base-v2's folder (mean pooling, Normalize)
    folder = os.path.join(out, "mpnet")
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    sd = mpnet_weights(MPNET, 14)
    write_json(os.path.join(folder, "config.json"), MPNET)
    write_safetensors(os.path.join(folder, "model.safetensors"), f32(sd))
    write_json(os.path.join(folder, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])
    write_json(os.path.join(folder, "1_Pooling", "config.json"), {
        "word_embedding_dimension": 16, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False})
    rows = [tok.encode(t).ids for t in MPNET_TEXTS]
    ids, mask = pad(rows, MPNET["pad_token_id"])
    hidden, attentions = mpnet_forward(sd, MPNET, ids, mask)
    m = mask.to(torch.float64)[:, :, None]
    mean = (hidden * m).sum(1) / m.sum(1)
    reference["mpnet.input_ids"] = ids.to(torch.float64)
    reference["mpnet.attention_mask"] = mask.to(torch.float64)
    reference["mpnet.last_hidden_state"] = hidden
    reference["mpnet.pooler_output"] = torch.tanh(linear(hidden[:, 0], sd, "pooler.dense"))
    reference["mpnet.attentions.1"] = attentions[1]
    reference["mpnet.embeddings"] = mean / mean.norm(dim=-1, keepdim=True)
    reference["mpnet.buckets"] = mpnet_bucket(torch.arange(-600, 601)).to(torch.float64)
    expected["mpnet"] = {"texts": MPNET_TEXTS, "ids": rows}

    write_safetensors(os.path.join(out, "families.safetensors"), reference)
    write_json(os.path.join(out, "families.json"), expected)


FILES = ["xlmr-st/modules.json", "xlmr-st/1_Pooling/config.json", "xlmr-st/2_Dense/config.json",
         "xlmr-st/2_Dense/model.safetensors", "xlmr-st/config_sentence_transformers.json", "xlmr/config.json", "xlmr/model.safetensors", "xlmr/modules.json", "xlmr/1_Pooling/config.json",
         "mpnet/config.json", "mpnet/model.safetensors", "mpnet/modules.json", "mpnet/1_Pooling/config.json",
         "xlmr-reranker/config.json", "xlmr-reranker/model.safetensors", "families.safetensors", "families.json"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="regenerate in a temporary folder and compare")
    args = parser.parse_args()
    torch.set_default_dtype(torch.float64)
    if not args.check:
        generate(OUT)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        bad = [f for f in FILES if not filecmp.cmp(os.path.join(tmp, f), os.path.join(OUT, f), shallow=False)]
    if bad:
        print("differ from the committed files: " + ", ".join(bad))
        return 1
    print("all %d files are reproduced byte for byte" % len(FILES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
