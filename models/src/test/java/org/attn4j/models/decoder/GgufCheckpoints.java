package org.attn4j.models.decoder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.attn4j.api.Activation;
import org.attn4j.api.RopeLayout;
import org.attn4j.api.Shape;
import org.attn4j.api.WeightType;
import org.attn4j.models.io.GgufWriter;
import org.attn4j.models.io.SafeTensors;
import org.attn4j.models.parameters.HostTensor;
import org.attn4j.models.parameters.StateDict;

/**
 * Turns a Hugging Face checkpoint ({@code config.json} keys and a state_dict) into a GGUF file the way llama.cpp's
 * {@code convert_hf_to_gguf.py} does for each architecture attn4j loads: the model class's metadata keys
 * ({@code TextModel.set_gguf_parameters} for llama, qwen2 and qwen3, with llama's {@code vocab_size} and
 * {@code rope.dimension_count}; Gemma's, Gemma 2's, Gemma 3's and Phi-3's own), its tensor names, matrices in the chosen type
 * and vectors in F32, and its changes to the tensors: llama's {@code permute} of q and k rows (and biases), Llama
 * 3.x's {@code rope_freqs} divisors, Gemma's {@code 1 + w} norms (Gemma 3's per-head ones too) and dropped LM head, Phi-3's fused
 * {@code attn_qkv} and {@code ffn_up} and its LongRoPE factor tensors and attention factor, GPT-2's Conv1D matrices
 * transposed to {@code [out, in]}. What the converter would lose (a window it does not write, a RoPE scaling it
 * drops, a query scaling llama.cpp derives otherwise) makes {@link #fromHuggingFace} throw, naming it
 * ({@link #lost}). Computed values (Llama 3's divisors) are formed in double; with F64 chosen every tensor is written
 * in F64, which ggml defines and tests use to hold float64 goldens exactly. Also random checkpoints, small
 * vocabularies and a tokenizer.json converted as the converter's {@code _set_vocab_gpt2} does, for tests and
 * benchmarks. Each tensor is converted only when the file is written, so a memory-mapped checkpoint larger than the
 * heap converts one tensor at a time.
 */
public final class GgufCheckpoints {
    private static final ObjectMapper JSON = new ObjectMapper();

    private GgufCheckpoints() {
    }

    /**
     * @param folder a Hugging Face folder with {@code config.json} and {@code model.safetensors}
     * @param matrices the storage type of every matrix
     * @return {@link #fromHuggingFace} of its config and parameters
     * @throws IOException if a file cannot be read
     */
    @SuppressWarnings("unchecked")
    public static GgufWriter fromFolder(Path folder, WeightType matrices) throws IOException {
        Map<String, Object> config = JSON.readValue(folder.resolve("config.json").toFile(), Map.class);
        return fromHuggingFace(config, SafeTensors.read(folder.resolve("model.safetensors")).tensors(), matrices);
    }

    /**
     * @param config a {@code config.json} of a family attn4j loads
     * @param hf its parameters under Hugging Face names
     * @param matrices the storage type of every matrix (F32, F16, BF16, Q8_0, Q4_0, or F64 for everything)
     * @return a writer holding the architecture's metadata and tensors; add a tokenizer and write it
     * @throws IllegalArgumentException if llama.cpp's converter would lose something of the config ({@link #lost})
     */
    public static GgufWriter fromHuggingFace(Map<String, ?> config, StateDict hf, WeightType matrices) {
        List<String> lost = lost(config);
        if (!lost.isEmpty()) {
            throw new IllegalArgumentException("GgufCheckpoints: llama.cpp's converter would lose " + lost);
        }
        DecoderConfig c = DecoderConfig.of(config, "GgufCheckpoints");
        String arch = arch(c);
        GgufWriter w = new GgufWriter().string("general.architecture", arch).string("general.name", "attn4j test")
                .uint32("general.file_type", fileType(matrices)).uint32("general.quantization_version", 2);
        String a = arch + ".";
        if (c.type() == DecoderConfig.Type.GPT2) {
            return gpt2(w, c, hf, matrices);
        }
        Map<String, Object> rope = ropeParameters(config);
        switch (arch) {
            case "llama", "qwen2", "qwen3" -> {
                textModel(w, a, config, c, rope);
                if (arch.equals("llama")) {
                    w.uint32(a + "vocab_size", c.vocabSize()).uint32(a + "rope.dimension_count", c.headDim());
                }
            }
            case "gemma", "gemma2" -> {
                w.uint32(a + "context_length", c.maxPositions()).uint32(a + "embedding_length", c.hidden())
                        .uint32(a + "block_count", c.layers()).uint32(a + "feed_forward_length", c.intermediate())
                        .uint32(a + "attention.head_count", c.heads()).uint32(a + "attention.head_count_kv", c.kvHeads())
                        .float32(a + "attention.layer_norm_rms_epsilon", (float) c.eps())
                        .uint32(a + "attention.key_length", c.headDim()).uint32(a + "attention.value_length",
                                c.headDim());
                if (arch.equals("gemma2")) {
                    w.float32(a + "attn_logit_softcapping", (float) c.attentionSoftcap())
                            .float32(a + "final_logit_softcapping", (float) c.finalSoftcap())
                            .uint32(a + "attention.sliding_window", c.window(0));
                }
            }
            case "gemma3" -> gemma3(w, a, c, rope);
            case "phi3" -> phi3(w, a, c, rope, matrices);
            default -> throw new IllegalStateException(arch);
        }
        tensors(w, arch, c, hf, matrices);
        if (arch.equals("llama") && "llama3".equals(rope.get("rope_type"))) {
            put(w, "rope_freqs.weight", HostTensor.of(llama3Divisors(config, rope, c.headDim()), c.headDim() / 2),
                    matrices);
        }
        return w;
    }

