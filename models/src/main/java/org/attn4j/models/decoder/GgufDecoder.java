package org.attn4j.models.decoder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.attn4j.models.HostTensor;
import org.attn4j.models.StateDict;
import org.attn4j.models.io.Gguf;

/**
 * A decoder's config and parameters from a GGUF file as llama.cpp's converter writes it: the architecture from
 * {@code general.architecture}, the hyper-parameters from {@code <arch>.*} keys, and llama.cpp's tensor names mapped
 * to Hugging Face's, so that the same {@link Llama} and {@link Gpt2} run them.
 *
 * <p>Every {@code <arch>.*} key is either honoured, checked to have the one value attn4j computes with (for
 * example {@code rope.dimension_count} equal to the head size, or {@code rope.scaling.type} {@code none}), or refused
 * by name: a key that could change the numbers is never ignored. Keys under {@code general.}, {@code tokenizer.}
 * and {@code quantize.} describe the file, its tokenizer (read by
 * {@link org.attn4j.models.tokenize.Tokenizer#fromGguf}) and how it was quantized; {@code split.count} above 1 (a
 * model split over several files) is refused; any other namespace is refused.
 *
 * <p>llama.cpp's converter reorders the rows of each head of {@code q_proj} and {@code k_proj} from Hugging
 * Face's half-split rotary layout to the interleaved pairs its {@code llama} graph rotates
 * ({@code permute(w, n_head, n_head_kv)}: within a head of {@code d} rows, row {@code 2i} is the original row
 * {@code i} and row {@code 2i + 1} the original row {@code d/2 + i}). The loader puts the rows back, whole rows in
 * the file's storage type, so the model runs with Hugging Face's layout and equals the checkpoint it came from.
 */
final class GgufDecoder {
    private static final Set<String> LLAMA_KEYS = Set.of("context_length", "embedding_length", "block_count",
            "feed_forward_length", "attention.head_count", "attention.head_count_kv", "rope.freq_base",
            "attention.layer_norm_rms_epsilon", "rope.dimension_count", "attention.key_length",
            "attention.value_length", "vocab_size", "attention.sliding_window", "rope.scaling.type",
            "rope.scaling.factor", "rope.scale_linear", "rope.scaling.original_context_length",
            "rope.scaling.finetuned", "expert_count", "expert_used_count");
    private static final Set<String> GPT2_KEYS = Set.of("context_length", "embedding_length", "block_count",
            "feed_forward_length", "attention.head_count", "attention.head_count_kv", "attention.layer_norm_epsilon",
            "vocab_size");
    private static final Map<String, String> PENDING = Map.of(
            "qwen2", "Qwen2", "qwen3", "Qwen3", "gemma", "Gemma", "gemma2", "Gemma 2", "gemma3", "Gemma 3",
            "phi3", "Phi-3", "mistral3", "Mistral 3");

    private GgufDecoder() {
    }

    /** A config and its parameters under Hugging Face names, in the file's storage types. */
    record Checkpoint(DecoderConfig config, StateDict state) {
    }

