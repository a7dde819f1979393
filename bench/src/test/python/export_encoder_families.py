#!/usr/bin/python3
"""Write one random-weight model folder per encoder family at its real size, and the same model as an ONNX graph.

For EncoderFamiliesMain (bench test scope), which runs each folder with attn4j and each graph with ONNX Runtime on
the same token ids. Run by hand, never by the build; the output is not committed (hundreds of MiB per family):

    /usr/bin/python3 bench/src/test/python/export_encoder_families.py [--small] [--out DIR] [--families a,b]

(torch and onnx from Debian's python3-torch and python3-onnx.) Under DIR (default bench/target/families, with
--small bench/target/families-small) it writes, per family:

    DIR/<family>/          config.json (the real model's keys), model.safetensors (F32, random weights under the
                           real state_dict names), tokenizer.json, modules.json and 1_Pooling/config.json (the real
                           model's pooling, then Normalize)
    DIR/onnx/<family>/model.onnx   the family's forward, float32, inputs input_ids and attention_mask [batch,
                           sequence] (int64; the decoder's graph has input_ids alone), output last_hidden_state
                           [batch, sequence, hidden]; tensors past ONNX's 2 GiB limit in files beside it

    family      real model                    shape
    bert        BAAI/bge-base-en-v1.5         768 x 12 layers, CLS pooling
    xlmr        intfloat/multilingual-e5-base 768 x 12, vocabulary 250002, mean pooling
    mpnet       all-mpnet-base-v2             768 x 12, relative position buckets, mean pooling
    nomic       nomic-embed-text-v1.5         768 x 12, rotary, SwiGLU, mean pooling
    modernbert  gte-modernbert-base           768 x 22, global and local (128) attention, CLS pooling
    gte         gte-base-en-v1.5              768 x 12, NTK-scaled rotary, CLS pooling
    qwen3       Qwen3-Embedding-0.6B          1024 x 28, 16 query and 8 key/value heads, last-token pooling

--small writes the same families 64 wide with 2 layers (ModernBERT 3, so that local and global layers both occur)
and a vocabulary of 1000, to try the bench in seconds.

The weights and the forward of each family are those of the reference outputs the tests compare against
(models/src/test/python: generate_bert_fixture.forward, generate_encoder_families.xlmr_forward / mpnet_forward,
generate_rotary_encoder_fixtures.nomic_forward / modernbert_forward / gte_forward; tck/src/golden:
decoder_families._lineage_blocks), run here on float32 parameters, so the graph is what the goldens compute, in
float32. Token types are all 0. The decoder's graph is causal without a padding mask: EncoderFamiliesMain feeds
rows of one length.

The tokenizer is a WordPiece tokenizer.json whose vocabulary is the config's: [PAD] [UNK] [CLS] [SEP] [MASK] as ids
0 to 4, then the words t5, t6, … so that a text of words tN is the ids N between [CLS] (2) and [SEP] (3), in every
family. The largest, Qwen3-Embedding-0.6B (2.4 GB of F32 parameters), needs several times that in memory to export.
"""

import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "models", "src", "test", "python"))
sys.path.insert(0, os.path.join(ROOT, "tck", "src", "golden"))

import decoder_families as decoders  # noqa: E402
import generate_bert_fixture as bert  # noqa: E402
import generate_encoder_families as families  # noqa: E402
import generate_qwen3_encoder_folders as qwen3  # noqa: E402
import generate_rotary_encoder_fixtures as rotary  # noqa: E402

torch.set_default_dtype(torch.float32)

BERT = dict(bert.CONFIG, vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
            intermediate_size=3072, max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12,
            pad_token_id=0)
XLMR = dict(families.XLMR, vocab_size=250002, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
            intermediate_size=3072, max_position_embeddings=514)
MPNET = dict(families.MPNET, vocab_size=30527, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
             intermediate_size=3072, max_position_embeddings=514)
NOMIC = dict(rotary.NOMIC, vocab_size=30528, n_embd=768, n_head=12, n_layer=12, n_inner=3072, n_positions=8192,
             pad_vocab_size_multiple=64, rotary_emb_fraction=1.0, rotary_emb_base=1000)
MODERNBERT = dict(rotary.MODERNBERT, vocab_size=50368, hidden_size=768, num_hidden_layers=22,
                  num_attention_heads=12, intermediate_size=1152, max_position_embeddings=8192, local_attention=128)
GTE = dict(rotary.GTE, vocab_size=30528, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
           intermediate_size=3072, max_position_embeddings=8192)
QWEN3 = dict(qwen3.CONFIG, vocab_size=151669, hidden_size=1024, num_hidden_layers=28, num_attention_heads=16,
             num_key_value_heads=8, head_dim=128, intermediate_size=3072, max_position_embeddings=32768,
             max_window_layers=28, bos_token_id=151643, eos_token_id=151643)

SMALL = {"bert": dict(BERT, vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=96, max_position_embeddings=64),
         "xlmr": dict(XLMR, vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=96, max_position_embeddings=66),
         "mpnet": dict(MPNET, vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                       intermediate_size=96, max_position_embeddings=66),
         "nomic": dict(NOMIC, vocab_size=1000, n_embd=64, n_head=4, n_layer=2, n_inner=96, n_positions=64),
         "modernbert": dict(MODERNBERT, vocab_size=1000, hidden_size=64, num_hidden_layers=3, num_attention_heads=4,
                            intermediate_size=96, max_position_embeddings=64, local_attention=8),
         "gte": dict(GTE, vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=96, max_position_embeddings=64),
         "qwen3": dict(QWEN3, vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                       num_key_value_heads=2, head_dim=16, intermediate_size=96, max_window_layers=2)}


