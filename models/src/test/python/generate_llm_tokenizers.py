#!/usr/bin/python3
"""Write tokenizer.json files shaped as the decoder families ship them, with vocabularies from small BPEs trained here.

No real tokenizer file is downloaded. Each family's normalizer, pre_tokenizer, post_processor, decoder, model flags and
added tokens are those of the checkpoint named below (as its tokenizer.json on the Hugging Face Hub has them, or as
transformers' convert_slow_tokenizer builds them); only the vocabulary and the merges are ours, trained on the test
corpora by the BPE trainers in this file, so every merge path the tests reach is realistic.

    llama3   meta-llama/Llama-3.2-1B-Instruct   byte-level BPE, Split on the Llama 3 regex (\\p{N}{1,3}), ignore_merges,
                                                Sequence[ByteLevel, TemplateProcessing <|begin_of_text|> $A]
    qwen2    Qwen/Qwen2.5-0.5B-Instruct         byte-level BPE, NFC, Split on the Qwen2 regex (\\p{N} alone),
                                                ByteLevel post-processor (no BOS), <tool_call> as a non-special token
    llama2   TinyLlama/TinyLlama-1.1B-Chat-v1.0 SentencePiece BPE (Llama 2 "legacy"): Prepend + Replace normalizer,
                                                byte_fallback, fuse_unk, decoder Replace/ByteFallback/Fuse/Strip
    mistral  mistralai/Mistral-7B-Instruct-v0.3 SentencePiece BPE converted with legacy=false: Metaspace pre-tokenizer
                                                (prepend_scheme first, split false), [INST] ... control tokens
    phi3     microsoft/Phi-3-mini-4k-instruct   Llama 2 legacy pipeline, <|user|> <|end|> ... added with rstrip
    gemma    google/gemma-2-2b-it               SentencePiece BPE with Replace(' ', '▁') and no prefix space, Split
                                                pre-tokenizer, "\\t" in place of <0x09>, decoder Replace/ByteFallback/Fuse
    metaspace (transformers' SpmConverter default) Metaspace pre-tokenizer and decoder, prepend_scheme always, split

Each folder also gets the checkpoint's tokenizer_config.json keys that decide BOS/EOS (bos_token, eos_token,
add_bos_token, add_eos_token, tokenizer_class). The extra test corpus for these tokenizers (code, white space runs,
digit runs, every family's special tokens in text) goes to llm/corpus.jsonl.

Usage:
    /usr/bin/python3 models/src/test/python/generate_llm_tokenizers.py          write the files
    /usr/bin/python3 models/src/test/python/generate_llm_tokenizers.py --check  regenerate in a temporary folder and
                                                                                compare byte for byte
"""

import argparse
import filecmp
import heapq
import json
import os
import random
import re
import sys
import tempfile
import unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENIZE = os.path.normpath(os.path.join(HERE, "..", "resources", "org", "attn4j", "models", "tokenize"))
OUT = os.path.join(TOKENIZE, "llm")

LLAMA3_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
               r"|\s*[\r\n]+|\s+(?!\S)|\s+")

# ------------------------------------------------------------------------------------------------------------------
# Text: the extra test corpus and the training text
# ------------------------------------------------------------------------------------------------------------------

SPECIALS_IN_TEXT = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
                    "<|eom_id|>", "<|python_tag|>", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<tool_call>",
                    "</tool_call>", "<|fim_prefix|>", "<s>", "</s>", "<unk>", "[INST]", "[/INST]", "[TOOL_CALLS]",
                    "<|user|>", "<|assistant|>", "<|system|>", "<|end|>", "<bos>", "<eos>", "<pad>",
                    "<start_of_turn>", "<end_of_turn>", "<table>", "<h1>", "\n\n\n"]