    /** {@code TextModel.set_gguf_parameters}: the keys present in the config, rope scaling of linear and yarn. */
    private static void textModel(GgufWriter w, String a, Map<String, ?> config, DecoderConfig c,
                                  Map<String, Object> rope) {
        w.uint32(a + "block_count", c.layers()).uint32(a + "context_length", c.maxPositions())
                .uint32(a + "embedding_length", c.hidden()).uint32(a + "feed_forward_length", c.intermediate())
                .uint32(a + "attention.head_count", c.heads());
        if (config.containsKey("num_key_value_heads")) {
            w.uint32(a + "attention.head_count_kv", c.kvHeads());
        }
        String type = (String) rope.get("rope_type");
        Number factor = (Number) rope.get("factor");
        if ("linear".equals(type) && factor != null) {
            w.string(a + "rope.scaling.type", "linear").float32(a + "rope.scaling.factor", factor.floatValue());
        } else if ("yarn".equals(type) && factor != null) {
            w.string(a + "rope.scaling.type", "yarn").float32(a + "rope.scaling.factor", factor.floatValue())
                    .uint32(a + "rope.scaling.original_context_length",
                            ((Number) rope.get("original_max_position_embeddings")).longValue());
            floatIfPresent(w, a + "rope.scaling.yarn_ext_factor", rope.get("extrapolation_factor"));
            floatIfPresent(w, a + "rope.scaling.yarn_attn_factor", rope.containsKey("attention_factor")
                    ? rope.get("attention_factor") : rope.get("attn_factor"));
            floatIfPresent(w, a + "rope.scaling.yarn_beta_fast", rope.get("beta_fast"));
            floatIfPresent(w, a + "rope.scaling.yarn_beta_slow", rope.get("beta_slow"));
        } else if ("longrope".equals(type) || "su".equals(type)) {
            w.string(a + "rope.scaling.type", "longrope");
        }
        floatIfPresent(w, a + "rope.freq_base", rope.get("rope_theta"));
        w.float32(a + "attention.layer_norm_rms_epsilon", (float) c.eps());
        if (config.get("head_dim") != null) {
            w.uint32(a + "attention.key_length", c.headDim()).uint32(a + "attention.value_length", c.headDim());
        }
    }

    private static void floatIfPresent(GgufWriter w, String key, Object value) {
        if (value != null) {
            w.float32(key, ((Number) value).floatValue());
        }
    }

    /**
     * {@code Gemma3Model.set_gguf_parameters}: the sizes with Gemma3TextConfig's defaults filled in, the global
     * layers' {@code rope_theta}, the window, and a linear {@code rope_scaling} (the only kind it accepts).
     */
    private static void gemma3(GgufWriter w, String a, DecoderConfig c, Map<String, Object> rope) {
        w.uint32(a + "context_length", c.maxPositions()).uint32(a + "embedding_length", c.hidden())
                .uint32(a + "block_count", c.layers()).uint32(a + "feed_forward_length", c.intermediate())
                .uint32(a + "attention.head_count", c.heads())
                .float32(a + "attention.layer_norm_rms_epsilon", (float) c.eps())
                .uint32(a + "attention.key_length", c.headDim()).uint32(a + "attention.value_length", c.headDim())
                .float32(a + "rope.freq_base", ((Number) rope.getOrDefault("rope_theta", 1e6)).floatValue())
                .uint32(a + "attention.sliding_window", c.window(0))
                .uint32(a + "attention.head_count_kv", c.kvHeads());
        if ("linear".equals(rope.get("rope_type"))) {
            w.string(a + "rope.scaling.type", "linear").float32(a + "rope.scaling.factor",
                    ((Number) rope.get("factor")).floatValue());
        }
    }

