#!/usr/bin/python3
"""Write a tiny Qwen3-Embedding folder and a tiny Qwen3-Reranker folder with random weights for the models module's
tests, with the vectors and scores the models' own recipes give in float64.

qwen3-embedding: config.json (model_type qwen3, tied embeddings), model.safetensors under Qwen3Model's names (no
"model." prefix, no lm_head, as Qwen3-Embedding ships), tokenizer.json (byte-level BPE whose post-processor appends
<|endoftext|>), and the sentence-transformers files: modules.json (Transformer, Pooling, Normalize),
1_Pooling/config.json (pooling_mode_lasttoken), config_sentence_transformers.json (the "query" prompt) and
sentence_bert_config.json. expected.json: per text its ids and its vector: the final norm's hidden state of the last
token (the appended <|endoftext|>), divided by its L2 norm; queries carry the prompt
"Instruct: {task}\\nQuery:" before them, as Qwen3-Embedding's get_detailed_instruct writes it.

qwen3-reranker: config.json (untied), model.safetensors under Qwen3ForCausalLM's names with lm_head, tokenizer.json
(the same vocabulary, a ByteLevel post-processor that adds nothing). expected.json: per pair its ids and its score:
ids = prefix + tokens("<Instruct>: {instruction}\\n<Query>: {query}\\n<Document>: {doc}") + suffix, score =
softmax([logit(no), logit(yes)])[1] of the last position, as Qwen3-Reranker's model card computes it.

The reference computes with the weights rounded to F32, as the files hold them. Each sequence runs alone through decoder_families' plain-torch Qwen3 (the model card's left padding only masks), so
the numbers are the unpadded computation. The tokenizer here has 256 byte symbols, four merges between letters
(y e, ye s, n o, e r) and five added tokens, so that splitting on added tokens and merging over each remaining piece
gives the ids tokenizers gives for these texts (no apostrophes: the pre-tokenizer's contractions are the only place a
letter pair could straddle two words).

Usage: /usr/bin/python3 generate_qwen3_encoder_folders.py [--out DIR]
"""

import argparse
import json
import os
import sys

import torch

from decoder_families import Cache, _lineage_blocks, random_state
from generate_decoder_folders import byte_to_unicode
from generate_goldens import gen, write_safetensors

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "models", "src", "test", "resources", "org",
                                            "attn4j", "models", "embed"))

MERGES = [("y", "e"), ("ye", "s"), ("n", "o"), ("e", "r")]
ADDED = [("<|endoftext|>", True), ("<|im_start|>", True), ("<|im_end|>", True), ("<think>", False),
         ("</think>", False)]
QWEN2_SPLIT = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
               "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
CONFIG = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
          "bos_token_id": 256, "eos_token_id": 256, "head_dim": 16, "hidden_act": "silu", "hidden_size": 32,
          "initializer_range": 0.02, "intermediate_size": 48, "max_position_embeddings": 40960,
          "max_window_layers": 2, "model_type": "qwen3", "num_attention_heads": 4, "num_hidden_layers": 2,
          "num_key_value_heads": 2, "rms_norm_eps": 1e-6, "rope_scaling": None, "rope_theta": 1000000,
          "sliding_window": None, "tie_word_embeddings": True, "torch_dtype": "float32",
          "transformers_version": "4.51.3", "use_cache": True, "use_sliding_window": False, "vocab_size": 272}

TASK = "Given a web search query, retrieve relevant passages that answer the query"
QUERY_PROMPT = "Instruct: " + TASK + "\nQuery:"
QUERIES = ["What is the capital of China?", "Explain gravity", "no"]
DOCUMENTS = ["The capital of China is Beijing.",
             "Gravity is a force that attracts two bodies towards each other. It gives weight to physical objects.",
             "yes", ""]
SYSTEM = ("Judge whether the Document meets the requirements based on the Query and the Instruct provided. Note that "
          "the answer can only be \"yes\" or \"no\".")
PREFIX = "<|im_start|>system\n" + SYSTEM + "<|im_end|>\n<|im_start|>user\n"
SUFFIX = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
RERANK = [(None, "What is the capital of China?", "The capital of China is Beijing."),
          (None, "What is the capital of China?", DOCUMENTS[1]),
          (None, "Explain gravity", DOCUMENTS[1]),
          ("Judge whether the passage is about physics", "Explain gravity", "yes no yes"),
          (None, "", "")]


def vocabulary():
    spell = byte_to_unicode()
    tokens = [spell[b] for b in range(256)] + [a + b for a, b in MERGES]
    vocab = {t: i for i, t in enumerate(tokens)}
    added = {name: len(tokens) + i for i, (name, _) in enumerate(ADDED)}
    return vocab, added


def tokenizer_json(append_eos):
    vocab, added = vocabulary()
    if append_eos:
        eos = added["<|endoftext|>"]
        post = {"type": "TemplateProcessing",
                "single": [{"Sequence": {"id": "A", "type_id": 0}},
                           {"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}],
                "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                         {"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}},
                         {"Sequence": {"id": "B", "type_id": 1}},
                         {"SpecialToken": {"id": "<|endoftext|>", "type_id": 1}}],
                "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": [eos],
                                                     "tokens": ["<|endoftext|>"]}}}
    else:
        post = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": added[name], "content": name, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": special} for name, special in ADDED],
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_SPLIT}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]},
        "post_processor": post,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": [a + " " + b for a, b in MERGES]},
    }