HAND_WRITTEN = [
    "def fibonacci(n):\n    if n < 2:\n        return n\n    return fibonacci(n - 1) + fibonacci(n - 2)\n",
    "public static void main(String[] args) {\n\tSystem.out.println(\"Hello, \" + args[0]);\n}\n",
    "for (int i = 0; i < 10; i++) {\n        sum += i * i;   // squares\n    }",
    "    indented with four spaces\n        and eight\n\t\tand two tabs\n",
    "trailing spaces   \nand a blank line\n\n\nthree newlines\r\n\r\nwindows",
    "a  b   c    d     e      f       g        h",
    "   ",
    "\n",
    "\n\n",
    " \n \n ",
    "x\u00A0\u00A0y\u3000\u3000z\u2003w",
    "1 12 123 1234 12345 123456 1234567 12345678 123456789 1234567890",
    "3.14159265358979323846 2,718 0.000001 1e10 -42 +7 007 2024-09-05 12:34:56",
    "٠١٢٣٤٥٦٧٨٩ ०१२३ ①②③ Ⅷ ½ ¾ ²³",
    "I'M HERE, YOU'RE THERE, HE'LL GO, WE'VE SEEN, THEY'D KNOW, IT'S ſ'S 'ſ 'S 's 'T",
    "don't won't shan't y'all o'clock rock'n'roll '' ' 's",
    "The year 1999 and 2000: 10,000,000 people paid $1,234.56 each (≈ €1.1k).",
    "Emoji runs: 😀😀😀 👍🏽👍🏿 🧑‍💻 and flags 🇺🇳🇪🇺",
    "rare CJK 𠀀𠀁𠀂 and Linear B 𐀀𐀁 and cuneiform 𒀀",
    "▁ already has a metaspace ▁▁ and more ▁x▁",
    "<s>[INST] What is 2 + 2? [/INST] 4</s>",
    "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>",
    "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n",
    "<|user|>\nHow are you?<|end|>\n<|assistant|>\nFine.<|end|>",
    "<|user|>   spaces after an rstrip token <|end|>   and before  <|end|>",
    "<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n",
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
    "glued<|eot_id|>specials</s>and<s>text<|im_end|>end",
    "<<s>> <|<|eot_id|>|> [[INST]] </s/> <s >",
    "<table><h1>Title</h1></table>\n\n\n\nafter newlines",
    "mixed Ünïcödé NFC: e\u0301 a\u0308 o\u0303 n\u0303 and precomposed é ä õ ñ",
    "Hangul jamo: \u1100\u1161\u11A8 and syllable 각",
    "tabs\tand\ttabs\t\tdouble\t\t\ttriple",
    "CamelCaseWordsAndMoreWords snake_case_words SCREAMING_CASE kebab-case",
    "x=1;y=2;z=x+y*3//4**5%6",
    "<unk> is unknown, <pad> pads, <eos> ends, [TOOL_CALLS] calls",
]

WORDS = ("the of and to in is was that for on are with as be at by this have from or an they which one you were "
         "her all she there would their we him been has when who will more no if out so said what up its about into "
         "than them can only other new some could time these two may then do first any my now such like our over "
         "man me even most made after also did many before must through back years where much your way well down "
         "should because each just those people how too little state good very make world still own see men work "
         "long get here between both life being under never day same another know while last might us great old "
         "year off come since against go came right used take three language model token attention transformer "
         "generation sampling temperature nucleus decoder encoder embedding vocabulary merge byte fallback").split()


def llm_corpus():
    """The hand-written lines, then 400 seeded mixtures of them, of words, specials and white space."""
    rng = random.Random(20240905)
    pieces = HAND_WRITTEN + SPECIALS_IN_TEXT + WORDS + [" ", "  ", "\t", "\n", "\n\n", "!", ",", ".", "123", "4567",
                                                        "é", "中文", "😀", "▁", "'s", "'LL"]
    lines = list(HAND_WRITTEN)
    for _ in range(400):
        n = rng.randint(1, 12)
        parts = []
        for _ in range(n):
            p = rng.choice(pieces)
            if rng.random() < 0.3:
                p = p[: rng.randint(0, len(p))]
            parts.append(p)
            if rng.random() < 0.5:
                parts.append(rng.choice([" ", "", "  ", "\n"]))
        lines.append("".join(parts))
    return lines


def prose(rng, sentences):
    out = []
    for _ in range(sentences):
        words = [rng.choice(WORDS) for _ in range(rng.randint(4, 16))]
        words[0] = words[0].capitalize()
        out.append(" ".join(words) + rng.choice([".", ".", ".", "?", "!", ","]))
    return " ".join(out)