    /** {@code Phi3MiniModel}: its own keys, and LongRoPE's attention factor and factor tensors when it has them. */
    @SuppressWarnings("unchecked")
    private static void phi3(GgufWriter w, String a, DecoderConfig c, Map<String, Object> rope, WeightType matrices) {
        int original = ((Number) rope.get("original_max_position_embeddings")).intValue();
        double partial = rope.containsKey("partial_rotary_factor") ? ((Number) rope.get("partial_rotary_factor"))
                .doubleValue() : 1.0;
        int ropeDims = (int) (partial * c.hidden()) / c.heads();
        w.uint32(a + "context_length", c.maxPositions()).uint32(a + "rope.scaling.original_context_length", original)
                .uint32(a + "embedding_length", c.hidden()).uint32(a + "feed_forward_length", c.intermediate())
                .uint32(a + "block_count", c.layers()).uint32(a + "attention.head_count", c.heads())
                .uint32(a + "attention.head_count_kv", c.kvHeads())
                .float32(a + "attention.layer_norm_rms_epsilon", (float) c.eps())
                .uint32(a + "rope.dimension_count", ropeDims).float32(a + "rope.freq_base",
                        ((Number) rope.get("rope_theta")).floatValue())
                .uint32(a + "attention.sliding_window", c.window(0));
        List<Number> longFactors = (List<Number>) rope.get("long_factor");
        if (longFactors == null || longFactors.isEmpty()) {
            return;
        }
        double scale = (double) c.maxPositions() / original;
        double attention = scale > 1.0 ? Math.sqrt(1 + Math.log(scale) / Math.log(original)) : 1.0;
        w.float32(a + "rope.scaling.attn_factor", (float) attention);
        put(w, "rope_factors_long.weight", HostTensor.of(doubles(longFactors), longFactors.size()), matrices);
        List<Number> shortFactors = (List<Number>) rope.get("short_factor");
        put(w, "rope_factors_short.weight", HostTensor.of(doubles(shortFactors), shortFactors.size()), matrices);
    }

    private static double[] doubles(List<Number> v) {
        return v.stream().mapToDouble(Number::doubleValue).toArray();
    }

    /**
     * {@code LlamaModel.generate_extra_tensors}: the divisor of each pair's frequency that Llama 3's scaling applies
     * (1 for high frequencies, {@code factor} for low ones, {@code 1 / ((1 - s)/factor + s)} between).
     */
    private static double[] llama3Divisors(Map<String, ?> config, Map<String, Object> rope, int dim) {
        double base = ((Number) rope.getOrDefault("rope_theta", 10000.0)).doubleValue();
        double factor = ((Number) rope.getOrDefault("factor", 8.0)).doubleValue();
        double low = ((Number) rope.getOrDefault("low_freq_factor", 1.0)).doubleValue();
        double high = ((Number) rope.getOrDefault("high_freq_factor", 4.0)).doubleValue();
        double old = ((Number) rope.getOrDefault("original_max_position_embeddings", 8192)).doubleValue();
        double lowWavelength = old / low;
        double highWavelength = old / high;
        double[] out = new double[dim / 2];
        for (int i = 0; i < out.length; i++) {
            double freq = 1.0 / Math.pow(base, 2.0 * i / dim);
            double wavelength = 2 * Math.PI / freq;
            if (wavelength < highWavelength) {
                out[i] = 1;
            } else if (wavelength > lowWavelength) {
                out[i] = factor;
            } else {
                double smooth = (old / wavelength - low) / (high - low);
                out[i] = 1 / ((1 - smooth) / factor + smooth);
            }
        }
        return out;
    }

