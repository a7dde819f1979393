#!/usr/bin/python3
"""Write SentencePiece Unigram tokenizer.json files shaped as the XLM-RoBERTa family ships them, from models trained
here.

No real tokenizer file is downloaded. SentencePiece's trainer learns Unigram models with the nmt_nfkc normalization
(whose rules it stores as the precompiled charsmap) on the test corpora and the multilingual lines of
unigram/corpus.jsonl; the files are then laid out as the checkpoints lay theirs out:

    xlmr-roberta     older XLM-R conversions (paraphrase-multilingual-MiniLM-L12-v2): the fairseq ids (<s> <pad> </s>
                     <unk>, the pieces, <mask> last with lstrip), Precompiled normalizer alone, WhitespaceSplit then
                     Metaspace (add_prefix_space), RobertaProcessing, Metaspace decoder
    xlmr-template    newer XLM-R conversions (bge-m3, multilingual-e5, bge-reranker-v2-m3): Precompiled + Replace
                     ' {2,}' -> ' ', Metaspace (prepend_scheme always, split), TemplateProcessing <s> $A </s>
                     (pair <s> $A </s> </s> $B </s>), Metaspace decoder
    byte-fallback    transformers' SpmConverter for a model trained with byte_fallback: Precompiled + Strip (right) +
                     Replace ' {2,}' -> '▁', Metaspace, Unigram with byte_fallback, decoder Replace/ByteFallback/Fuse

unigram/precompiled.jsonl holds, for every line of unigram/corpus.jsonl and a few short clusters, the text that
Hugging Face's Precompiled normalizer makes of it with the trained charsmap, to check that normalizer alone.

Usage:
    /tmp/tokvenv/bin/python models/src/test/python/generate_unigram_tokenizers.py          write the files
    /tmp/tokvenv/bin/python models/src/test/python/generate_unigram_tokenizers.py --check  regenerate in a temporary
                                                                                           folder, compare bytes
(a virtual environment with sentencepiece and tokenizers; the build itself never runs Python).
"""

import argparse
import base64
import filecmp
import json
import os
import random
import sys
import tempfile

import sentencepiece as spm
from tokenizers import normalizers
from sentencepiece import sentencepiece_model_pb2 as model_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENIZE = os.path.normpath(os.path.join(HERE, "..", "resources", "org", "attn4j", "models", "tokenize"))
OUT = os.path.join(TOKENIZE, "unigram")

# Lines that reach what the charsmap and the Unigram lattice do: scripts without spaces, joiners, compatibility
# characters that NFKC rewrites, combining marks, runs of spaces, very long words.
HAND_WRITTEN = [
    "北京是中华人民共和国的首都，也是全国的政治、文化中心。",
    "東京都は日本の首都です。ひらがなとカタカナと漢字を混ぜて書きます。",
    "서울특별시는 대한민국의 수도이다. 한글은 세종대왕이 만들었다.",
    "اللغة العربية هي لغة رسمية في أكثر من عشرين دولة، وتكتب من اليمين إلى اليسار.",
    "مُحَمَّدٌ رَسُولُ اللَّهِ وَالَّذِينَ مَعَهُ",
    "हिन्दी भारत की राजभाषा है। नमस्ते, आप कैसे हैं?",
    "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ",
    "Ελληνικά: η ψυχή και το σώμα. Русский язык: привет, мир!",
    "עברית נכתבת מימין לשמאל",
    "👩🏽‍🤝‍👨🏿 🧑‍💻 👨‍👩‍👧‍👦 🏳️‍🌈 🇺🇳🇪🇺 ❤️‍🔥 🫶🏾 🙂‍↔️",
    "Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherungsanstalt",
    "pneumonoultramicroscopicsilicovolcanoconiosis" * 3,
    "ａｂｃ　ＡＢＣ　１２３　ｶﾀｶﾅ　㍻　㍿　①②③　ﬁﬂ　Ⅻ　™　½　㎏　ﾊﾟﾋﾟﾌﾟ",
    "e\u0301 a\u0308 o\u0303 n\u0303 Ａ\u0308 ｶ\u3099 ﾊ\u309a c\u0327\u0301 \u1100\u1161\u11a8 \u212b",
    "a  b   c    d\t\te\u3000\u3000f\u00a0g \u2003h",
    "   leading and trailing spaces   ",
    "zero\u200bwidth\u200cnon\u200djoiner\ufeffbom\u00adsoft",
    "ꦗꦮ ᏣᎳᎩ ⴰⵎⴰⵣⵉⵖ ᠮᠣᠩᠭᠣᠯ ትግርኛ 𐌲𐌿𐍄𐌹𐍃𐌺 𓀀𓀁 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛",
    "1234567890 ١٢٣٤٥٦٧٨٩٠ १२३४५ ໑໒໓ 3.14159 1,000,000 2024-09-05",
    "<s> </s> <unk> <pad> <mask> in text, and <mask>glued and  <mask> spaced",
]

WORDS = ("the of and to in is was that for on are with as be at by this have from or an they which one you were "
         "language model token attention transformer embedding multilingual sentence retrieval ranking query "
         "passage document search vector dense sparse").split()