def bpe(piece):
    spell = byte_to_unicode()
    symbols = [spell[b] for b in piece.encode("utf-8")]
    ranks = {pair: r for r, pair in enumerate(MERGES)}
    while len(symbols) > 1:
        pairs = [(ranks.get((symbols[i], symbols[i + 1]), len(ranks)), i) for i in range(len(symbols) - 1)]
        rank, _ = min(pairs)
        if rank == len(ranks):
            break
        a, b = MERGES[rank]
        merged, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                merged.append(a + b)
                i += 2
            else:
                merged.append(symbols[i])
                i += 1
        symbols = merged
    return symbols


def encode(text, append_eos):
    """The ids tokenizers gives for text with this vocabulary (add_special_tokens as the post-processor says)."""
    if "'" in text:
        raise SystemExit("encode: the texts hold no apostrophe (see the module docstring)")
    vocab, added = vocabulary()
    ids = []
    rest = text
    while rest:
        hits = [(rest.find(name), name) for name in added if rest.find(name) >= 0]
        if not hits:
            ids += [vocab[s] for s in bpe(rest)]
            break
        at, name = min(hits)
        ids += [vocab[s] for s in bpe(rest[:at])] + [added[name]]
        rest = rest[at + len(name):]
    if append_eos:
        ids.append(added["<|endoftext|>"])
    return ids


def as_stored(state):
    """The parameters as the F32 file holds them, so that the float64 reference computes with the same numbers."""
    return {k: v.float().double() for k, v in state.items()}


def final_hidden(cfg, state, ids):
    return _lineage_blocks(cfg, state, torch.tensor(ids), 0, Cache(cfg))


def write_json(path, value):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(value, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def embedding_folder(out):
    folder = os.path.join(out, "qwen3-embedding")
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    cfg = dict(CONFIG)
    state = as_stored(random_state(cfg, gen("qwen3_embedding_tiny")))
    write_json(os.path.join(folder, "config.json"), cfg)
    write_safetensors(os.path.join(folder, "model.safetensors"),
                      {k[len("model."):]: v for k, v in state.items()}, {"format": "pt"}, "F32")
    write_json(os.path.join(folder, "tokenizer.json"), tokenizer_json(True))
    write_json(os.path.join(folder, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])
    write_json(os.path.join(folder, "1_Pooling", "config.json"), {
        "word_embedding_dimension": cfg["hidden_size"], "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
        "pooling_mode_lasttoken": True, "include_prompt": True})
    write_json(os.path.join(folder, "config_sentence_transformers.json"), {
        "prompts": {"query": QUERY_PROMPT, "document": ""}, "default_prompt_name": None,
        "similarity_fn_name": "cosine"})
    write_json(os.path.join(folder, "sentence_bert_config.json"), {"max_seq_length": 32768, "do_lower_case": False})
    cases = []
    for kind, texts, prompt in (("query", QUERIES, QUERY_PROMPT), ("document", DOCUMENTS, "")):
        for text in texts:
            ids = encode(prompt + text, True)
            v = final_hidden(cfg, state, ids)[-1]
            v = v / torch.clamp(v.norm(), min=1e-12)
            cases.append({"prompt": kind, "text": text, "ids": ids, "vector": v.tolist()})
    write_json(os.path.join(folder, "expected.json"), {"task": TASK, "cases": cases})
    return folder


def reranker_folder(out):
    folder = os.path.join(out, "qwen3-reranker")
    os.makedirs(folder, exist_ok=True)
    cfg = dict(CONFIG, tie_word_embeddings=False)
    state = random_state(cfg, gen("qwen3_reranker_tiny"))
    vocab, _ = vocabulary()
    yes, no = vocab["yes"], vocab["no"]
    # Independent random rows put P(yes) near 0 or 1, where a score says little; a "no" row near the "yes" row
    # keeps the two logits within a few units of each other, so each score is a number worth comparing.
    head = state["lm_head.weight"]
    head[no] = head[yes] + 0.3 * torch.randn(cfg["hidden_size"], generator=gen("qwen3_reranker_no_row"))
    state = as_stored(state)
    write_json(os.path.join(folder, "config.json"), cfg)
    write_safetensors(os.path.join(folder, "model.safetensors"), state, {"format": "pt"}, "F32")
    write_json(os.path.join(folder, "tokenizer.json"), tokenizer_json(False))
    prefix, suffix = encode(PREFIX, False), encode(SUFFIX, False)
    cases = []
    for instruction, query, doc in RERANK:
        body = "<Instruct>: {}\n<Query>: {}\n<Document>: {}".format(instruction or TASK, query, doc)
        ids = prefix + encode(body, False) + suffix
        hidden = final_hidden(cfg, state, ids)[-1]
        logits = hidden @ state["lm_head.weight"].t()
        pair = torch.stack([logits[no], logits[yes]])
        score = float(torch.softmax(pair, 0)[1])
        cases.append({"instruction": instruction, "query": query, "document": doc, "ids": ids, "score": score,
                      "logit_yes_minus_no": float(logits[yes] - logits[no])})
    write_json(os.path.join(folder, "expected.json"), {"yes": yes, "no": no, "cases": cases})
    return folder


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    print(embedding_folder(args.out))
    print(reranker_folder(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