    /**
     * {@code TextModel.__init__}'s rope parameters: {@code rope_parameters} or {@code rope_scaling}, with the
     * top-level {@code rope_theta}, {@code partial_rotary_factor} and {@code original_max_position_embeddings}
     * mirrored in, and {@code type} as {@code rope_type}.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> ropeParameters(Map<String, ?> config) {
        Object given = config.get("rope_parameters") != null ? config.get("rope_parameters") : config.get("rope_scaling");
        Map<String, Object> rope = given == null ? new LinkedHashMap<>() : new LinkedHashMap<>((Map<String, ?>) given);
        for (String key : List.of("rope_theta", "partial_rotary_factor", "original_max_position_embeddings")) {
            if (!rope.containsKey(key) && config.get(key) != null) {
                rope.put(key, config.get(key));
            }
        }
        if (!rope.containsKey("rope_type") && rope.get("type") != null) {
            rope.put("rope_type", rope.get("type"));
        }
        return rope;
    }

    /**
     * @param config a {@code config.json} of a family attn4j loads
     * @return what of it llama.cpp's converter does not write (or llama.cpp runs otherwise), so that the GGUF file
     *     would compute other numbers than the checkpoint; empty if the file holds it all
     */
    public static List<String> lost(Map<String, ?> config) {
        DecoderConfig c = DecoderConfig.of(config, "GgufCheckpoints");
        Map<String, Object> rope = ropeParameters(config);
        String kind = c.rope(0) == null ? "none" : c.rope(0).kind();
        List<String> lost = new ArrayList<>();
        boolean windowed = false;
        for (int l = 0; l < c.layers(); l++) {
            windowed |= c.window(l) > 0;
        }
        switch (c.type()) {
            case GPT2 -> {
                if (c.intermediate() != 4 * c.hidden() || c.activation() != Activation.GELU_TANH
                        || c.attentionScale(c.layers() - 1) != 1.0 / Math.sqrt(c.headDim()) || !c.tiedEmbeddings()) {
                    lost.add("n_inner, activation_function, scale_attn_by_inverse_layer_idx or an untied head");
                }
            }
            case LLAMA, MISTRAL, QWEN2, QWEN3 -> {
                if (windowed) {
                    lost.add("the sliding window (the converter writes none for " + arch(c) + ")");
                }
                if (!List.of("default", "linear", "yarn").contains(kind)
                        && !(kind.equals("llama3") && arch(c).equals("llama"))) {
                    lost.add("rope_type " + kind);
                }
                if (kind.equals("yarn") && (rope.containsKey("mscale") || rope.containsKey("mscale_all_dim")
                        || Boolean.FALSE.equals(rope.get("truncate")))) {
                    lost.add("yarn's mscale, mscale_all_dim and truncate");
                }
                if (c.activation() != Activation.SILU) {
                    lost.add("the activation " + c.activation() + " (llama.cpp's " + arch(c) + " gates with SiLU)");
                }
                if (c.rope(0).layout() != RopeLayout.HALF_SPLIT) {
                    lost.add("rope_interleaved (the converter permutes Hugging Face's half-split rows)");
                }
                if (!config.containsKey("num_key_value_heads") && c.kvHeads() != c.heads()) {
                    lost.add("the default num_key_value_heads " + c.kvHeads());
                }
            }
            case GEMMA, GEMMA2 -> {
                if (!kind.equals("default") || c.rope(0).base() != 10000.0) {
                    lost.add("the rotary embedding (the converter writes neither rope_theta nor rope_scaling)");
                }
                if (c.activation() != Activation.GELU_TANH || !c.tiedEmbeddings()) {
                    lost.add("an activation other than the tanh GELU, or an untied head");
                }
                if (c.type() == DecoderConfig.Type.GEMMA2) {
                    double scalar = c.layers() == 46 ? c.hidden() / c.heads() : c.headDim();
                    if (Math.abs(c.attentionScale(0) - Math.pow(scalar, -0.5)) > 1e-15) {
                        lost.add("query_pre_attn_scalar (llama.cpp scales by the head size, or hidden/heads for 46"
                                + " layers)");
                    }
                    for (int l = 0; l < c.layers(); l++) {
                        if ((c.window(l) > 0) != (l % 2 == 0)) {
                            lost.add("layer_types other than local even layers");
                            break;
                        }
                    }
                    if (c.attentionSoftcap() == 0 || c.finalSoftcap() == 0) {
                        lost.add("a soft-cap of null (llama.cpp's gemma2 always caps)");
                    }
                }
            }
            case GEMMA3, GEMMA3_IMAGE_TEXT -> {
                if (c.activation() != Activation.GELU_TANH || !c.tiedEmbeddings()) {
                    lost.add("an activation other than the tanh GELU, or an untied head");
                }
                double scalar = c.layers() == 62 ? c.hidden() / c.heads() : c.headDim();
                if (Math.abs(c.attentionScale(0) - Math.pow(scalar, -0.5)) > 1e-15) {
                    lost.add("query_pre_attn_scalar (llama.cpp scales by the head size, or hidden/heads for 62"
                            + " layers)");
                }
                for (int l = 0; l < c.layers(); l++) {
                    boolean local = (l + 1) % 6 != 0;
                    RopeScaling r = c.rope(l);
                    if ((c.window(l) > 0) != local || local && c.window(l) != c.window(0)) {
                        lost.add("layer_types other than five local layers to one global, or windows that differ");
                        break;
                    }
                    if (local ? !r.kind().equals("default") || r.base() != 10000.0
                            : !List.of("default", "linear").contains(r.kind())) {
                        lost.add("the local layers' rope other than base 10000 unscaled, or a global rope_type "
                                + r.kind() + " (the converter accepts linear only)");
                        break;
                    }
                }
                if (c.attentionSoftcap() != 0 || c.finalSoftcap() != 0) {
                    lost.add("a soft-cap (the converter asserts none)");
                }
                if (c.type() == DecoderConfig.Type.GEMMA3_IMAGE_TEXT) {
                    lost.add("the image-text wrapper's names (this converter writes text checkpoints)");
                }
            }
            case PHI3 -> {
                if (!kind.equals("default") && !kind.equals("longrope")) {
                    lost.add("rope_type " + kind);
                }
                if (kind.equals("longrope") && (rope.get("attention_factor") != null || rope.get("factor") != null)) {
                    lost.add("LongRoPE's attention_factor or factor (the converter writes transformers' default)");
                }
                if (c.activation() != Activation.SILU) {
                    lost.add("the activation " + c.activation());
                }
            }
        }
        return lost;
    }