# Opset 14, as transformers' own ONNX exports use: layer norms are exported as their arithmetic and ONNX Runtime's
# optimizer fuses them back. (ONNX Runtime 1.26 crashes creating a session on ModernBERT's opset-17 graph, whose
# LayerNormalization nodes have no bias.)
OPSET = 14


def zeros(ids):
    return torch.zeros_like(ids)


def qwen3_weights(c):
    state = decoders.random_state(c, torch.Generator().manual_seed(2026_12_07))
    return {k[len("model."):]: v for k, v in state.items()}


def qwen3_forward(sd, ids, mask, c):
    return decoders._lineage_blocks(c, {"model." + k: v for k, v in sd.items()}, ids, 0, decoders.Cache(c))


# family -> (real config, weights(config) as stored, forward(stored weights, ids, mask, config), pooling)
FAMILIES = {
    "bert": (BERT, lambda c: families.xlmr_weights(c, "", 2026_12_01, pooler=True)[0],
             lambda sd, ids, mask, c: bert.forward(sd, ids, zeros(ids), mask, c)[0], "cls"),
    "xlmr": (XLMR, lambda c: families.xlmr_weights(c, "", 2026_12_02, pooler=True)[0],
             lambda sd, ids, mask, c: families.xlmr_forward(sd, "", c, ids, mask)[0], "mean"),
    "mpnet": (MPNET, lambda c: families.mpnet_weights(c, 2026_12_03),
              lambda sd, ids, mask, c: families.mpnet_forward(sd, c, ids, mask)[0], "mean"),
    "nomic": (NOMIC, lambda c: rotary.nomic_weights(torch.Generator().manual_seed(2026_12_04), c),
              lambda sd, ids, mask, c: rotary.nomic_forward(sd, ids, zeros(ids), mask, c)[0], "mean"),
    "modernbert": (MODERNBERT, lambda c: rotary.modernbert_weights(torch.Generator().manual_seed(2026_12_05), c),
                   lambda sd, ids, mask, c: rotary.modernbert_forward(sd, ids, None, mask, c)[0], "cls"),
    "gte": (GTE, lambda c: rotary.gte_weights(torch.Generator().manual_seed(2026_12_06), c),
            lambda sd, ids, mask, c: rotary.gte_forward(sd, ids, zeros(ids), mask, c)[0], "cls"),
    "qwen3": (QWEN3, qwen3_weights, qwen3_forward, "lasttoken"),
}


class Graph(torch.nn.Module):
    """A family's forward over its parameters, held as buffers so that they export as the graph's initializers."""

    def __init__(self, sd, forward, config):
        super().__init__()
        self.names = sorted(sd)
        for i, name in enumerate(self.names):
            self.register_buffer("p%d" % i, sd[name])
        self.run = forward
        self.config = config

    def forward(self, input_ids, attention_mask):
        sd = {name: getattr(self, "p%d" % i) for i, name in enumerate(self.names)}
        return self.run(sd, input_ids, attention_mask, self.config)


def tokenizer_json(vocab_size):
    """bert.tokenizer_json()'s WordPiece layout over [PAD] [UNK] [CLS] [SEP] [MASK] t5 … t(vocab_size - 1)."""
    tokenizer = bert.tokenizer_json()
    words = bert.VOCAB[:5] + ["t%d" % i for i in range(5, vocab_size)]
    tokenizer["model"]["vocab"] = {w: i for i, w in enumerate(words)}
    return tokenizer


def write_folder(folder, config, sd, pooling):
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    families.write_json(os.path.join(folder, "config.json"), config)
    families.write_safetensors(os.path.join(folder, "model.safetensors"), sd)
    vocab = config["vocab_size"]
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(vocab), f, ensure_ascii=False)
    families.write_json(os.path.join(folder, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])
    width = config.get("hidden_size") or config["n_embd"]
    modes = {"cls": "pooling_mode_cls_token", "mean": "pooling_mode_mean_tokens", "lasttoken": "pooling_mode_lasttoken"}
    families.write_json(os.path.join(folder, "1_Pooling", "config.json"),
                        dict({m: m == modes[pooling] for m in modes.values()}, word_embedding_dimension=width,
                             include_prompt=True))


def export(path, graph, decoder):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    ids = torch.randint(5, 100, (2, 16))
    mask = torch.ones_like(ids)
    inputs = ["input_ids"] if decoder else ["input_ids", "attention_mask"]
    axes = {name: {0: "batch", 1: "sequence"} for name in inputs}
    axes["last_hidden_state"] = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(graph, (ids, mask), path, input_names=inputs, output_names=["last_hidden_state"],
                          dynamic_axes=axes, opset_version=OPSET, do_constant_folding=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--small", action="store_true", help="64 wide, 2 or 3 layers, vocabulary 1000")
    parser.add_argument("--out", help="the folder to write (default bench/target/families[-small])")
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated, of " + ", ".join(FAMILIES))
    args = parser.parse_args()
    out = args.out or os.path.join(ROOT, "bench", "target", "families-small" if args.small else "families")
    for name in args.families.split(","):
        if name not in FAMILIES:
            sys.exit("unknown family '%s'; the families are %s" % (name, ", ".join(FAMILIES)))
        config, weights, forward, pooling = FAMILIES[name]
        config = SMALL[name] if args.small else config
        sd = {k: v.to(torch.float32) for k, v in weights(config).items()}
        write_folder(os.path.join(out, name), config, sd, pooling)
        export(os.path.join(out, "onnx", name, "model.onnx"), Graph(sd, forward, config).eval(), name == "qwen3")
        print("%s: %d parameters, %s" % (name, sum(t.numel() for t in sd.values()), os.path.join(out, name)))


if __name__ == "__main__":
    main()