    /**
     * @param gguf a GGUF file's contents
     * @return the decoder it describes
     * @throws IllegalArgumentException if the architecture, a key or a tensor is not one attn4j runs as written
     */
    static Checkpoint read(Gguf.Contents gguf) {
        try {
            String arch = gguf.string("general.architecture");
            checkNamespaces(gguf, arch);
            return switch (arch) {
                case "llama" -> llama(gguf);
                case "gpt2" -> gpt2(gguf);
                default -> throw new IllegalArgumentException("gguf: general.architecture " + arch + " is not "
                        + "supported" + (PENDING.containsKey(arch) ? " yet from GGUF (" + PENDING.get(arch)
                        + " is a Hugging Face family attn4j is adding)" : "") + "; supported: llama, gpt2");
            };
        } catch (Gguf.FormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static void checkNamespaces(Gguf.Contents gguf, String arch) throws Gguf.FormatException {
        Set<String> honoured = arch.equals("gpt2") ? GPT2_KEYS : LLAMA_KEYS;
        List<String> refused = new ArrayList<>();
        for (String key : gguf.metadata().keySet()) {
            if (key.startsWith("general.") || key.startsWith("tokenizer.") || key.startsWith("quantize.")) {
                continue;
            }
            if (key.startsWith("split.")) {
                if (key.equals("split.count") && gguf.integer(key) > 1) {
                    refused.add("split.count = " + gguf.integer(key) + " (a model split over several files)");
                }
                continue;
            }
            if (key.startsWith(arch + ".") && honoured.contains(key.substring(arch.length() + 1))) {
                continue;
            }
            refused.add(key);
        }
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException("gguf: " + arch + " metadata attn4j does not honour, refused rather than"
                    + " ignored: " + String.join(", ", new TreeSet<>(refused)));
        }
    }

    private static Checkpoint llama(Gguf.Contents g) throws Gguf.FormatException {
        String a = "llama.";
        int hidden = count(g, a + "embedding_length");
        int heads = count(g, a + "attention.head_count");
        int kvHeads = g.has(a + "attention.head_count_kv") ? count(g, a + "attention.head_count_kv") : heads;
        if (heads < 1 || hidden % heads != 0) {
            throw new IllegalArgumentException("gguf: llama.embedding_length " + hidden
                    + " is not a multiple of llama.attention.head_count " + heads);
        }
        int headDim = hidden / heads;
        for (String key : List.of("rope.dimension_count", "attention.key_length", "attention.value_length")) {
            if (g.has(a + key) && g.integer(a + key) != headDim) {
                throw new IllegalArgumentException("gguf: " + a + key + " is " + g.integer(a + key)
                        + " but attn4j's llama rotates and attends over whole heads of embedding_length / head_count"
                        + " = " + headDim);
            }
        }
        checkRopeScaling(g, a);
        for (String key : List.of("expert_count", "expert_used_count")) {
            if (g.has(a + key) && g.integer(a + key) != 0) {
                throw new IllegalArgumentException("gguf: " + a + key + " is " + g.integer(a + key)
                        + "; mixture-of-experts models are not supported");
            }
        }
        StateDict tensors = g.tensors();
        boolean tied = !tensors.contains("output.weight");
        Map<String, Object> json = new LinkedHashMap<>();
        boolean windowed = g.has(a + "attention.sliding_window");
        json.put("model_type", windowed ? "mistral" : "llama");
        json.put("vocab_size", vocab(g, a));
        json.put("hidden_size", hidden);
        json.put("num_hidden_layers", count(g, a + "block_count"));
        json.put("num_attention_heads", heads);
        json.put("num_key_value_heads", kvHeads);
        json.put("intermediate_size", count(g, a + "feed_forward_length"));
        json.put("rms_norm_eps", g.number(a + "attention.layer_norm_rms_epsilon"));
        json.put("max_position_embeddings", count(g, a + "context_length"));
        json.put("rope_theta", g.has(a + "rope.freq_base") ? g.number(a + "rope.freq_base") : 10_000.0);
        json.put("tie_word_embeddings", tied);
        if (windowed) {
            json.put("sliding_window", count(g, a + "attention.sliding_window"));
        }
        DecoderConfig config = DecoderConfig.of(json, "the GGUF file's llama metadata");
        Map<String, HostTensor> hf = new HashMap<>();
        List<String> unknown = new ArrayList<>();
        for (String name : tensors.names()) {
            HostTensor t = tensors.get(name);
            String mapped = llamaName(name);
            if (mapped == null) {
                unknown.add(name);
                continue;
            }
            if (name.endsWith(".attn_q.weight")) {
                t = unpermute(name, t, heads, headDim);
            } else if (name.endsWith(".attn_k.weight")) {
                t = unpermute(name, t, kvHeads, headDim);
            }
            hf.put(mapped, t);
        }
        refuseUnknown(unknown, "llama");
        return new Checkpoint(config, StateDict.of(hf));
    }

    private static void checkRopeScaling(Gguf.Contents g, String a) throws Gguf.FormatException {
        String type = g.has(a + "rope.scaling.type") ? g.string(a + "rope.scaling.type") : "none";
        double factor = g.has(a + "rope.scaling.factor") ? g.number(a + "rope.scaling.factor") : 1.0;
        double linear = g.has(a + "rope.scale_linear") ? g.number(a + "rope.scale_linear") : 1.0;
        boolean neutral = (type.equals("none") || type.equals("linear")) && (factor == 1.0 || type.equals("none"))
                && linear == 1.0;
        if (!neutral) {
            throw new IllegalArgumentException("gguf: " + a + "rope.scaling.type " + type + " with factor " + factor
                    + (linear != 1.0 ? " (rope.scale_linear " + linear + ")" : "")
                    + " is not supported; attn4j's llama rotates with unscaled frequencies");
        }
    }

    private static String llamaName(String name) {
        switch (name) {
            case "token_embd.weight":
                return "model.embed_tokens.weight";
            case "output_norm.weight":
                return "model.norm.weight";
            case "output.weight":
                return "lm_head.weight";
            default:
                break;
        }
        String[] block = block(name);
        if (block == null) {
            return null;
        }
        String p = "model.layers." + block[0] + ".";
        return switch (block[1]) {
            case "attn_norm.weight" -> p + "input_layernorm.weight";
            case "attn_q.weight" -> p + "self_attn.q_proj.weight";
            case "attn_k.weight" -> p + "self_attn.k_proj.weight";
            case "attn_v.weight" -> p + "self_attn.v_proj.weight";
            case "attn_output.weight" -> p + "self_attn.o_proj.weight";
            case "ffn_norm.weight" -> p + "post_attention_layernorm.weight";
            case "ffn_gate.weight" -> p + "mlp.gate_proj.weight";
            case "ffn_up.weight" -> p + "mlp.up_proj.weight";
            case "ffn_down.weight" -> p + "mlp.down_proj.weight";
            default -> null;
        };
    }

    private static Checkpoint gpt2(Gguf.Contents g) throws Gguf.FormatException {
        String a = "gpt2.";
        int hidden = count(g, a + "embedding_length");
        int heads = count(g, a + "attention.head_count");
        if (g.has(a + "attention.head_count_kv") && g.integer(a + "attention.head_count_kv") != heads) {
            throw new IllegalArgumentException("gguf: gpt2.attention.head_count_kv " + g.integer(a
                    + "attention.head_count_kv") + " differs from gpt2.attention.head_count " + heads
                    + "; GPT-2 has as many key/value heads as query heads");
        }
        if (g.has(a + "feed_forward_length") && g.integer(a + "feed_forward_length") != 4L * hidden) {
            throw new IllegalArgumentException("gguf: gpt2.feed_forward_length " + g.integer(a
                    + "feed_forward_length") + " is not 4 × embedding_length " + hidden + ", as GPT-2's MLP is");
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("model_type", "gpt2");
        json.put("vocab_size", vocab(g, a));
        json.put("n_embd", hidden);
        json.put("n_layer", count(g, a + "block_count"));
        json.put("n_head", heads);
        json.put("n_positions", count(g, a + "context_length"));
        json.put("layer_norm_epsilon", g.number(a + "attention.layer_norm_epsilon"));
        json.put("tie_word_embeddings", !g.tensors().contains("output.weight"));
        DecoderConfig config = DecoderConfig.of(json, "the GGUF file's gpt2 metadata");
        Map<String, HostTensor> hf = new HashMap<>();
        List<String> unknown = new ArrayList<>();
        for (String name : g.tensors().names()) {
            String mapped = gpt2Name(name);
            if (mapped == null) {
                unknown.add(name);
            } else {
                hf.put(mapped, g.tensors().get(name));
            }
        }
        refuseUnknown(unknown, "gpt2");
        return new Checkpoint(config, StateDict.of(hf));
    }

    private static String gpt2Name(String name) {
        switch (name) {
            case "token_embd.weight":
                return "wte.weight";
            case "position_embd.weight":
                return "wpe.weight";
            case "output_norm.weight":
                return "ln_f.weight";
            case "output_norm.bias":
                return "ln_f.bias";
            case "output.weight":
                return "lm_head.weight";
            default:
                break;
        }
        String[] block = block(name);
        if (block == null) {
            return null;
        }
        String p = "h." + block[0] + ".";
        int dot = block[1].lastIndexOf('.');
        String kind = block[1].substring(dot + 1);
        if (!kind.equals("weight") && !kind.equals("bias")) {
            return null;
        }
        String module = switch (block[1].substring(0, dot)) {
            case "attn_norm" -> "ln_1";
            case "attn_qkv" -> "attn.c_attn";
            case "attn_output" -> "attn.c_proj";
            case "ffn_norm" -> "ln_2";
            case "ffn_up" -> "mlp.c_fc";
            case "ffn_down" -> "mlp.c_proj";
            default -> null;
        };
        return module == null ? null : p + module + "." + kind;
    }

    /** @return {@code [N, rest]} of a name {@code blk.N.rest}, or null */
    private static String[] block(String name) {
        if (!name.startsWith("blk.")) {
            return null;
        }
        int dot = name.indexOf('.', 4);
        if (dot < 0 || !name.substring(4, dot).matches("[0-9]{1,6}")) {
            return null;
        }
        return new String[] {String.valueOf(Integer.parseInt(name.substring(4, dot))), name.substring(dot + 1)};
    }

    private static void refuseUnknown(List<String> unknown, String arch) {
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("gguf: tensors attn4j's " + arch + " decoder does not know, refused "
                    + "rather than ignored: " + String.join(", ", unknown));
        }
    }

    /**
     * Undoes llama.cpp's {@code permute(w, n_head, n_head_kv)}: within each head's {@code d} rows, file row
     * {@code 2i} goes back to row {@code i} and file row {@code 2i + 1} to row {@code d/2 + i}.
     */
    static HostTensor unpermute(String name, HostTensor t, int heads, int headDim) {
        if (t.shape().rank() != 2 || t.shape().dim(0) != heads * headDim || headDim % 2 != 0) {
            throw new IllegalArgumentException("gguf: tensor " + name + " has shape " + t.shape() + ", expected "
                    + heads * headDim + " rows (" + heads + " heads of " + headDim + ", an even size)");
        }
        List<HostTensor> rows = new ArrayList<>(heads * headDim);
        for (int h = 0; h < heads; h++) {
            int base = h * headDim;
            for (int half = 0; half < 2; half++) {
                for (int i = 0; i < headDim / 2; i++) {
                    int row = base + 2 * i + half;
                    rows.add(t.rows(row, row + 1));
                }
            }
        }
        return HostTensor.concatRows(rows);
    }

    private static int vocab(Gguf.Contents g, String a) throws Gguf.FormatException {
        HostTensor embed = g.tensors().contains("token_embd.weight") ? g.tensors().get("token_embd.weight") : null;
        if (embed == null || embed.shape().rank() != 2) {
            throw new IllegalArgumentException("gguf: the file has no matrix token_embd.weight"
                    + (embed == null ? "" : " (its shape is " + embed.shape() + ")"));
        }
        int v = embed.shape().dim(0);
        if (g.has(a + "vocab_size") && g.integer(a + "vocab_size") != v) {
            throw new IllegalArgumentException("gguf: " + a + "vocab_size " + g.integer(a + "vocab_size")
                    + " differs from the " + v + " rows of token_embd.weight");
        }
        return v;
    }

    private static int count(Gguf.Contents g, String key) throws Gguf.FormatException {
        long v = g.integer(key);
        if (v < 1 || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("gguf: metadata " + key + " is " + v + "; a positive int was expected");
        }
        return (int) v;
    }
}