    private static GgufWriter gpt2(GgufWriter w, DecoderConfig config, StateDict hf, WeightType matrices) {
        String a = "gpt2.";
        w.uint32(a + "context_length", config.maxPositions()).uint32(a + "embedding_length", config.hidden())
                .uint32(a + "block_count", config.layers()).uint32(a + "feed_forward_length", config.intermediate())
                .uint32(a + "attention.head_count", config.heads())
                .float32(a + "attention.layer_norm_epsilon", (float) config.eps());
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

    /** The llama lineage's tensors under llama.cpp's names, changed as each model class changes them. */
    private static void tensors(GgufWriter w, String arch, DecoderConfig c, StateDict hf, WeightType matrices) {
        boolean gemma = arch.startsWith("gemma");
        put(w, "token_embd.weight", hf.get("model.embed_tokens.weight"), matrices);
        put(w, "output_norm.weight", norm(hf.get("model.norm.weight"), gemma), matrices);
        if (hf.contains("lm_head.weight") && !gemma) {
            put(w, "output.weight", hf.get("lm_head.weight"), matrices);
        }
        for (int l = 0; l < c.layers(); l++) {
            String p = "model.layers." + l + ".";
            String b = "blk." + l + ".";
            Map<String, String> names = new LinkedHashMap<>();
            names.put("input_layernorm", "attn_norm");
            names.put("self_attn.q_proj", "attn_q");
            names.put("self_attn.k_proj", "attn_k");
            names.put("self_attn.v_proj", "attn_v");
            names.put("self_attn.qkv_proj", "attn_qkv");
            names.put("self_attn.o_proj", "attn_output");
            names.put("self_attn.q_norm", "attn_q_norm");
            names.put("self_attn.k_norm", "attn_k_norm");
            names.put("post_attention_layernorm", arch.equals("gemma2") || arch.equals("gemma3")
                    ? "post_attention_norm" : "ffn_norm");
            names.put("pre_feedforward_layernorm", "ffn_norm");
            names.put("post_feedforward_layernorm", "post_ffw_norm");
            names.put("mlp.gate_proj", "ffn_gate");
            names.put("mlp.up_proj", "ffn_up");
            names.put("mlp.gate_up_proj", "ffn_up");
            names.put("mlp.down_proj", "ffn_down");
            for (Map.Entry<String, String> e : names.entrySet()) {
                for (String kind : List.of(".weight", ".bias")) {
                    String from = p + e.getKey() + kind;
                    if (!hf.contains(from)) {
                        continue;
                    }
                    UnaryOperator<HostTensor> change;
                    if (arch.equals("llama") && e.getKey().equals("self_attn.q_proj")) {
                        change = t -> permute(t, c.heads());
                    } else if (arch.equals("llama") && e.getKey().equals("self_attn.k_proj")) {
                        change = t -> permute(t, c.kvHeads());
                    } else if (e.getKey().endsWith("norm")) {
                        change = t -> norm(t, gemma);
                    } else {
                        change = UnaryOperator.identity();
                    }
                    put(w, b + e.getValue() + kind, hf.get(from), change, matrices);
                }
            }
        }
    }

    /** @return Gemma's norm weight with the converter's {@code + 1}, else the weight */
    private static HostTensor norm(HostTensor t, boolean gemma) {
        if (!gemma) {
            return t;
        }
        double[] v = t.data();
        for (int i = 0; i < v.length; i++) {
            v[i] += 1;
        }
        return t.type() == WeightType.F64 ? HostTensor.of(v, t.shape().toArray())
                : HostTensor.of(toFloats(v), t.shape().toArray());
    }

    private static float[] toFloats(double[] v) {
        float[] f = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            f[i] = (float) v[i];
        }
        return f;
    }

