#!/usr/bin/python3
"""Write a tiny random-weight Llama 3 style chat checkpoint folder and its float64 PyTorch greedy continuations.

models/src/test/resources/org/attn4j/models/decoder/llama3_chat_tiny/ gets:
    config.json             a Llama config (GQA 4 over 2 heads, 2 layers, width 32) whose vocab_size is the
                            tokenizer's, with bos/eos ids as Llama 3 checkpoints write them
    model.safetensors       random weights (F32) under Hugging Face names, from tck/src/golden/decoder_cases.py
    tokenizer.json          the llama3 fixture of generate_llm_tokenizers.py (byte-level BPE, Llama 3 Split regex)
    tokenizer_config.json   meta-llama/Meta-Llama-3-8B-Instruct's chat template and special tokens
    generation_config.json  eos_token_id as a list (<|end_of_text|>, <|eot_id|> and one ordinary id that the greedy
                            continuation below reaches, so that a test sees generation stop on a listed id),
                            do_sample with temperature, top_p and top_k (the checkpoint's sampling defaults)
    expected.json           for a chat (the conversation, its rendered prompt's ids and the greedy reply up to the
                            first stop id) and for a plain prompt (its ids with the BOS the post-processor adds, and
                            its greedy continuation), computed by the plain torch Llama of decoder_cases.py in float64
                            with each step's top-2 margin checked

The prompts are ASCII, on which this script's encoder (the Split regex in Python's re, GPT-2's byte map, BPE merges
by rank, ignore_merges) is exact; the Java tests check its ids against attn4j's tokenizer, which is checked against
Hugging Face's elsewhere.

Usage: /usr/bin/python3 models/src/test/python/generate_chat_model.py
"""

import json
import os
import re
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "tck", "src", "golden"))
sys.path.insert(0, GOLDEN)
sys.path.insert(0, HERE)

from decoder_cases import greedy, llama_logits, llama_state  # noqa: E402
from generate_goldens import gen, write_safetensors  # noqa: E402
from generate_llm_tokenizers import LLAMA3_REGEX, approximate_split, byte_to_unicode  # noqa: E402

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)

RESOURCES = os.path.normpath(os.path.join(HERE, "..", "resources", "org", "attn4j", "models"))
TOKENIZER = os.path.join(RESOURCES, "tokenize", "llm", "llama3", "tokenizer.json")
TEMPLATE = os.path.join(RESOURCES, "chat", "checkpoints", "meta-llama--Meta-Llama-3-8B-Instruct",
                        "tokenizer_config.json")
OUT = os.path.join(RESOURCES, "decoder", "llama3_chat_tiny")

MESSAGES = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Hello! What is the capital of France?"}]
PROMPT_TEXT = "The capital of France is"
STEPS = 24


class Llama3Encoder:
    """The llama3 fixture's encoding of ASCII text: added tokens, the Split regex, bytes, BPE."""

    def __init__(self, doc):
        self.vocab = doc["model"]["vocab"]
        self.ranks = {tuple(m.split(" ")): i for i, m in enumerate(doc["model"]["merges"])}
        self.added = {t["content"]: t["id"] for t in doc["added_tokens"]}
        self.specials = re.compile("(" + "|".join(re.escape(a) for a in sorted(self.added, key=len, reverse=True))
                                   + ")")
        self.split = approximate_split(LLAMA3_REGEX)
        self.spell = byte_to_unicode()

    def bpe(self, word):
        if word in self.vocab:
            return [self.vocab[word]]
        symbols = list(word)
        while len(symbols) > 1:
            best = min(range(len(symbols) - 1), key=lambda i: (self.ranks.get((symbols[i], symbols[i + 1]),
                                                                               float("inf")), i))
            if (symbols[best], symbols[best + 1]) not in self.ranks:
                break
            symbols[best:best + 2] = [symbols[best] + symbols[best + 1]]
        return [self.vocab[s] for s in symbols]

    def encode(self, text):
        assert all(ord(c) < 128 for c in text), "the encoder is exact on ASCII only"
        ids = []
        for part in self.specials.split(text):
            if part in self.added:
                ids.append(self.added[part])
                continue
            for piece in self.split.findall(part):
                ids.extend(self.bpe("".join(self.spell[b] for b in piece.encode("utf-8"))))
        return ids


def render(template, messages, bos):
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    return env.from_string(template).render(messages=messages, add_generation_prompt=True, bos_token=bos,
                                            eos_token="<|eot_id|>", tools=None, documents=None)


def until_stop(tokens, stops):
    for i, t in enumerate(tokens):
        if t in stops:
            return tokens[:i], t
    return tokens, None


def main():
    with open(TOKENIZER, encoding="utf-8") as f:
        doc = json.load(f)
    with open(TEMPLATE, encoding="utf-8") as f:
        tokenizer_config = json.load(f)
    encoder = Llama3Encoder(doc)
    vocab_size = len(doc["model"]["vocab"]) + len(doc["added_tokens"])
    bos, end_of_text, eot = (encoder.added[t] for t in ("<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"))
    cfg = {"architectures": ["LlamaForCausalLM"], "bos_token_id": bos, "eos_token_id": [end_of_text, eot],
           "hidden_act": "silu", "hidden_size": 32, "intermediate_size": 48, "max_position_embeddings": 256,
           "model_type": "llama", "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
           "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "tie_word_embeddings": False, "vocab_size": vocab_size}
    state = llama_state(cfg, gen("llama3_chat_tiny"))
    logits_of = lambda ids: llama_logits(cfg, state, ids)  # noqa: E731

    chat_prompt = encoder.encode(render(tokenizer_config["chat_template"], MESSAGES, "<|begin_of_text|>"))
    chat_greedy = greedy(logits_of, chat_prompt, STEPS)
    stop_at = next(i for i in range(4, STEPS) if chat_greedy[i] not in chat_greedy[:i]
                   and chat_greedy[i] < len(doc["model"]["vocab"]))
    stops = [end_of_text, eot, chat_greedy[stop_at]]
    reply, reply_stop = until_stop(chat_greedy, stops)

    plain_prompt = [bos] + encoder.encode(PROMPT_TEXT)
    plain, plain_stop = until_stop(greedy(logits_of, plain_prompt, 16), stops)

    os.makedirs(OUT, exist_ok=True)

    def write(name, value):
        with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="\n") as f:
            json.dump(value, f, indent=1, ensure_ascii=False, sort_keys=name != "tokenizer_config.json")
            f.write("\n")

    write("config.json", cfg)
    write("tokenizer.json", doc)
    write("tokenizer_config.json", tokenizer_config)
    write("generation_config.json", {"bos_token_id": bos, "do_sample": True, "eos_token_id": stops,
                                     "temperature": 0.6, "top_k": 40, "top_p": 0.9,
                                     "transformers_version": "4.45.0"})
    write("expected.json", {"messages": MESSAGES, "chat_prompt": chat_prompt, "chat_reply": reply,
                            "chat_stop": reply_stop, "prompt_text": PROMPT_TEXT, "prompt": plain_prompt,
                            "continuation": plain, "continuation_stop": plain_stop})
    write_safetensors(os.path.join(OUT, "model.safetensors"), state, None, "F32")
    print("%s: prompt %d tokens, reply %d tokens then stop id %s; plain continuation %d tokens (stop %s)"
          % (OUT, len(chat_prompt), len(reply), reply_stop, len(plain), plain_stop))


if __name__ == "__main__":
    main()
