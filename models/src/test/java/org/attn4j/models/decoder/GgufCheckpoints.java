package org.attn4j.models.decoder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.HostTensor;
import org.attn4j.models.StateDict;
import org.attn4j.models.io.GgufWriter;

/**
 * Turns a Hugging Face Llama or GPT-2 state_dict into a GGUF file the way llama.cpp's {@code convert_hf_to_gguf.py}
 * does: its metadata keys, its tensor names, matrices in the chosen type and vectors in F32, GPT-2's Conv1D
 * matrices transposed to {@code [out, in]} and its LM head written as {@code output.weight}, and the rows of each
 * q and k head reordered by the converter's {@code permute}; each tensor is converted only when the file is written,
 * so a memory-mapped checkpoint larger than the heap converts one tensor at a time. Also random checkpoints and small
 * vocabularies, for tests and benchmarks.
 */
public final class GgufCheckpoints {
    private GgufCheckpoints() {
    }

    /**
     * @param config a gpt2 or llama config (llama: half-split RoPE)
     * @param hf its parameters under Hugging Face names
     * @param matrices the storage type of every matrix (F32, F16, BF16, Q8_0, Q4_0)
     * @return a writer holding the architecture's metadata and tensors; add a tokenizer and write it
     */
    public static GgufWriter fromHuggingFace(DecoderConfig config, StateDict hf, WeightType matrices) {
        GgufWriter w = new GgufWriter().string("general.architecture", arch(config)).string("general.name", "attn4j test")
                .uint32("general.file_type", fileType(matrices)).uint32("general.quantization_version", 2);
        String a = arch(config) + ".";
        w.uint32(a + "context_length", config.maxPositions()).uint32(a + "embedding_length", config.hidden())
                .uint32(a + "block_count", config.layers()).uint32(a + "feed_forward_length", config.intermediate())
                .uint32(a + "attention.head_count", config.heads());
        if (config.type() == DecoderConfig.Type.GPT2) {
            w.float32(a + "attention.layer_norm_epsilon", (float) config.eps());
            Map<String, HostTensor> s = new TreeMap<>();
            hf.asMap().forEach((k, v) -> s.put(k.startsWith("transformer.") ? k.substring(12) : k, v));
            put(w, "token_embd.weight", s.get("wte.weight"), matrices);
            put(w, "position_embd.weight", s.get("wpe.weight"), matrices);
            put(w, "output_norm.weight", s.get("ln_f.weight"), matrices);
            put(w, "output_norm.bias", s.get("ln_f.bias"), matrices);
            put(w, "output.weight", s.get("wte.weight"), matrices);
            for (int l = 0; l < config.layers(); l++) {
                String p = "h." + l + ".";
                String b = "blk." + l + ".";
                for (String[] m : new String[][] {{"ln_1", "attn_norm"}, {"attn.c_attn", "attn_qkv"},
                    {"attn.c_proj", "attn_output"}, {"ln_2", "ffn_norm"}, {"mlp.c_fc", "ffn_up"},
                    {"mlp.c_proj", "ffn_down"}}) {
                    HostTensor weight = s.get(p + m[0] + ".weight");
                    put(w, b + m[1] + ".weight", weight.shape().rank() == 2 ? weight.transpose() : weight, matrices);
                    put(w, b + m[1] + ".bias", s.get(p + m[0] + ".bias"), matrices);
                }
            }
            return w;
        }
        RopeScaling rope = config.rope(0);
        if (rope.layout() != RopeLayout.HALF_SPLIT || !rope.kind().equals("default") || rope.dim() != config.headDim()) {
            throw new IllegalArgumentException("GgufCheckpoints: llama.cpp's llama has Hugging Face's half-split,"
                    + " unscaled RoPE over whole heads");
        }
        w.uint32(a + "attention.head_count_kv", config.kvHeads()).float32(a + "rope.freq_base", (float) rope.base())
                .float32(a + "attention.layer_norm_rms_epsilon", (float) config.eps())
                .uint32(a + "rope.dimension_count", config.headDim()).uint32(a + "vocab_size", config.vocabSize());
        if (config.window(0) > 0) {
            w.uint32(a + "attention.sliding_window", config.window(0));
        }
        put(w, "token_embd.weight", hf.get("model.embed_tokens.weight"), matrices);
        put(w, "output_norm.weight", hf.get("model.norm.weight"), matrices);
        if (hf.contains("lm_head.weight")) {
            put(w, "output.weight", hf.get("lm_head.weight"), matrices);
        }
        for (int l = 0; l < config.layers(); l++) {
            String p = "model.layers." + l + ".";
            String b = "blk." + l + ".";
            put(w, b + "attn_norm.weight", hf.get(p + "input_layernorm.weight"), matrices);
            putPermuted(w, b + "attn_q.weight", hf.get(p + "self_attn.q_proj.weight"), config.heads(), matrices);
            putPermuted(w, b + "attn_k.weight", hf.get(p + "self_attn.k_proj.weight"), config.kvHeads(), matrices);
            put(w, b + "attn_v.weight", hf.get(p + "self_attn.v_proj.weight"), matrices);
            put(w, b + "attn_output.weight", hf.get(p + "self_attn.o_proj.weight"), matrices);
            put(w, b + "ffn_norm.weight", hf.get(p + "post_attention_layernorm.weight"), matrices);
            put(w, b + "ffn_gate.weight", hf.get(p + "mlp.gate_proj.weight"), matrices);
            put(w, b + "ffn_up.weight", hf.get(p + "mlp.up_proj.weight"), matrices);
            put(w, b + "ffn_down.weight", hf.get(p + "mlp.down_proj.weight"), matrices);
        }
        return w;
    }