    private static String arch(DecoderConfig config) {
        return switch (config.type()) {
            case GPT2 -> "gpt2";
            case LLAMA, MISTRAL -> "llama";
            case GEMMA3, GEMMA3_IMAGE_TEXT -> "gemma3";
            default -> config.type().modelType();
        };
    }

    /** llama.cpp's {@code LlamaFileType} of a file whose matrices are all of one type (the K-types' _M mixes). */
    private static int fileType(WeightType t) {
        return switch (t) {
            case F32, F64 -> 0;
            case F16 -> 1;
            case Q4_0 -> 2;
            case Q4_1 -> 3;
            case Q8_0 -> 7;
            case Q5_0 -> 8;
            case Q5_1 -> 9;
            case Q2_K -> 10;
            case Q3_K -> 12;
            case Q4_K -> 15;
            case Q5_K -> 17;
            case Q6_K -> 18;
            case IQ4_NL -> 25;
            case IQ4_XS -> 30;
            case BF16 -> 32;
            case I8 -> throw new IllegalArgumentException("GGUF has no I8 (ONNX Runtime's per-row int8) weights");
        };
    }

    /**
     * Matrices in the chosen type, everything else in F32, as llama.cpp's converter does (all in F64 when F64 is
     * chosen, which ggml defines and tests use to hold float64 goldens exactly).
     */
    private static void put(GgufWriter w, String name, HostTensor t, WeightType matrices) {
        put(w, name, t, UnaryOperator.identity(), matrices);
    }

    /**
     * {@link #put} of a tensor the converter changes first (a permutation of rows, Gemma's {@code + 1}), keeping its
     * shape; the change and the conversion run only when the file is written, so that a memory-mapped checkpoint
     * larger than the heap converts one tensor at a time.
     */
    private static void put(GgufWriter w, String name, HostTensor t, UnaryOperator<HostTensor> change,
                            WeightType matrices) {
        if (t == null) {
            throw new IllegalArgumentException("GgufCheckpoints: no tensor for " + name);
        }
        WeightType type = t.shape().rank() == 2 || matrices == WeightType.F64 ? matrices : WeightType.F32;
        w.tensor(name, t.shape(), type, () -> convert(change.apply(t), type));
    }

    /** @return the tensor's values stored in {@code type} (its own bytes when it has that type already) */
    public static HostTensor convert(HostTensor t, WeightType type) {
        if (t.type() == type) {
            return t;
        }
        if (type == WeightType.F64) {
            return HostTensor.of(t.data(), t.shape().toArray());
        }
        int cols = t.shape().dim(-1);
        Shape rows = Shape.of(Math.toIntExact(t.shape().size() / cols), cols);
        return HostTensor.wrap(t.shape(), type, type.encode(t.toFloatArray(), rows));
    }

    /**
     * llama.cpp's {@code permute(w, n_head, n_head_kv)}, written as the converter's numpy expression
     * {@code w.reshape(n_head, 2, d/2, *rest).swapaxes(1, 2).reshape(w.shape)}: the row at {@code [h, half, j]}
     * moves to {@code [h, j, half]}; a weight {@code [rows, in]} or a bias {@code [rows]}.
     */
    static HostTensor permute(HostTensor w, int heads) {
        int rows = w.shape().dim(0);
        int cols = w.shape().rank() == 2 ? w.shape().dim(1) : 1;
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
        return HostTensor.of(out, w.shape().toArray());
    }