def multilingual(rng, n):
    """Seeded lines that mix the hand-written ones, words and pieces of them."""
    pieces = HAND_WRITTEN + WORDS + [" ", "  ", "\n", "\t", "。", "、", "!", "?", "😀", "🫠", "‍", "️"]
    lines = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 8)):
            p = rng.choice(pieces)
            if len(p) > 4 and rng.random() < 0.4:
                a = rng.randint(0, len(p) - 1)
                p = p[a:a + rng.randint(1, 24)]
            parts.append(p)
            parts.append(rng.choice([" ", "", "  "]))
        lines.append("".join(parts))
    return lines


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def train(lines, prefix, byte_fallback, vocab_size):
    text = os.path.join(os.path.dirname(prefix), "train.txt")
    with open(text, "w", encoding="utf-8") as f:
        for line in lines:
            one = " ".join(line.split())
            if one:
                f.write(one + "\n")
    spm.SentencePieceTrainer.train(input=text, model_prefix=prefix, model_type="unigram", vocab_size=vocab_size,
                                   normalization_rule_name="nmt_nfkc", character_coverage=0.995,
                                   byte_fallback=byte_fallback, hard_vocab_limit=False, seed_sentencepiece_size=100000,
                                   num_threads=1, shuffle_input_sentence=False, minloglevel=2)
    proto = model_pb2.ModelProto()
    with open(prefix + ".model", "rb") as f:
        proto.ParseFromString(f.read())
    return proto


def added(token_id, content, lstrip=False):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": lstrip, "rstrip": False,
            "normalized": False, "special": True}


def precompiled(proto):
    return {"type": "Precompiled",
            "precompiled_charsmap": base64.b64encode(proto.normalizer_spec.precompiled_charsmap).decode("ascii")}


def regex_replace(pattern, content):
    return {"type": "Replace", "pattern": {"Regex": pattern}, "content": content}


def document(added_tokens, normalizer, pre_tokenizer, post_processor, decoder, model):
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added_tokens,
            "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "post_processor": post_processor,
            "decoder": decoder, "model": model}


def xlmr_vocab(proto):
    """fairseq's ids: <s> <pad> </s> <unk>, then SentencePiece's pieces after its own <unk> <s> </s>, then <mask>."""
    vocab = [["<s>", 0.0], ["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0]]
    vocab += [[p.piece, p.score] for p in proto.pieces[3:]]
    vocab.append(["<mask>", 0.0])
    return vocab


def xlmr_tokens(vocab):
    return [added(0, "<s>"), added(1, "<pad>"), added(2, "</s>"), added(3, "<unk>"),
            added(len(vocab) - 1, "<mask>", lstrip=True)]


def xlmr_roberta(proto):
    vocab = xlmr_vocab(proto)
    metaspace = {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}
    return document(xlmr_tokens(vocab), precompiled(proto),
                    {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]},
                    {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": True,
                     "add_prefix_space": True},
                    dict(metaspace), {"type": "Unigram", "unk_id": 3, "vocab": vocab})


def xlmr_template(proto):
    vocab = xlmr_vocab(proto)
    metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
    seq = lambda i, t: {"Sequence": {"id": i, "type_id": t}}
    tok = lambda i, t: {"SpecialToken": {"id": i, "type_id": t}}
    return document(xlmr_tokens(vocab),
                    {"type": "Sequence", "normalizers": [precompiled(proto), regex_replace(" {2,}", " ")]},
                    metaspace,
                    {"type": "TemplateProcessing", "single": [tok("<s>", 0), seq("A", 0), tok("</s>", 0)],
                     "pair": [tok("<s>", 0), seq("A", 0), tok("</s>", 0), tok("</s>", 0), seq("B", 0),
                              tok("</s>", 0)],
                     "special_tokens": {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
                                        "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}}},
                    dict(metaspace), {"type": "Unigram", "unk_id": 3, "vocab": vocab})


def byte_fallback(proto):
    vocab = [[p.piece, p.score] for p in proto.pieces]
    specials = [added(i, p.piece) for i, p in enumerate(proto.pieces) if p.type in (2, 3)]
    metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
    return document(specials,
                    {"type": "Sequence", "normalizers": [precompiled(proto),
                                                         {"type": "Strip", "strip_left": False, "strip_right": True},
                                                         regex_replace(" {2,}", "▁")]},
                    metaspace, None,
                    {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                                                      {"type": "ByteFallback"}, {"type": "Fuse"}]},
                    {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": True})


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)
        f.write("\n")


def generate(out):
    rng = random.Random(20241202)
    extra = HAND_WRITTEN + multilingual(rng, 600)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "corpus.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        for line in extra:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    lines = (read_jsonl(os.path.join(TOKENIZE, "corpus.jsonl")) + read_jsonl(os.path.join(TOKENIZE, "llm",
                                                                                             "corpus.jsonl")) + extra)
    with tempfile.TemporaryDirectory() as tmp:
        plain = train(lines, os.path.join(tmp, "plain"), False, 3000)
        fallback = train(lines, os.path.join(tmp, "fallback"), True, 3000)
    precompiled = normalizers.Precompiled(plain.normalizer_spec.precompiled_charsmap)
    short = ["Ａ\u0308", "ｶ\u3099", "e\u0301", "\u06001", "\r\n", "ﬁ\u0301", "①\u20dd", "㍿", "\u0000ａ", "Å",
             "\u1100\u1161", "ｱ\u200d", "\u3000\u3000", "x\U000e0020", "™\x1eg"]
    with open(os.path.join(out, "precompiled.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        for line in extra + short:
            f.write(json.dumps({"text": line, "normalized": precompiled.normalize_str(line)}, ensure_ascii=False)
                    + "\n")
    for name, doc in {"xlmr-roberta": xlmr_roberta(plain), "xlmr-template": xlmr_template(plain),
                      "byte-fallback": byte_fallback(fallback)}.items():
        write_json(os.path.join(out, name, "tokenizer.json"), doc)
        print("%-14s %5d pieces, charsmap %d bytes" % (name, len(doc["model"]["vocab"]),
                                                        len(plain.normalizer_spec.precompiled_charsmap)))


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