    private static String arch(DecoderConfig config) {
        return config.type() == DecoderConfig.Type.GPT2 ? "gpt2" : "llama";
    }

    /** llama.cpp's {@code LlamaFileType}: ALL_F32 0, MOSTLY_F16 1, MOSTLY_Q4_0 2, MOSTLY_Q8_0 7, MOSTLY_BF16 32. */
    private static int fileType(WeightType t) {
        return switch (t) {
            case F32, F64 -> 0;
            case F16 -> 1;
            case Q4_0 -> 2;
            case Q8_0 -> 7;
            case BF16 -> 32;
        };
    }

    /**
     * Matrices in the chosen type, everything else in F32, as llama.cpp's converter does (all in F64 when F64 is
     * chosen, which ggml defines and tests use to hold float64 goldens exactly).
     */
    private static void put(GgufWriter w, String name, HostTensor t, WeightType matrices) {
        if (t == null) {
            throw new IllegalArgumentException("GgufCheckpoints: no tensor for " + name);
        }
        WeightType type = t.shape().rank() == 2 || matrices == WeightType.F64 ? matrices : WeightType.F32;
        w.tensor(name, t.shape(), type, () -> convert(t, type));
    }

    /** {@link #put} of a q or k projection with its rows in the converter's order ({@link #permute}). */
    private static void putPermuted(GgufWriter w, String name, HostTensor t, int heads, WeightType matrices) {
        if (t == null) {
            throw new IllegalArgumentException("GgufCheckpoints: no tensor for " + name);
        }
        w.tensor(name, t.shape(), matrices, () -> convert(permute(t, heads), matrices));
    }

    /** @return the tensor's values stored in {@code type} (its own bytes when it has that type already) */
    public static HostTensor convert(HostTensor t, WeightType type) {
        if (t.type() == type) {
            return t;
        }
        int cols = t.shape().dim(-1);
        Shape rows = Shape.of(Math.toIntExact(t.shape().size() / cols), cols);
        return HostTensor.wrap(t.shape(), type, type.encode(t.toFloatArray(), rows));
    }

    /**
     * llama.cpp's {@code permute(w, n_head, n_head_kv)}, written as the converter's numpy expression
     * {@code w.reshape(n_head, 2, d/2, in).swapaxes(1, 2).reshape(w.shape)}: the element at
     * {@code [h, half, j, c]} moves to {@code [h, j, half, c]}.
     */
    static HostTensor permute(HostTensor w, int heads) {
        int rows = w.shape().dim(0);
        int cols = w.shape().dim(1);
        int d = rows / heads;
        double[] in = w.data();
        double[] out = new double[in.length];
        for (int h = 0; h < heads; h++) {
            for (int half = 0; half < 2; half++) {
                for (int j = 0; j < d / 2; j++) {
                    int from = ((h * 2 + half) * (d / 2) + j) * cols;
                    int to = ((h * (d / 2) + j) * 2 + half) * cols;
                    System.arraycopy(in, from, out, to, cols);
                }
            }
        }
        return HostTensor.of(out, rows, cols);
    }