    /**
     * A seeded random decoder of the llama lineage (Llama, Mistral, Qwen2, Qwen3, Gemma, Gemma 2, Gemma 3, Phi-3)
     * under its family's Hugging Face names, F32, every matrix's rows already rounded through {@code type} (quantized
     * and dequantized), so that a GGUF file of that type holds exactly these values; biases where the config has
     * them, Qwen3's and Gemma 3's per-head norms, Gemma 2's and Gemma 3's four norms a block, Phi-3's fused
     * projections.
     */
    public static StateDict randomDecoder(DecoderConfig c, WeightType type, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        DecoderConfig.Type family = c.type();
        int e = c.hidden();
        int q = c.heads() * c.headDim();
        int kv = c.kvHeads() * c.headDim();
        int inner = c.intermediate();
        boolean sandwich = family == DecoderConfig.Type.GEMMA2 || family == DecoderConfig.Type.GEMMA3;
        double gemma = family == DecoderConfig.Type.GEMMA || sandwich ? 1.0 : 0.0;
        Map<String, HostTensor> m = new LinkedHashMap<>();
        m.put("model.embed_tokens.weight", matrix(r, c.vocabSize(), e, 1.0, type));
        for (int l = 0; l < c.layers(); l++) {
            String p = "model.layers." + l + ".";
            m.put(p + "input_layernorm.weight", vector(r, e, -gemma));
            if (family == DecoderConfig.Type.PHI3) {
                m.put(p + "self_attn.qkv_proj.weight", matrix(r, q + 2 * kv, e, 1 / Math.sqrt(e), type));
            } else {
                m.put(p + "self_attn.q_proj.weight", matrix(r, q, e, 1 / Math.sqrt(e), type));
                m.put(p + "self_attn.k_proj.weight", matrix(r, kv, e, 1 / Math.sqrt(e), type));
                m.put(p + "self_attn.v_proj.weight", matrix(r, kv, e, 1 / Math.sqrt(e), type));
            }
            if (c.qkvBias()) {
                m.put(p + "self_attn.q_proj.bias", vector(r, q, -1));
                m.put(p + "self_attn.k_proj.bias", vector(r, kv, -1));
                m.put(p + "self_attn.v_proj.bias", vector(r, kv, -1));
            }
            if (family == DecoderConfig.Type.QWEN3 || family == DecoderConfig.Type.GEMMA3) {
                m.put(p + "self_attn.q_norm.weight", vector(r, c.headDim(), -gemma));
                m.put(p + "self_attn.k_norm.weight", vector(r, c.headDim(), -gemma));
            }
            m.put(p + "self_attn.o_proj.weight", matrix(r, e, q, 1 / Math.sqrt(q), type));
            if (c.outputBias()) {
                m.put(p + "self_attn.o_proj.bias", vector(r, e, -1));
            }
            m.put(p + "post_attention_layernorm.weight", vector(r, e, -gemma));
            if (sandwich) {
                m.put(p + "pre_feedforward_layernorm.weight", vector(r, e, -1));
                m.put(p + "post_feedforward_layernorm.weight", vector(r, e, -1));
            }
            if (family == DecoderConfig.Type.PHI3) {
                m.put(p + "mlp.gate_up_proj.weight", matrix(r, 2 * inner, e, 1 / Math.sqrt(e), type));
            } else {
                m.put(p + "mlp.gate_proj.weight", matrix(r, inner, e, 1 / Math.sqrt(e), type));
                m.put(p + "mlp.up_proj.weight", matrix(r, inner, e, 1 / Math.sqrt(e), type));
            }
            m.put(p + "mlp.down_proj.weight", matrix(r, e, inner, 1 / Math.sqrt(inner), type));
            if (c.mlpBias()) {
                m.put(p + "mlp.gate_proj.bias", vector(r, inner, -1));
                m.put(p + "mlp.up_proj.bias", vector(r, inner, -1));
                m.put(p + "mlp.down_proj.bias", vector(r, e, -1));
            }
        }
        m.put("model.norm.weight", vector(r, e, -gemma));
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
            m.put(p + "ln_1.weight", vector(r, e, 0));
            m.put(p + "ln_1.bias", vector(r, e, -1));
            m.put(p + "attn.c_attn.weight", matrix(r, 3 * e, e, 1 / Math.sqrt(e), type).transpose());
            m.put(p + "attn.c_attn.bias", vector(r, 3 * e, -1));
            m.put(p + "attn.c_proj.weight", matrix(r, e, e, 1 / Math.sqrt(e), type).transpose());
            m.put(p + "attn.c_proj.bias", vector(r, e, -1));
            m.put(p + "ln_2.weight", vector(r, e, 0));
            m.put(p + "ln_2.bias", vector(r, e, -1));
            m.put(p + "mlp.c_fc.weight", matrix(r, 4 * e, e, 1 / Math.sqrt(e), type).transpose());
            m.put(p + "mlp.c_fc.bias", vector(r, 4 * e, -1));
            m.put(p + "mlp.c_proj.weight", matrix(r, e, 4 * e, 1 / Math.sqrt(4 * e), type).transpose());
            m.put(p + "mlp.c_proj.bias", vector(r, e, -1));
        }
        m.put("ln_f.weight", vector(r, e, 0));
        m.put("ln_f.bias", vector(r, e, -1));
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