def training_lines(corpus, extra):
    """The corpora, prose and the hand-written lines, with every special token taken out: like the real ones, the
    trained vocabularies do not spell the special tokens as ordinary pieces."""
    rng = random.Random(7)
    lines = corpus + extra + [prose(rng, 6) for _ in range(600)] + HAND_WRITTEN * 5
    specials = re.compile("|".join(re.escape(s) for s in sorted(SPECIALS_IN_TEXT, key=len, reverse=True)
                                   if not s.isspace()))
    return [specials.sub(" ", line) for line in lines]


# ------------------------------------------------------------------------------------------------------------------
# BPE training: the classic "merge the most frequent adjacent pair", over words with their counts
# ------------------------------------------------------------------------------------------------------------------

def train_bpe(word_counts, merges_wanted):
    """Returns the merges, most frequent first (ties: the smaller pair), learned from {tuple of symbols: count}."""
    words = [list(w) for w in sorted(word_counts)]
    counts = [word_counts[tuple(w)] for w in words]
    pairs = Counter()
    where = {}
    for i, w in enumerate(words):
        for a, b in zip(w, w[1:]):
            pairs[(a, b)] += counts[i]
            where.setdefault((a, b), set()).add(i)
    heap = [(-c, p) for p, c in pairs.items()]
    heapq.heapify(heap)
    merges = []
    while heap and len(merges) < merges_wanted:
        neg, pair = heapq.heappop(heap)
        if pairs.get(pair, 0) != -neg or -neg < 2:
            continue
        merges.append(pair)
        a, b = pair
        joined = a + b
        for i in sorted(where.pop(pair, ())):
            w = words[i]
            j = 0
            out = []
            while j < len(w):
                if j + 1 < len(w) and w[j] == a and w[j + 1] == b:
                    out.append(joined)
                    j += 2
                else:
                    out.append(w[j])
                    j += 1
            if out == w:
                continue
            for x, y in zip(w, w[1:]):
                pairs[(x, y)] -= counts[i]
            for x, y in zip(out, out[1:]):
                pairs[(x, y)] += counts[i]
                where.setdefault((x, y), set()).add(i)
            words[i] = out
            touched = set(zip(w, w[1:])) | set(zip(out, out[1:]))
            for p in sorted(touched):
                if pairs[p] > 0:
                    heapq.heappush(heap, (-pairs[p], p))
        pairs.pop(pair, None)
    return merges