    /**
     * A seeded random Llama in Hugging Face names, F32, every matrix's rows already rounded through {@code type}
     * (quantized and dequantized), so that a GGUF file of that type holds exactly these values.
     */
    public static StateDict randomLlama(DecoderConfig c, WeightType type, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int e = c.hidden();
        int q = c.heads() * c.headDim();
        int kv = c.kvHeads() * c.headDim();
        Map<String, HostTensor> m = new LinkedHashMap<>();
        m.put("model.embed_tokens.weight", matrix(r, c.vocabSize(), e, 1.0, type));
        for (int l = 0; l < c.layers(); l++) {
            String p = "model.layers." + l + ".";
            m.put(p + "input_layernorm.weight", vector(r, e));
            m.put(p + "self_attn.q_proj.weight", matrix(r, q, e, 1 / Math.sqrt(e), type));
            m.put(p + "self_attn.k_proj.weight", matrix(r, kv, e, 1 / Math.sqrt(e), type));
            m.put(p + "self_attn.v_proj.weight", matrix(r, kv, e, 1 / Math.sqrt(e), type));
            m.put(p + "self_attn.o_proj.weight", matrix(r, e, q, 1 / Math.sqrt(q), type));
            m.put(p + "post_attention_layernorm.weight", vector(r, e));
            m.put(p + "mlp.gate_proj.weight", matrix(r, c.intermediate(), e, 1 / Math.sqrt(e), type));
            m.put(p + "mlp.up_proj.weight", matrix(r, c.intermediate(), e, 1 / Math.sqrt(e), type));
            m.put(p + "mlp.down_proj.weight", matrix(r, e, c.intermediate(), 1 / Math.sqrt(c.intermediate()), type));
        }
        m.put("model.norm.weight", vector(r, e));
        if (!c.tiedEmbeddings()) {
            m.put("lm_head.weight", matrix(r, c.vocabSize(), e, 1 / Math.sqrt(e), type));
        }
        return StateDict.of(m);
    }

    /** A seeded random GPT-2 in Hugging Face names (Conv1D {@code [in, out]}), rounded through {@code type}. */
    public static StateDict randomGpt2(DecoderConfig c, WeightType type, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int e = c.hidden();
        Map<String, HostTensor> m = new LinkedHashMap<>();
        m.put("wte.weight", matrix(r, c.vocabSize(), e, 1.0, type));
        m.put("wpe.weight", matrix(r, c.maxPositions(), e, 0.1, type));
        for (int l = 0; l < c.layers(); l++) {
            String p = "h." + l + ".";
            m.put(p + "ln_1.weight", vector(r, e));
            m.put(p + "ln_1.bias", vector(r, e));
            m.put(p + "attn.c_attn.weight", matrix(r, 3 * e, e, 1 / Math.sqrt(e), type).transpose());
            m.put(p + "attn.c_attn.bias", vector(r, 3 * e));
            m.put(p + "attn.c_proj.weight", matrix(r, e, e, 1 / Math.sqrt(e), type).transpose());
            m.put(p + "attn.c_proj.bias", vector(r, e));
            m.put(p + "ln_2.weight", vector(r, e));
            m.put(p + "ln_2.bias", vector(r, e));
            m.put(p + "mlp.c_fc.weight", matrix(r, 4 * e, e, 1 / Math.sqrt(e), type).transpose());
            m.put(p + "mlp.c_fc.bias", vector(r, 4 * e));
            m.put(p + "mlp.c_proj.weight", matrix(r, e, 4 * e, 1 / Math.sqrt(4 * e), type).transpose());
            m.put(p + "mlp.c_proj.bias", vector(r, e));
        }
        m.put("ln_f.weight", vector(r, e));
        m.put("ln_f.bias", vector(r, e));
        return StateDict.of(m);
    }