    /** @return {@code 1 + offset + 0.2·u}, u uniform in [-1, 1): norms around 1 (Gemma's around 0), biases small */
    private static HostTensor vector(SplittableRandom r, int n, double offset) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (1 + offset + 0.2 * (2 * r.nextDouble() - 1));
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
                .floats("tokenizer.ggml.scores", Arrays.copyOf(scores, size))
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
        Arrays.fill(types, 1);
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

    /**
     * A folder's byte-level BPE {@code tokenizer.json} and {@code tokenizer_config.json} as the converter's
     * {@code _set_vocab_gpt2} and {@code SpecialVocab} write them: every id up to {@code vocab_size} (missing ones as
     * {@code [PADn]}, type user-defined), added tokens control when special, else user-defined, the merges, the
     * pre-tokenizer name, BOS and EOS from {@code bos_token} and {@code eos_token}, and {@code chat_template}.
     *
     * @param w the writer
     * @param folder a Hugging Face folder
     * @param vocabSize the model's {@code vocab_size}
     * @param pre the pre-tokenizer name the converter's hash check gives this tokenizer ({@code llama-bpe} …)
     * @return the writer
     * @throws IOException if a file cannot be read
     */
    public static GgufWriter byteLevelBpe(GgufWriter w, Path folder, int vocabSize, String pre) throws IOException {
        JsonNode tokenizer = JSON.readTree(folder.resolve("tokenizer.json").toFile());
        JsonNode model = tokenizer.get("model");
        if (!"BPE".equals(model.path("type").asText()) || !tokenizer.path("decoder").path("type").asText()
                .equals("ByteLevel")) {
            throw new IllegalArgumentException("GgufCheckpoints: " + folder + " has no byte-level BPE tokenizer");
        }
        String[] tokens = new String[vocabSize];
        int[] types = new int[vocabSize];
        model.get("vocab").properties().forEach(e -> {
            tokens[e.getValue().asInt()] = e.getKey();
            types[e.getValue().asInt()] = 1;
        });
        for (JsonNode added : tokenizer.get("added_tokens")) {
            int id = added.get("id").asInt();
            tokens[id] = added.get("content").asText();
            types[id] = added.get("special").asBoolean() ? 3 : 4;
        }
        for (int i = 0; i < vocabSize; i++) {
            if (tokens[i] == null) {
                tokens[i] = "[PAD" + i + "]";
                types[i] = 4;
            }
        }
        List<String> merges = new ArrayList<>();
        for (JsonNode m : model.get("merges")) {
            merges.add(m.isArray() ? m.get(0).asText() + " " + m.get(1).asText() : m.asText());
        }
        w.string("tokenizer.ggml.model", "gpt2").string("tokenizer.ggml.pre", pre)
                .strings("tokenizer.ggml.tokens", Arrays.asList(tokens)).int32s("tokenizer.ggml.token_type", types)
                .strings("tokenizer.ggml.merges", merges);
        Path configFile = folder.resolve("tokenizer_config.json");
        if (Files.isRegularFile(configFile)) {
            JsonNode config = JSON.readTree(configFile.toFile());
            List<String> byId = Arrays.asList(tokens);
            for (String role : List.of("bos", "eos", "unk", "pad")) {
                JsonNode token = config.get(role + "_token");
                String text = token == null || token.isNull() ? null
                        : token.isObject() ? token.get("content").asText() : token.asText();
                if (text != null && byId.contains(text)) {
                    w.uint32("tokenizer.ggml." + (role.equals("unk") ? "unknown" : role.equals("pad") ? "padding"
                            : role) + "_token_id", byId.indexOf(text));
                }
            }
            if (config.hasNonNull("chat_template")) {
                w.string("tokenizer.chat_template", config.get("chat_template").asText());
            }
        }
        return w;
    }
}