def byte_to_unicode():
    """GPT-2's map from each byte to the printable character that spells it in byte-level vocabularies."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars = {b: chr(b) for b in printable}
    n = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + n)
            n += 1
    return chars


def approximate_split(regex):
    """The family's Split regex in Python's re (no \\p classes): exact on ASCII, close enough elsewhere to train."""
    p = regex.replace(r"[^\r\n\p{L}\p{N}]?\p{L}+", r"[^\r\n\w]?[^\W\d_]+")
    p = p.replace(r"[^\s\p{L}\p{N}]", r"[^\s\w]").replace(r"\p{N}", r"\d")
    return re.compile(p)


def byte_level_vocab(lines, regex, merges_wanted, normalize=None):
    spell = byte_to_unicode()
    split = approximate_split(regex)
    counts = Counter()
    for line in lines:
        text = unicodedata.normalize(normalize, line) if normalize else line
        for piece in split.findall(text):
            counts[tuple(spell[b] for b in piece.encode("utf-8"))] += 1
    merges = train_bpe(counts, merges_wanted)
    vocab = {}
    for b in range(256):
        vocab.setdefault(spell[b], len(vocab))
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return vocab, merges


def spm_vocab(lines, merges_wanted, specials, prefix, tab_token):
    """SentencePiece-style BPE: spaces as '▁' (and a leading '▁' when prefix), words cut before each '▁' and around
    digits, characters seen at least 3 times in the vocabulary, every other one left to the <0xNN> byte tokens."""
    chars = Counter()
    counts = Counter()
    cut = re.compile(r"▁?[^▁\d]+|▁?\d|▁+")
    for line in lines:
        text = ("▁" if prefix and line else "") + line.replace(" ", "▁")
        chars.update(text)
        for word in cut.findall(text):
            counts[tuple(word)] += 1
    keep = {c for c, n in chars.items() if n >= 3}
    counts = Counter({w: n for w, n in counts.items() if all(c in keep for c in w)})
    merges = train_bpe(counts, merges_wanted)
    vocab = {}
    for s in specials:
        vocab[s] = len(vocab)
    for b in range(256):
        vocab["\t" if (b == 9 and tab_token) else "<0x%02X>" % b] = len(vocab)
    for c, _ in sorted(chars.items(), key=lambda kv: (-kv[1], kv[0])):
        if c in keep and c not in vocab:
            vocab[c] = len(vocab)
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return vocab, merges


# ------------------------------------------------------------------------------------------------------------------
# tokenizer.json sections, as the checkpoints have them
# ------------------------------------------------------------------------------------------------------------------

def added(token_id, content, special=True, lstrip=False, rstrip=False, normalized=False, single_word=False):
    return {"id": token_id, "content": content, "single_word": single_word, "lstrip": lstrip, "rstrip": rstrip,
            "normalized": normalized, "special": special}


def template(bos, bos_id):
    return {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": bos, "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {bos: {"id": bos, "ids": [bos_id], "tokens": [bos]}}}


def byte_level(add_prefix_space, trim_offsets, use_regex):
    return {"type": "ByteLevel", "add_prefix_space": add_prefix_space, "trim_offsets": trim_offsets,
            "use_regex": use_regex}


def replace(pattern, content):
    return {"type": "Replace", "pattern": {"String": pattern}, "content": content}


SPM_DECODER = [replace("▁", " "), {"type": "ByteFallback"}, {"type": "Fuse"}]


def tokenizer_json(added_tokens, normalizer, pre_tokenizer, post_processor, decoder, model):
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added_tokens,
            "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "post_processor": post_processor,
            "decoder": decoder, "model": model}


def bpe_model(vocab, merges, unk=None, fuse_unk=False, byte_fallback=False, ignore_merges=False, prefix=None,
              suffix=None):
    return {"type": "BPE", "dropout": None, "unk_token": unk, "continuing_subword_prefix": prefix,
            "end_of_word_suffix": suffix, "fuse_unk": fuse_unk, "byte_fallback": byte_fallback,
            "ignore_merges": ignore_merges, "vocab": vocab, "merges": [a + " " + b for a, b in merges]}


def llama3(lines):
    vocab, merges = byte_level_vocab(lines, LLAMA3_REGEX, 1800)
    names = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
             "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>", "<|start_header_id|>", "<|end_header_id|>",
             "<|eom_id|>", "<|eot_id|>", "<|python_tag|>"] + ["<|reserved_special_token_%d|>" % i for i in range(3, 8)]
    first = len(vocab)
    tokens = [added(first + i, n) for i, n in enumerate(names)]
    pre = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": LLAMA3_REGEX}, "behavior": "Isolated", "invert": False},
        byte_level(False, True, False)]}
    post = {"type": "Sequence", "processors": [byte_level(True, False, True), template("<|begin_of_text|>", first)]}
    doc = tokenizer_json(tokens, None, pre, post, byte_level(True, True, True),
                         bpe_model(vocab, merges, ignore_merges=True))
    config = {"bos_token": "<|begin_of_text|>", "clean_up_tokenization_spaces": True, "eos_token": "<|eot_id|>",
              "model_input_names": ["input_ids", "attention_mask"], "model_max_length": 131072,
              "tokenizer_class": "PreTrainedTokenizerFast"}
    return doc, config


def qwen2(lines):
    vocab, merges = byte_level_vocab(lines, QWEN2_REGEX, 1800, normalize="NFC")
    names = [("<|endoftext|>", True), ("<|im_start|>", True), ("<|im_end|>", True), ("<|object_ref_start|>", True),
             ("<|object_ref_end|>", True), ("<|box_start|>", True), ("<|box_end|>", True), ("<|quad_start|>", True),
             ("<|quad_end|>", True), ("<|vision_start|>", True), ("<|vision_end|>", True), ("<|vision_pad|>", True),
             ("<|image_pad|>", True), ("<|video_pad|>", True), ("<tool_call>", False), ("</tool_call>", False),
             ("<|fim_prefix|>", False), ("<|fim_middle|>", False), ("<|fim_suffix|>", False), ("<|fim_pad|>", False),
             ("<|repo_name|>", False), ("<|file_sep|>", False)]
    first = len(vocab)
    tokens = [added(first + i, n, special=s) for i, (n, s) in enumerate(names)]
    pre = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": QWEN2_REGEX}, "behavior": "Isolated", "invert": False},
        byte_level(False, False, False)]}
    doc = tokenizer_json(tokens, {"type": "NFC"}, pre, byte_level(False, False, False), byte_level(False, False, False),
                         bpe_model(vocab, merges, prefix="", suffix=""))
    config = {"add_prefix_space": False, "bos_token": None, "clean_up_tokenization_spaces": False,
              "eos_token": "<|im_end|>", "errors": "replace", "model_max_length": 131072, "pad_token": "<|endoftext|>",
              "split_special_tokens": False, "tokenizer_class": "Qwen2Tokenizer", "unk_token": None}
    return doc, config


LLAMA2_NORMALIZER = {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, replace(" ", "▁")]}
LLAMA2_DECODER = {"type": "Sequence", "decoders": SPM_DECODER + [{"type": "Strip", "content": " ", "start": 1,
                                                                  "stop": 0}]}


def spm_llama(lines):
    return spm_vocab(lines, 1500, ["<unk>", "<s>", "</s>"], prefix=True, tab_token=False)


def llama2(spm):
    vocab, merges = spm
    tokens = [added(0, "<unk>"), added(1, "<s>"), added(2, "</s>")]
    doc = tokenizer_json(tokens, LLAMA2_NORMALIZER, None, template("<s>", 1), LLAMA2_DECODER,
                         bpe_model(vocab, merges, unk="<unk>", fuse_unk=True, byte_fallback=True))
    config = {"add_bos_token": True, "add_eos_token": False, "bos_token": "<s>", "clean_up_tokenization_spaces": False,
              "eos_token": "</s>", "legacy": False, "model_max_length": 2048, "pad_token": "</s>",
              "padding_side": "right", "sp_model_kwargs": {}, "tokenizer_class": "LlamaTokenizer",
              "unk_token": "<unk>", "use_default_system_prompt": False}
    return doc, config


def mistral(spm):
    base, merges = spm
    controls = ["[INST]", "[/INST]", "[TOOL_CALLS]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
                "[/TOOL_RESULTS]"]
    vocab = {}
    for token in ["<unk>", "<s>", "</s>"] + controls:
        vocab[token] = len(vocab)
    for token in base:
        vocab.setdefault(token, len(vocab))
    tokens = [added(vocab[t], t) for t in ["<unk>", "<s>", "</s>"] + controls]
    pre = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
    doc = tokenizer_json(tokens, None, pre, template("<s>", 1), LLAMA2_DECODER,
                         bpe_model(vocab, merges, unk="<unk>", fuse_unk=True, byte_fallback=True))
    config = {"add_bos_token": True, "add_eos_token": False, "bos_token": "<s>", "clean_up_tokenization_spaces": False,
              "eos_token": "</s>", "legacy": False, "model_max_length": 1000000000000000019884624838656,
              "pad_token": None, "spaces_between_special_tokens": False, "tokenizer_class": "LlamaTokenizer",
              "unk_token": "<unk>", "use_default_system_prompt": False}
    return doc, config


def phi3(spm):
    vocab, merges = dict(spm[0]), spm[1]
    tokens = [added(0, "<unk>"), added(1, "<s>"), added(2, "</s>", rstrip=True)]
    extra = [("<|endoftext|>", False), ("<|assistant|>", True), ("<|placeholder1|>", True), ("<|placeholder2|>", True),
             ("<|placeholder3|>", True), ("<|placeholder4|>", True), ("<|system|>", True), ("<|end|>", True),
             ("<|placeholder5|>", True), ("<|placeholder6|>", True), ("<|user|>", True)]
    first = len(vocab)
    tokens += [added(first + i, t, rstrip=r) for i, (t, r) in enumerate(extra)]
    doc = tokenizer_json(tokens, LLAMA2_NORMALIZER, None, template("<s>", 1), LLAMA2_DECODER,
                         bpe_model(vocab, merges, unk="<unk>", fuse_unk=True, byte_fallback=True))
    config = {"add_bos_token": False, "add_eos_token": False, "bos_token": "<s>", "clean_up_tokenization_spaces": False,
              "eos_token": "<|endoftext|>", "legacy": False, "model_max_length": 4096, "pad_token": "<|endoftext|>",
              "padding_side": "left", "sp_model_kwargs": {}, "tokenizer_class": "LlamaTokenizer",
              "unk_token": "<unk>", "use_default_system_prompt": False}
    return doc, config


def gemma(lines):
    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "[@BOS@]", "<start_of_turn>", "<end_of_turn>", "<table>",
                "<h1>", "\n\n\n"]
    vocab, merges = spm_vocab(lines, 1500, specials, prefix=False, tab_token=True)
    tokens = [added(vocab[t], t, special=i < 8) for i, t in enumerate(specials)]
    pre = {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": False}
    doc = tokenizer_json(tokens, replace(" ", "▁"), pre, template("<bos>", 2),
                         {"type": "Sequence", "decoders": SPM_DECODER},
                         bpe_model(vocab, merges, unk="<unk>", fuse_unk=True, byte_fallback=True))
    config = {"add_bos_token": True, "add_eos_token": False, "additional_special_tokens": ["<start_of_turn>",
                                                                                            "<end_of_turn>"],
              "bos_token": "<bos>", "clean_up_tokenization_spaces": False, "eos_token": "<eos>",
              "model_max_length": 1000000000000000019884624838656, "pad_token": "<pad>",
              "spaces_between_special_tokens": False, "tokenizer_class": "GemmaTokenizer", "unk_token": "<unk>",
              "use_default_system_prompt": False}
    return doc, config


def metaspace(spm):
    vocab, merges = spm
    tokens = [added(0, "<unk>"), added(1, "<s>"), added(2, "</s>")]
    ms = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
    doc = tokenizer_json(tokens, None, ms, {"type": "TemplateProcessing",
                                            "single": [{"Sequence": {"id": "A", "type_id": 0}},
                                                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                                            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                                                     {"SpecialToken": {"id": "</s>", "type_id": 0}},
                                                     {"Sequence": {"id": "B", "type_id": 0}},
                                                     {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                                            "special_tokens": {"</s>": {"id": "</s>", "ids": [2],
                                                                        "tokens": ["</s>"]}}},
                         dict(ms), bpe_model(vocab, merges, unk="<unk>", byte_fallback=True))
    config = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "tokenizer_class": "PreTrainedTokenizerFast"}
    return doc, config


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)
        f.write("\n")


def generate(out):
    with open(os.path.join(TOKENIZE, "corpus.jsonl"), encoding="utf-8") as f:
        corpus = [json.loads(line) for line in f]
    extra = llm_corpus()
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "corpus.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        for line in extra:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    lines = training_lines(corpus, extra)
    spm = spm_llama(lines)
    families = {"llama3": llama3(lines), "qwen2": qwen2(lines), "llama2": llama2(spm), "mistral": mistral(spm),
                "phi3": phi3(spm), "gemma": gemma(lines), "metaspace": metaspace(spm)}
    for name, (doc, config) in families.items():
        write_json(os.path.join(out, name, "tokenizer.json"), doc)
        write_json(os.path.join(out, name, "tokenizer_config.json"), config)
        print("%-9s %5d ids, %4d merges" % (name, len(doc["model"]["vocab"]) + len(doc["added_tokens"]),
                                             len(doc["model"]["merges"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare a fresh generation with the committed files")
    args = ap.parse_args()
    if not args.check:
        generate(OUT)
        return
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        bad = []
        for root, _, files in os.walk(tmp):
            for name in files:
                fresh = os.path.join(root, name)
                committed = os.path.join(OUT, os.path.relpath(fresh, tmp))
                if not os.path.exists(committed) or not filecmp.cmp(fresh, committed, shallow=False):
                    bad.append(os.path.relpath(fresh, tmp))
        if bad:
            sys.exit("differ from the committed files: " + ", ".join(sorted(bad)))
        print("all files reproduced byte for byte")


if __name__ == "__main__":
    main()