    private static HostTensor matrix(SplittableRandom r, int rows, int cols, double scale, WeightType type) {
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (scale * (2 * r.nextDouble() - 1) * Math.sqrt(3));
        }
        Shape s = Shape.of(rows, cols);
        return HostTensor.of(type.decode(type.encode(v, s), s), rows, cols);
    }

    private static HostTensor vector(SplittableRandom r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (1 + 0.2 * (2 * r.nextDouble() - 1));
        }
        return HostTensor.of(v, n);
    }

    /**
     * A SentencePiece vocabulary of {@code size} tokens as llama.cpp's converter writes Llama 2's: {@code <unk>}
     * (unknown), {@code <s>} and {@code </s>} (control), the 256 byte tokens {@code <0x00>}…, then pieces scored so
     * that the longer merge first: {@code ▁}, the letters, and the pieces of a few words.
     */
    public static GgufWriter sentencePiece(GgufWriter w, int size) {
        List<String> tokens = new ArrayList<>(List.of("<unk>", "<s>", "</s>"));
        List<Integer> types = new ArrayList<>(List.of(2, 3, 3));
        for (int b = 0; b < 256; b++) {
            tokens.add(String.format("<0x%02X>", b));
            types.add(6);
        }
        List<String> pieces = new ArrayList<>(List.of("\u2581"));
        for (char c = 'a'; c <= 'z'; c++) {
            pieces.add(String.valueOf(c));
        }
        for (String word : List.of("\u2581hello", "\u2581world", "\u2581the", "\u2581tokens", "ing", "\u2581a")) {
            for (int end = 2; end <= word.length(); end++) {
                String p = word.substring(0, end);
                if (!pieces.contains(p)) {
                    pieces.add(p);
                }
            }
        }
        pieces.add(".");
        pieces.add(",");
        for (int i = 0; tokens.size() < size; i++) {
            tokens.add(i < pieces.size() ? pieces.get(i) : "<extra_" + i + ">");
            types.add(i < pieces.size() ? 1 : 5);
        }
        float[] scores = new float[tokens.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = types.get(i) == 1 ? tokens.get(i).length() * 10f - i * 0.01f : 0f;
        }
        return w.string("tokenizer.ggml.model", "llama").strings("tokenizer.ggml.tokens", tokens.subList(0, size))
                .floats("tokenizer.ggml.scores", java.util.Arrays.copyOf(scores, size))
                .int32s("tokenizer.ggml.token_type", types.subList(0, size).stream().mapToInt(Integer::intValue)
                        .toArray())
                .uint32("tokenizer.ggml.bos_token_id", 1).uint32("tokenizer.ggml.eos_token_id", 2)
                .uint32("tokenizer.ggml.unknown_token_id", 0).bool("tokenizer.ggml.add_bos_token", true)
                .bool("tokenizer.ggml.add_eos_token", false);
    }

    /**
     * A byte-level BPE vocabulary as llama.cpp's converter writes GPT-2's.
     *
     * @param tokens the tokens by id (GPT-2's byte-to-unicode spelling)
     * @param merges {@code "a b"} by rank
     * @param pre the pre-tokenizer name
     * @param control ids of control tokens ({@code <|endoftext|>}), the last of them BOS and EOS, or none
     */
    public static GgufWriter byteLevelBpe(GgufWriter w, List<String> tokens, List<String> merges, String pre,
                                          int... control) {
        int[] types = new int[tokens.size()];
        java.util.Arrays.fill(types, 1);
        for (int id : control) {
            types[id] = 3;
        }
        w.string("tokenizer.ggml.model", "gpt2").string("tokenizer.ggml.pre", pre).strings("tokenizer.ggml.tokens",
                tokens).int32s("tokenizer.ggml.token_type", types).strings("tokenizer.ggml.merges", merges);
        if (control.length > 0) {
            int special = control[control.length - 1];
            w.uint32("tokenizer.ggml.bos_token_id", special).uint32("tokenizer.ggml.eos_token_id", special);
        }
        return w;
    }
}
